/* Headline metric catalog and --metrics spec parsing. */
#include "sessions/catalog.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/name_index.h"
#include "common/util.h"
#include "sessions/record.h"

const MetricInfo *Catalog_find(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < Catalog_headlineCount; i++)
    if (strcmp(Catalog_headline[i].name, name) == 0) return &Catalog_headline[i];
  return NULL;
}

static const char *const direction_names[] = {"higher", "lower", "neutral"};

const char *Catalog_directionName(MetricDirection d) {
  return (unsigned)d < 3 ? direction_names[d] : "neutral";
}

bool Catalog_directionParse(const char *s, MetricDirection *out) {
  for (int i = 0; s && i < 3; i++)
    if (strcmp(s, direction_names[i]) == 0) {
      *out = (MetricDirection)i;
      return true;
    }
  return false;
}

double Catalog_sharedWays(double conflicts, double wavefronts) {
  if (isnan(conflicts) || isnan(wavefronts) || conflicts < 0) return NAN;
  const double ideal = wavefronts - conflicts;
  if (!(ideal > 0)) return NAN;
  return wavefronts / ideal;
}

bool Metrics_nameValid(const char *name) {
  size_t n = name ? strlen(name) : 0;
  if (n == 0 || n >= METRIC_NAME_MAX || !isalpha((unsigned char)name[0])) return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if (!isalnum(c) && c != '_' && c != '.') return false;
  }
  return true;
}

void Metrics_freeNames(char **names, int n) {
  if (!names) return;
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* Appends name unless already present; false when the list is full. */
static bool Metrics_add(char **names, int *n, const char *name) {
  for (int i = 0; i < *n; i++)
    if (strcmp(names[i], name) == 0) return true;
  if (*n >= METRICS_MAX) return false;
  names[(*n)++] = Util_xstrdup(name);
  return true;
}

/* What CUPTI collects for a catalog line: itself, or a derived one's inputs. */
static bool Metrics_addCollected(char **names, int *n, const MetricInfo *m) {
  if (m->derive == DERIVE_NONE) return Metrics_add(names, n, m->name);
  return Metrics_add(names, n, m->from[0]) && Metrics_add(names, n, m->from[1]);
}

void Catalog_addDerived(Record *r) {
  for (int i = 0; i < Catalog_headlineCount; i++) {
    const MetricInfo *d = &Catalog_headline[i];
    if (d->derive == DERIVE_NONE || Record_metric(r, d->name)) continue;
    const Metric *a = Record_metric(r, d->from[0]), *b = Record_metric(r, d->from[1]);
    if (!a || !b) continue;
    Metric out;
    memset(&out, 0, sizeof out);
    Util_strlcpy(out.name, d->name, sizeof out.name);
    Util_strlcpy(out.unit, d->unit, sizeof out.unit);
    out.value = NAN;
    double sum = a->value + b->value;
    const Metric *na = isnan(a->value) ? a : isnan(b->value) ? b : NULL;
    if (na && na->reason[0]) /* the input's own reason (restricted counters, no profiler) */
      Util_strlcpy(out.reason, na->reason, sizeof out.reason);
    else if (na)
      snprintf(out.reason, sizeof out.reason, "%.70s is n/a", na->name);
    else if (!(sum > 0))
      snprintf(out.reason, sizeof out.reason, "no L2 read lookups by the SMs");
    else
      out.value = 100.0 * a->value / sum;
    r->metrics = Util_xrealloc(r->metrics, sizeof *r->metrics * (size_t)(r->nmetrics + 1));
    r->metrics[r->nmetrics++] = out;
  }
}

int Metrics_resolve(const char *spec, char ***names_out, char *err, size_t errsize) {
  *names_out = NULL;
  if (!spec) spec = "default";
  char **names = Util_xcalloc(METRICS_MAX, sizeof *names);
  int n = 0;
  const char *p = spec;
  bool saw_none = false, saw_other = false;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    while (len > 0 && isspace((unsigned char)*p)) p++, len--;
    while (len > 0 && isspace((unsigned char)p[len - 1])) len--;
    char item[METRIC_NAME_MAX + 8];
    if (len == 0) {
      snprintf(err, errsize, "--metrics '%s': empty name in the list (use default, none or NAME,NAME)",
               spec);
      goto fail;
    }
    if (len >= sizeof item) {
      snprintf(err, errsize, "--metrics: name '%.40s...' is too long (at most %d characters)", p,
               METRIC_NAME_MAX - 1);
      goto fail;
    }
    memcpy(item, p, len);
    item[len] = '\0';
    if (strcmp(item, "none") == 0) {
      saw_none = true;
    } else if (strcmp(item, "default") == 0) {
      saw_other = true;
      for (int i = 0; i < Catalog_headlineCount; i++)
        if (!Metrics_addCollected(names, &n, &Catalog_headline[i])) goto full;
    } else if (Catalog_find(item) && Catalog_find(item)->derive != DERIVE_NONE) {
      saw_other = true;
      if (!Metrics_addCollected(names, &n, Catalog_find(item))) goto full;
    } else {
      saw_other = true;
      if (!Metrics_nameValid(item)) {
        snprintf(err, errsize,
                 "--metrics: '%s' is not a metric name (letters, digits, '_' and '.', e.g. "
                 "lts__t_sector_hit_rate.pct; see benchtop list metrics)", item);
        goto fail;
      }
      if (!Metrics_add(names, &n, item)) goto full;
    }
    if (!end) break;
    p = end + 1;
  }
  if (saw_none && saw_other) {
    snprintf(err, errsize, "--metrics: 'none' cannot be combined with other names");
    goto fail;
  }
  if (n == 0) {
    free(names);
    return 0;
  }
  *names_out = names;
  return n;
full:
  snprintf(err, errsize, "--metrics: more than %d metrics", METRICS_MAX);
fail:
  Metrics_freeNames(names, n);
  return -1;
}

/* Appends a column for name unless present (names: the columns' names so far); info NULL
 * outside the catalog. */
static void MetricColumns_add(MetricColumns *mc, int *cap, NameIndex *names, const char *name,
                              const char *unit, const MetricInfo *info) {
  if (!NameIndex_add(names, name, mc->n)) return;
  if (mc->n == *cap) {
    *cap = *cap ? 2 * *cap : 16;
    mc->col = Util_xrealloc(mc->col, sizeof *mc->col * (size_t)*cap);
  }
  MetricColumn *c = &mc->col[mc->n++];
  memset(c, 0, sizeof *c);
  Util_strlcpy(c->name, name, sizeof c->name);
  Util_strlcpy(c->label, info ? info->label : name, sizeof c->label);
  Util_strlcpy(c->unit, info ? info->unit : unit ? unit : "", sizeof c->unit);
  c->direction = info ? info->direction : METRIC_NEUTRAL;
  c->info = info;
}

/* Length of a name without its rollup suffix, or the whole length when it has none. */
static size_t MetricColumns_stem(const char *name) {
  static const char *const rollups[] = {".sum", ".avg", ".max", ".min"};
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof rollups / sizeof rollups[0]; i++) {
    size_t k = strlen(rollups[i]);
    if (n > k && strcmp(name + n - k, rollups[i]) == 0) return n - k;
  }
  return n;
}

/* Labels of the user's metrics: the name less its rollup, where that stays unique among every
 * column's label and name (two labels must never read the same): no other column's label is
 * the stem, and no other column's name has the same stem. Indexed, not pairwise: a session may
 * hold tens of thousands of names. */
static void MetricColumns_labelUserMetrics(MetricColumns *mc) {
  NameIndex labels, stems; /* every column's label; every stem with how many names have it */
  NameIndex_init(&labels);
  NameIndex_init(&stems);
  char stem[METRIC_NAME_MAX];
  for (int i = 0; i < mc->n; i++) {
    NameIndex_add(&labels, mc->col[i].label, i);
    Util_strlcpy(stem, mc->col[i].name, MetricColumns_stem(mc->col[i].name) + 1);
    int *count = NameIndex_slot(&stems, stem);
    if (count) (*count)++;
    else NameIndex_add(&stems, stem, 1);
  }
  for (int i = 0; i < mc->n; i++) {
    MetricColumn *c = &mc->col[i];
    size_t len = MetricColumns_stem(c->name);
    if (c->info || len == strlen(c->name)) continue;
    if (NameIndex_findLen(&stems, c->name, len) == 1 && NameIndex_findLen(&labels, c->name, len) < 0)
      c->label[len] = '\0';
  }
  NameIndex_free(&labels);
  NameIndex_free(&stems);
}

void MetricColumns_collect(MetricColumns *mc, const Record *const *recs, int n, bool brief_only) {
  memset(mc, 0, sizeof *mc);
  int cap = 0;
  NameIndex names;
  NameIndex_init(&names);
  for (int k = 0; k < Catalog_headlineCount; k++) {
    const MetricInfo *info = &Catalog_headline[k];
    if (brief_only && !info->brief) continue;
    for (int i = 0; i < n; i++) {
      const Metric *m = Record_metric(recs[i], info->name);
      if (m && !isnan(m->value)) {
        MetricColumns_add(mc, &cap, &names, info->name, NULL, info);
        break;
      }
    }
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < recs[i]->nmetrics; k++) {
      const Metric *m = &recs[i]->metrics[k];
      if (NameIndex_find(&names, m->name) < 0 && !Catalog_find(m->name))
        MetricColumns_add(mc, &cap, &names, m->name, m->unit, NULL);
    }
  NameIndex_free(&names);
  MetricColumns_labelUserMetrics(mc);
}

void MetricColumns_fromNames(MetricColumns *mc, char *const *names, int n, bool brief_only) {
  memset(mc, 0, sizeof *mc);
  int cap = 0;
  NameIndex seen;
  NameIndex_init(&seen);
  for (int k = 0; k < Catalog_headlineCount; k++) {
    const MetricInfo *info = &Catalog_headline[k];
    if (brief_only && !info->brief) continue;
    for (int i = 0; i < n; i++)
      if (strcmp(names[i], info->name) == 0) MetricColumns_add(mc, &cap, &seen, info->name, NULL, info);
  }
  for (int i = 0; i < n; i++)
    if (!Catalog_find(names[i])) MetricColumns_add(mc, &cap, &seen, names[i], NULL, NULL);
  NameIndex_free(&seen);
  MetricColumns_labelUserMetrics(mc);
}

void MetricColumns_free(MetricColumns *mc) {
  free(mc->col);
  memset(mc, 0, sizeof *mc);
}

double MetricColumns_value(const Record *r, const MetricColumn *c) {
  const Metric *m = Record_metric(r, c->name);
  return m ? m->value : NAN;
}

void MetricColumns_index(const MetricColumns *mc, NameIndex *ix) {
  NameIndex_init(ix);
  for (int i = 0; i < mc->n; i++) NameIndex_add(ix, mc->col[i].name, i);
}

void MetricColumns_rowValues(const MetricColumns *mc, const NameIndex *ix, const Record *r,
                             double *values, bool *held) {
  for (int i = 0; i < mc->n; i++) {
    values[i] = NAN;
    if (held) held[i] = false;
  }
  for (int k = r->nmetrics - 1; k >= 0; k--) { /* backwards: the first of a repeated name wins */
    int c = NameIndex_find(ix, r->metrics[k].name);
    if (c < 0) continue;
    values[c] = r->metrics[k].value;
    if (held) held[c] = true;
  }
}
