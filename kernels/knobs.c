/* Knob settings and sweeps as values and text (see knobs.h): the only knob parser
 * (KnobText_next) and the only knob formatter (KnobText_append) in benchtop. */
#include "kernels/knobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* ---- text ------------------------------------------------------------------------------- */

int KnobText_next(const char **cursor, KnobToken *tok) {
  const char *p = *cursor;
  if (!p || !*p) return 0;
  const char *end = strchr(p, ',');
  size_t n = end ? (size_t)(end - p) : strlen(p);
  const char *eq = memchr(p, '=', n);
  if (eq) { /* a knob's name and its first value */
    tok->name = p;
    tok->name_len = (size_t)(eq - p);
    tok->value = eq + 1;
    tok->value_len = n - tok->name_len - 1;
    tok->first = true;
  } else { /* another value of the sweep before it */
    if (!tok->name) return -1;
    tok->value = p;
    tok->value_len = n;
    tok->first = false;
  }
  if (tok->name_len == 0 || tok->value_len == 0) return -1;
  *cursor = end ? end + 1 : p + n;
  return 1;
}

static bool KnobText_is(const KnobToken *t, const char *name) {
  return strlen(name) == t->name_len && memcmp(t->name, name, t->name_len) == 0;
}

bool KnobText_value(const char *text, const char *name, char *out, size_t size) {
  KnobToken t = {0};
  for (const char *p = text; KnobText_next(&p, &t) > 0;)
    if (t.first && KnobText_is(&t, name)) {
      if (t.value_len >= size) return false;
      memcpy(out, t.value, t.value_len);
      out[t.value_len] = '\0';
      return true;
    }
  return false;
}

/* A value as a number, when all of it is one. */
static bool KnobText_number(const char *s, size_t n, long long *x) {
  char buf[32], *end;
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = '\0';
  errno = 0;
  *x = strtoll(buf, &end, 10);
  return !*end && !errno;
}

/* Values compared as numbers when both are, else as text. */
static int KnobText_compareValues(const KnobToken *a, const KnobToken *b) {
  long long x, y;
  if (KnobText_number(a->value, a->value_len, &x) && KnobText_number(b->value, b->value_len, &y))
    return (x > y) - (x < y);
  size_t n = a->value_len < b->value_len ? a->value_len : b->value_len;
  int c = memcmp(a->value, b->value, n);
  return c ? c : (a->value_len > b->value_len) - (a->value_len < b->value_len);
}

bool KnobText_sameValue(const char *a, const char *b) {
  KnobToken ta = {.value = a, .value_len = strlen(a)}, tb = {.value = b, .value_len = strlen(b)};
  return KnobText_compareValues(&ta, &tb) == 0;
}

static bool KnobText_sameName(const KnobToken *a, const KnobToken *b) {
  return a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0;
}

/* The knob a's token ta starts (its first value) has the same values, in order, in b. */
static bool KnobText_sameKnob(const char *after_a, const KnobToken *ta, const char *b) {
  KnobToken tb = {0};
  const char *q = b;
  int rb;
  while ((rb = KnobText_next(&q, &tb)) > 0 && !(tb.first && KnobText_sameName(&tb, ta))) {}
  if (rb <= 0 || KnobText_compareValues(ta, &tb) != 0) return false;
  KnobToken na = *ta, nb = tb;
  const char *p = after_a;
  for (;;) { /* the further values of the sweep, pairwise */
    int ra = KnobText_next(&p, &na);
    rb = KnobText_next(&q, &nb);
    bool more_a = ra > 0 && !na.first, more_b = rb > 0 && !nb.first;
    if (more_a != more_b) return false;
    if (!more_a) return true;
    if (KnobText_compareValues(&na, &nb) != 0) return false;
  }
}

static int KnobText_knobCount(const char *s) {
  KnobToken t = {0};
  int n = 0;
  for (const char *p = s; KnobText_next(&p, &t) > 0;) n += t.first;
  return n;
}

static bool KnobText_wellFormed(const char *s) {
  KnobToken t = {0};
  int rc;
  for (const char *p = s; (rc = KnobText_next(&p, &t)) > 0;) {}
  return rc == 0;
}

bool KnobText_same(const char *a, const char *b) {
  a = a ? a : "";
  b = b ? b : "";
  if (strcmp(a, b) == 0) return true;
  if (!KnobText_wellFormed(a) || !KnobText_wellFormed(b)) return false;
  /* The common case, the knobs in the same order: one pass. */
  KnobToken ta = {0}, tb = {0};
  const char *p = a, *q = b;
  int ra, rb;
  while ((ra = KnobText_next(&p, &ta)) > 0 && (rb = KnobText_next(&q, &tb)) > 0 &&
         ta.first == tb.first && KnobText_sameName(&ta, &tb))
    if (KnobText_compareValues(&ta, &tb) != 0) return false;
  if (ra == 0 && KnobText_next(&q, &tb) == 0) return true;
  /* Another order: each knob of a with the same values in b, and no knob more in b. */
  if (KnobText_knobCount(a) != KnobText_knobCount(b)) return false;
  memset(&ta, 0, sizeof ta);
  for (p = a; KnobText_next(&p, &ta) > 0;)
    if (ta.first && !KnobText_sameKnob(p, &ta, b)) return false;
  return true;
}

int KnobText_compare(const char *a, const char *b) {
  KnobToken ta = {0}, tb = {0};
  const char *p = a ? a : "", *q = b ? b : "";
  for (;;) {
    int ra = KnobText_next(&p, &ta), rb = KnobText_next(&q, &tb);
    if (ra <= 0 || rb <= 0) return ra > 0 ? 1 : rb > 0 ? -1 : 0;
    size_t n = ta.name_len < tb.name_len ? ta.name_len : tb.name_len;
    int c = memcmp(ta.name, tb.name, n);
    if (!c) c = (ta.name_len > tb.name_len) - (ta.name_len < tb.name_len);
    if (!c) c = KnobText_compareValues(&ta, &tb);
    if (c) return c;
  }
}

size_t KnobText_nameLen(const char *spec) {
  const char *eq = strchr(spec, '=');
  return eq ? (size_t)(eq - spec) : strlen(spec);
}

void KnobText_append(char *buf, size_t size, size_t *used, const char *name, size_t name_len,
                     const char *value, size_t value_len) {
  int w = snprintf(buf + (*used < size ? *used : size), *used < size ? size - *used : 0, "%s%.*s=%.*s",
                   *used ? "," : "", (int)name_len, name, (int)value_len, value);
  *used += w > 0 ? (size_t)w : 0;
}

void KnobText_appendValue(char *buf, size_t size, size_t *used, const char *value, size_t value_len) {
  int w = snprintf(buf + (*used < size ? *used : size), *used < size ? size - *used : 0, ",%.*s",
                   (int)value_len, value);
  *used += w > 0 ? (size_t)w : 0;
}

char *KnobText_withValue(const char *spec, const char *value, size_t value_len) {
  size_t used = strlen(spec), size = used + value_len + 2;
  char *out = Util_xmalloc(size);
  memcpy(out, spec, used + 1);
  KnobText_appendValue(out, size, &used, value, value_len);
  return out;
}

/* ---- typed ------------------------------------------------------------------------------ */

bool KnobValues_equal(const Variant *v, const KnobValues *a, const KnobValues *b) {
  for (int k = 0; k < v->nknobs && k < KNOB_MAX; k++)
    if (a->idx[k] != b->idx[k]) return false;
  return true;
}

void Registry_defaults(const Variant *v, KnobValues *kv) {
  memset(kv, 0, sizeof *kv);
  for (int k = 0; v && k < v->nknobs && k < KNOB_MAX; k++) kv->idx[k] = v->knobs[k].def;
}

int Registry_knobValueCount(const KnobDesc *k) { return k->nvalues; }

static int Registry_knobIndexN(const Variant *v, const char *name, size_t len) {
  for (int i = 0; i < v->nknobs; i++)
    if (strlen(v->knobs[i].name) == len && strncmp(v->knobs[i].name, name, len) == 0) return i;
  return -1;
}

int Registry_knobIndex(const Variant *v, const char *name) {
  return Registry_knobIndexN(v, name, strlen(name));
}

long long Registry_knobNumber(const Variant *v, const KnobValues *kv, int k) {
  const KnobDesc *kd = &v->knobs[k];
  int i = kv->idx[k];
  return i >= 0 && i < kd->nvalues ? kd->numbers[i] : kd->numbers[kd->def];
}

static int Registry_knobValueIndexN(const KnobDesc *k, const char *text, size_t len) {
  for (int j = 0; j < k->nvalues; j++)
    if (strlen(k->values[j]) == len && memcmp(k->values[j], text, len) == 0) return j;
  long long x;
  if (!KnobText_number(text, len, &x)) return -1;
  for (int j = 0; j < k->nvalues; j++)
    if (!k->defines[j] && k->numbers[j] == x) return j;
  return -1;
}

int Registry_knobValueIndex(const KnobDesc *k, const char *text) {
  return Registry_knobValueIndexN(k, text, strlen(text));
}

void Registry_formatAllowed(const KnobDesc *k, char *buf, size_t size) {
  if (k->is_range) {
    if (k->step != 1) snprintf(buf, size, "%lld..%lld step %lld", k->lo, k->hi, k->step);
    else snprintf(buf, size, "%lld..%lld", k->lo, k->hi);
    return;
  }
  buf[0] = '\0';
  for (int j = 0; j < k->nvalues; j++) {
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "%s%s", j ? "|" : "", k->values[j]);
  }
}

/* The knob a token names and the index of its value, or false with one line in err. *k is -1
 * for a knob the variant does not have when that is allowed. */
static bool Knobs_resolve(const Variant *v, const KnobToken *t, bool ignore_unknown, int *k,
                          int *value, char *err, size_t errsize) {
  *k = Registry_knobIndexN(v, t->name, t->name_len);
  int nl = (int)(t->name_len > 60 ? 60 : t->name_len), vl = (int)(t->value_len > 60 ? 60 : t->value_len);
  if (*k < 0) {
    if (ignore_unknown) return true;
    snprintf(err, errsize, "variant %s has no knob '%.*s'%s", v->name, nl, t->name,
             v->nknobs ? "" : " (it has no knobs)");
    return false;
  }
  const KnobDesc *kd = &v->knobs[*k];
  *value = Registry_knobValueIndexN(kd, t->value, t->value_len);
  if (*value < 0) {
    char allowed[256];
    Registry_formatAllowed(kd, allowed, sizeof allowed);
    snprintf(err, errsize, "knob %s of %s cannot be '%.*s' (allowed: %s)", kd->name, v->name, vl,
             t->value, allowed);
    return false;
  }
  return true;
}

/* One line for knob text that does not parse, naming the piece at p. */
static void Knobs_malformed(const char *p, const char *what, char *err, size_t errsize) {
  size_t n = strcspn(p, ",");
  if (n == 0) snprintf(err, errsize, "bad knob setting: an empty item between commas; expected %s", what);
  else snprintf(err, errsize, "bad knob '%.*s': expected %s", (int)(n > 60 ? 60 : n), p, what);
}

bool Registry_applyKnobs(const Variant *v, const char *spec, KnobValues *kv, bool ignore_unknown,
                         char *err, size_t errsize) {
  KnobToken t = {0};
  const char *p = spec ? spec : "", *at = p;
  int rc;
  for (; (rc = KnobText_next(&p, &t)) > 0; at = p) {
    int k, value;
    if (!t.first) { /* a setting holds one value per knob */
      Knobs_malformed(at, "name=value", err, errsize);
      return false;
    }
    if (!Knobs_resolve(v, &t, ignore_unknown, &k, &value, err, errsize)) return false;
    if (k >= 0) kv->idx[k] = value;
  }
  if (rc < 0) Knobs_malformed(at, "name=value", err, errsize);
  return rc == 0;
}

void Registry_formatKnobs(const Variant *v, const KnobValues *kv, char *buf, size_t size) {
  size_t used = 0;
  if (size) buf[0] = '\0';
  for (int i = 0; i < v->nknobs; i++) {
    int j = kv->idx[i] >= 0 && kv->idx[i] < v->knobs[i].nvalues ? kv->idx[i] : v->knobs[i].def;
    const char *name = v->knobs[i].name, *value = v->knobs[i].values[j];
    KnobText_append(buf, size, &used, name, strlen(name), value, strlen(value));
  }
}

void KnobSweep_init(KnobSweep *sw) {
  sw->nknobs = 0;
  memset(sw->nvalues, 0, sizeof sw->nvalues);
}

bool KnobSweep_add(const Variant *v, const char *text, KnobSweep *sw, bool ignore_unknown,
                   char *err, size_t errsize) {
  KnobToken t = {0};
  const char *p = text ? text : "", *at = p;
  int rc, k = -1;
  for (; (rc = KnobText_next(&p, &t)) > 0; at = p) {
    int value, knob;
    if (!Knobs_resolve(v, &t, ignore_unknown, &knob, &value, err, errsize)) return false;
    if (t.first && knob >= 0 && sw->nvalues[knob] > 0) {
      snprintf(err, errsize, "%s: knob %s is set twice (give its values once: %s=v1,v2)", v->name,
               v->knobs[knob].name, v->knobs[knob].name);
      return false;
    }
    if (t.first && knob >= 0) sw->order[sw->nknobs++] = knob;
    k = knob;
    if (k < 0) continue;
    bool dup = false;
    for (int j = 0; j < sw->nvalues[k]; j++) dup |= sw->idx[k][j] == value;
    if (!dup) sw->idx[k][sw->nvalues[k]++] = value; /* at most nvalues distinct: in bounds */
  }
  if (rc < 0) Knobs_malformed(at, "name=value or name=v1,v2", err, errsize);
  return rc == 0;
}

char *KnobSweep_format(const Variant *v, const KnobSweep *sw, int k) {
  const char *name = v->knobs[k].name;
  /* Sized for every value: a sweep is never cut (KNOB_MAX_VALUES values of any length). */
  size_t size = strlen(name) + 2, used = 0;
  for (int j = 0; j < sw->nvalues[k]; j++) size += strlen(v->knobs[k].values[sw->idx[k][j]]) + 1;
  char *out = Util_xmalloc(size);
  out[0] = '\0';
  for (int j = 0; j < sw->nvalues[k]; j++) {
    const char *value = v->knobs[k].values[sw->idx[k][j]];
    if (j == 0) KnobText_append(out, size, &used, name, strlen(name), value, strlen(value));
    else KnobText_appendValue(out, size, &used, value, strlen(value));
  }
  return out;
}

double KnobSweep_count(const Variant *v, const KnobSweep *sw) {
  (void)v;
  double n = 1;
  for (int j = 0; j < sw->nknobs; j++) n *= sw->nvalues[sw->order[j]];
  return n;
}

void KnobSweep_at(const Variant *v, const KnobSweep *sw, long long i, KnobValues *kv) {
  Registry_defaults(v, kv);
  for (int j = 0; j < sw->nknobs; j++) {
    int k = sw->order[j];
    kv->idx[k] = sw->idx[k][i % sw->nvalues[k]];
    i /= sw->nvalues[k];
  }
}

/* Keeps kv's values of the knobs in fixed (bit k) in out. */
static void Knobs_keepFixed(const Variant *v, unsigned fixed, const KnobValues *kv, KnobValues *out) {
  for (int k = 0; k < v->nknobs; k++)
    if (fixed & (1u << k)) out->idx[k] = kv->idx[k];
}

int Registry_fittingKnobs(const Variant *v, const Shape *s, unsigned fixed, const DeviceProps *dev,
                          KnobValues *kv) {
  char why[256];
  if (!Registry_refusal(v, s, kv, dev, why, sizeof why)) return 0;
  for (int p = 0; p < v->npresets && p < VARIANT_MAX_PRESETS && v->presets[p]; p++) {
    KnobValues t;
    Registry_defaults(v, &t);
    if (!Registry_applyKnobs(v, v->presets[p], &t, true, why, sizeof why)) continue;
    Knobs_keepFixed(v, fixed, kv, &t);
    if (!Registry_refusal(v, s, &t, dev, why, sizeof why)) {
      *kv = t;
      return 1;
    }
  }
  /* Every setting of the free knobs, the first knob fastest, up to KNOB_FIT_SEARCH_MAX. */
  KnobValues t = *kv;
  for (int k = 0; k < v->nknobs; k++)
    if (!(fixed & (1u << k))) t.idx[k] = 0;
  for (long tried = 0; tried < KNOB_FIT_SEARCH_MAX; tried++) {
    if (!Registry_refusal(v, s, &t, dev, why, sizeof why)) {
      *kv = t;
      return 2;
    }
    int k = 0;
    for (; k < v->nknobs; k++) {
      if (fixed & (1u << k)) continue;
      if (++t.idx[k] < v->knobs[k].nvalues) break;
      t.idx[k] = 0;
    }
    if (k == v->nknobs) break; /* every setting tried */
  }
  return -1;
}
