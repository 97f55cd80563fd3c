/* Which tuned entry a run takes: the user's own table and the tables shipped for this GPU's
 * chip, the nearest shape whose knobs the variant accepts there; and what the records say. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/tune/tune_table.h"
#include "bench/tune/tune_table_io.h"
#include "bench/tune/tune_transfer.h"
#include "common/datadir.h"
#include "common/text.h"
#include "common/util.h"
#include "kernels/jit.h"

bool TunedTable_noteIsTuned(const char *note) { return Util_startsWith(note, TUNED_NOTE_PREFIX); }

double TunedTable_distance(const Shape *a, const Shape *b) {
  double bh = (double)a->B * a->H / ((double)b->B * b->H);
  /* Keys per query and query heads per KV head weigh like the query length; the dtype like
   * causal. */
  double skv = ((double)Shape_skv(a) / a->S) / ((double)Shape_skv(b) / b->S);
  double group = ((double)a->H / Shape_hkv(a)) / ((double)b->H / Shape_hkv(b));
  return fabs(log2(bh)) + fabs(log2((double)a->S / b->S)) + 2 * fabs(log2((double)a->D / b->D)) +
         fabs(log2(skv)) + fabs(log2(group)) + (a->causal != b->causal ? 0.5 : 0.0) +
         (a->dtype != b->dtype ? 0.5 : 0.0);
}

bool TunedTable_shippedDir(char *dir, size_t size) {
  const char *env = getenv(TUNED_SHIPPED_ENV);
  if (env && *env) {
    return Util_strlcpy(dir, env, size) < size; /* a cut name is another folder: none */
  }
  return DataDir_find(DATA_TUNED, dir, size);
}

/* A shipped table's file: a *.json that is no hidden file. */
static bool TunedTable_isTableName(const char *name) {
  size_t len = strlen(name);
  return len > 5 && name[0] != '.' && strcmp(name + len - 5, ".json") == 0;
}

/* Whether v takes these knobs at shape s (the registry may have narrowed since the tune, and
 * a neighbour's knobs may not fit this shape). err says why not. */
static bool TunedTable_fits(const Variant *v, const char *knobs, const Shape *s, KnobValues *kv,
                            char *err, size_t errsize) {
  Registry_defaults(v, kv);
  if (!Registry_applyKnobs(v, knobs, kv, false, err, errsize)) return false;
  return Registry_refusal(v, s, kv, NULL, err, errsize) == NULL; /* the reason is in err */
}

/* The nearest candidates so far, nearest first: the transfer rule chooses among them once every
 * table is read. */
typedef struct TunedPick {
  const Variant *v;
  Shape shape;
  bool cold_l2, graph;
  int n, cap;    /* candidates kept, at most cap (TRANSFER_GUARD_K for the rule, more for a pick) */
  TunedEntry cand[TUNED_NEIGHBOURS_MAX];
  int sms;       /* the device's SMs (the transfer rules count waves and fill) */
  int cc;        /* x10 */
  char device[sizeof ((TunedEntry *)0)->device]; /* the device's name */
  char why[400]; /* why an entry at this very shape did not count */
} TunedPick;

/* Whether a ranks before b at equal conditions and distance: the kernel's current source before
 * an older one's, then this device's entry before another device's of its chip (an H100's and an
 * H200's at one shape), else the earlier (the user's table is read first). */
static bool TunedTable_before(const TunedPick *p, bool stale, const char *device, const TunedEntry *b) {
  if (stale != b->stale) return !stale;
  return strcmp(device, p->device) == 0 && strcmp(b->device, p->device) != 0;
}

/* Keeps c among the nearest when its knobs fit. An entry tuned under the conditions asked for
 * (cold L2, graph replay) beats any tuned under others, however near; of those, the one with
 * fewer conditions unlike the run's, then the nearest shape, then TunedTable_before. */
static void TunedTable_consider(TunedPick *p, const TunedEntry *c, const char *table, bool shipped,
                                bool stale) {
  if (strcmp(c->variant, p->v->name) != 0) return;
  /* A run's pick chose among neighbours' knobs at its own problem: no neighbour of another. */
  if (c->picked_of > 0 && !Shape_equal(&c->shape, &p->shape)) return;
  int pd = (c->cold_l2 != p->cold_l2) + (c->graph != p->graph);
  /* 0 only at this very problem: another with the same features is a transfer, not a tune. */
  double dist = Shape_equal(&c->shape, &p->shape)
                    ? 0
                    : fmax(Transfer_distance(TRANSFER_RULE_DEFAULT, &c->shape, &p->shape, p->sms), TUNED_SAME_FEATURES);
  int at = p->n;
  while (at > 0 && (pd < p->cand[at - 1].protocol_distance ||
                    (pd == p->cand[at - 1].protocol_distance &&
                     (dist < p->cand[at - 1].distance ||
                      (dist == p->cand[at - 1].distance && TunedTable_before(p, stale, c->device, &p->cand[at - 1]))))))
    at--;
  if (at >= p->cap) return;
  KnobValues kv;
  char err[256];
  if (!TunedTable_fits(p->v, c->knobs, &p->shape, &kv, err, sizeof err)) {
    if (dist == 0 && pd == 0) snprintf(p->why, sizeof p->why, "the tuned knobs of %s are no longer valid: %s", p->v->name, err);
    return;
  }
  if (p->n < p->cap) p->n++;
  memmove(&p->cand[at + 1], &p->cand[at], sizeof *p->cand * (size_t)(p->n - 1 - at));
  TunedEntry *e = &p->cand[at];
  *e = *c;
  e->distance = dist;
  e->protocol_distance = pd;
  e->shipped = shipped;
  e->stale = stale;
  e->passed_over[0] = '\0';
  Util_strlcpy(e->table, table, sizeof e->table);
}

/* The transfer rule's choice among the candidates: the entry at this very problem, else (the
 * guarded rule) the nearest of those tuned under the nearest conditions whose tiles fit the
 * problem as well as they fit their own (a nearer one passed over is named), else the nearest. */
static const TunedEntry *TunedTable_choose(TunedPick *p) {
  TunedEntry *first = &p->cand[0];
  if (p->n == 0) return NULL;
  if (first->distance == 0 || TRANSFER_RULE_DEFAULT != TRANSFER_GUARDED) return first;
  DeviceProps dev;
  Transfer_device(&dev, p->cc, p->sms);
  for (int i = 0; i < p->n && p->cand[i].protocol_distance == first->protocol_distance; i++)
    if (Transfer_tilesFit(p->v, p->cand[i].knobs, &p->cand[i].shape, &p->shape, &dev)) {
      if (i > 0) Shape_format(&first->shape, p->cand[i].passed_over, sizeof p->cand[i].passed_over);
      return &p->cand[i];
    }
  return first;
}

/* The tables shipped for chip: any driver, and an older kernel source still counts (they are
 * the defaults, revised from measurements, as a declared default would be). A file that
 * cannot be read is said in why, and the others still count. */
static void TunedTable_shipped(TunedPick *p, const char *chip, const char *hash, char *why,
                               size_t whysize) {
  char dir[4096];
  if (!TunedTable_shippedDir(dir, sizeof dir)) return;
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!TunedTable_isTableName(e->d_name)) continue;
    char path[8192], note[400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    TunedEntry *all = NULL;
    int n = 0;
    int rc = TunedTable_read(path, &all, &n, NULL, note, sizeof note);
    if (rc < 0) snprintf(why, whysize, "a shipped table is unusable: %.300s", note);
    for (int i = 0; i < n; i++)
      if (strcmp(all[i].chip, chip) == 0)
        TunedTable_consider(p, &all[i], e->d_name, true, strcmp(all[i].source_hash, hash) != 0);
    free(all);
  }
  closedir(d);
}

/* Every candidate for v at s on d into *p (p->cap of them, nearest first): the user's own
 * tunes (this device, driver and kernel source), then the tables shipped for its chip. why gets
 * the words for "none"; -1 when the user's table cannot be read (why says why), else 0. */
static int TunedTable_gather(TunedPick *p, const DeviceInfo *d, const Variant *v, const Shape *s,
                             const RunOptions *o, char *why, size_t whysize) {
  char path[4096], hash[20], chip[16];
  if (!Jit_sourceHash(v, hash, sizeof hash)) {
    snprintf(why, whysize, "the source of %s cannot be read", v->name);
    return -1;
  }
  p->v = v;
  p->shape = *s;
  p->cold_l2 = o->cold_l2;
  p->graph = o->graph;
  p->sms = d->sm_count;
  p->cc = d->cc_major * 10 + d->cc_minor;
  Util_strlcpy(p->device, d->name, sizeof p->device);
  bool known = TunedTable_chipOf(d->name, chip, sizeof chip);
  snprintf(why, whysize, "nothing tuned%s on this %.95s (%s%.15s)", o->cold_l2 ? " with a cold L2" : "",
           d->name, known ? "chip " : "its chip is unknown, so no shipped table applies",
           known ? chip : "");
  bool named = TunedTable_path(path, sizeof path);
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  TunedEntry *all = NULL;
  int n = 0;
  char own_why[400] = "";
  int rc = named ? TunedTable_read(path, &all, &n, NULL, own_why, sizeof own_why) : -1;
  if (!named) snprintf(own_why, sizeof own_why, "%s is longer than %zu bytes: not read", TUNED_PATH_ENV, sizeof path - 1);
  for (int i = 0; i < n; i++) {
    const TunedEntry *t = &all[i];
    if (strcmp(t->device, d->name) != 0 || t->cc != p->cc || strcmp(t->variant, v->name) != 0) continue;
    bool here = Shape_equal(&t->shape, s) && t->cold_l2 == o->cold_l2 && t->graph == o->graph;
    if (strcmp(t->source_hash, hash) != 0) {
      if (here) snprintf(p->why, sizeof p->why, "tuned for an older %s (the source changed since)", v->source);
    } else if (t->driver != d->driver_version) {
      if (here) snprintf(p->why, sizeof p->why, "tuned under driver %d, this is %d", t->driver, d->driver_version);
    } else {
      TunedTable_consider(p, t, base, false, false);
    }
  }
  free(all);
  char shipped_why[400] = "";
  if (known) TunedTable_shipped(p, chip, hash, shipped_why, sizeof shipped_why);
  if (p->n > 0) return 0;
  if (rc < 0) { /* an unreadable table of the user's is what to fix first */
    Util_strlcpy(why, own_why, whysize);
    return -1;
  }
  if (p->why[0]) Util_strlcpy(why, p->why, whysize);
  else if (shipped_why[0]) Util_strlcpy(why, shipped_why, whysize);
  return 0;
}

int TunedTable_lookup(const DeviceInfo *d, const Variant *v, const Shape *s, const RunOptions *o,
                      TunedEntry *out, char *why, size_t whysize) {
  TunedPick *p = Util_xcalloc(1, sizeof *p);
  p->cap = TRANSFER_GUARD_K;
  int rc = TunedTable_gather(p, d, v, s, o, why, whysize);
  const TunedEntry *pick = TunedTable_choose(p);
  if (pick) *out = *pick;
  free(p);
  return pick ? 1 : rc;
}

int TunedTable_neighbours(const DeviceInfo *d, const Variant *v, const Shape *s, const RunOptions *o,
                          int k, TunedEntry *out) {
  TunedPick *p = Util_xcalloc(1, sizeof *p);
  char why[400];
  p->cap = TUNED_NEIGHBOURS_MAX;
  KnobValues kv[TUNED_NEIGHBOURS_MAX + 1]; /* out[j]'s, read once */
  int n = 0;
  if (TunedTable_gather(p, d, v, s, o, why, sizeof why) == 0)
    for (int i = 0; i < p->n && n < k; i++) {
      const TunedEntry *c = &p->cand[i];
      if (c->protocol_distance != p->cand[0].protocol_distance) break;
      char err[256];
      bool dup = false;
      TunedTable_fits(v, c->knobs, s, &kv[n], err, sizeof err); /* it fits: TunedTable_consider */
      for (int j = 0; j < n && !dup; j++) dup = KnobValues_equal(v, &kv[n], &kv[j]);
      if (!dup) out[n++] = *c;
    }
  free(p);
  return n;
}

bool TunedTable_exists(void) {
  char path[4096], dir[4096];
  if (TunedTable_path(path, sizeof path) && access(path, F_OK) == 0) return true;
  if (!TunedTable_shippedDir(dir, sizeof dir)) return false;
  DIR *d = opendir(dir);
  if (!d) return false;
  bool any = false;
  struct dirent *e;
  while (!any && (e = readdir(d))) any = TunedTable_isTableName(e->d_name);
  closedir(d);
  return any;
}

int TunedTable_checkShipped(const char *dir, int *stale, char *err, size_t errsize) {
  *stale = 0;
  DIR *d = opendir(dir);
  if (!d) {
    snprintf(err, errsize, "cannot open %s: %s", dir, strerror(errno));
    return -1;
  }
  int checked = 0;
  bool ok = true;
  struct dirent *de;
  while (ok && (de = readdir(d))) {
    if (!TunedTable_isTableName(de->d_name)) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    TunedEntry *all = NULL;
    int n = 0;
    int rc = TunedTable_read(path, &all, &n, NULL, err, errsize);
    if (rc == 0) snprintf(err, errsize, "%s vanished while it was read", path);
    ok = rc > 0;
    for (int i = 0; i < n && ok; i++) {
      const TunedEntry *t = &all[i];
      const Variant *v = Registry_find(t->variant);
      KnobValues kv;
      char why[256], hash[20];
      if (!t->chip[0]) {
        snprintf(err, errsize, "%s: entries[%d] (%s): no chip, and %s maps to none", path, i,
                 t->variant, t->device);
        ok = false;
      } else if (!v || !TunedTable_fits(v, t->knobs, &t->shape, &kv, why, sizeof why)) {
        snprintf(err, errsize, "%s: entries[%d] (%s): %s", path, i, t->variant, !v ? "no such variant" : why);
        ok = false;
      } else {
        checked++;
        if (!Jit_sourceHash(v, hash, sizeof hash) || strcmp(hash, t->source_hash) != 0) (*stale)++;
      }
    }
    free(all);
  }
  closedir(d);
  return ok ? checked : -1;
}

/* "a cold L2 and graph replay": the conditions of an entry or a run, in words. */
static void TunedTable_conditions(bool cold_l2, bool graph, char *buf, size_t size) {
  snprintf(buf, size, "%s and %s", cold_l2 ? "a cold L2" : "a warm L2", graph ? "graph replay" : "stream launches");
}

/* Where t's knobs come from and how sure they are: tuned at this shape, or taken from the
 * nearest tuned shape (named, with its distance), and the conditions it was tuned under when
 * they are not the run's (nothing was tuned under those). */
static void TunedTable_note(const TunedEntry *t, const RunOptions *o, char *note, size_t size) {
  char shape[64], where[192];
  Shape_format(&t->shape, shape, sizeof shape);
  if (t->distance == 0 && t->picked_of > 0)
    snprintf(where, sizeof where, "picked at this shape (the fastest of %d tuned neighbours' knobs)", t->picked_of);
  else if (t->distance == 0) snprintf(where, sizeof where, "tuned at this shape");
  else if (t->distance <= TUNED_SAME_FEATURES)
    snprintf(where, sizeof where, "nearest tuned shape %s (the same features)", shape);
  else if (t->passed_over[0])
    snprintf(where, sizeof where, "tuned shape %s (distance %.3g; the nearer %.40s's tiles fit this one worse)",
             shape, t->distance, t->passed_over);
  else snprintf(where, sizeof where, "nearest tuned shape %s (distance %.3g)", shape, t->distance);
  int len = snprintf(note, size, TUNED_NOTE_PREFIX "%.63s%s: %s, p50 %.4g us%s, %.10s%s", t->table,
                     t->shipped ? " (shipped)" : "", where, t->p50, t->distance == 0 ? "" : " there",
                     t->created, t->stale ? ", older kernel source" : "");
  if (t->protocol_distance > 0 && len > 0 && (size_t)len < size) {
    char tuned[64], asked[64];
    TunedTable_conditions(t->cold_l2, t->graph, tuned, sizeof tuned);
    TunedTable_conditions(o->cold_l2, o->graph, asked, sizeof asked);
    snprintf(note + len, size - (size_t)len, "; tuned with %s: nothing was tuned with %s", tuned, asked);
  }
}

bool TunedTable_choosesKnobs(const PlanEntry *e, bool tables) {
  char why[256];
  return tables || Registry_refusal(e->variant, &e->shape, &e->knobs, NULL, why, sizeof why) != NULL;
}

/* Where the knobs e would run (the defaults, with those given) refuse its problem on d: the
 * first declared preset that runs it, else the first setting that does, with a note saying so.
 * False (e unchanged) when its knobs run it or nothing does. */
static bool TunedTable_fitting(PlanEntry *e, const DeviceInfo *d, char *note, size_t size) {
  DeviceProps dev;
  char why[256], knobs[RECORD_KNOBS_MAX];
  Transfer_device(&dev, d->cc_major * 10 + d->cc_minor, d->sm_count);
  if (!Registry_refusal(e->variant, &e->shape, &e->knobs, &dev, why, sizeof why)) return false;
  int got = Registry_fittingKnobs(e->variant, &e->shape, e->knobs_given, &dev, &e->knobs);
  if (got <= 0) return false;
  Registry_formatKnobs(e->variant, &e->knobs, knobs, sizeof knobs);
  snprintf(note, size, "%s %.150s: the defaults refuse this problem (%.160s)",
           got == 1 ? "declared preset" : "the first setting that runs it,", knobs, why);
  return true;
}

void TunedTable_resolve(PlanEntry *entries, int n, const DeviceInfo *d, char (*notes)[RECORD_AUTO_NOTE_MAX]) {
  for (int i = 0; i < n; i++) {
    PlanEntry *e = &entries[i];
    notes[i][0] = '\0';
    if (e->knobs_auto == PLAN_AUTO_NONE || e->variant->nknobs == 0) continue;
    TunedEntry t;
    char why[RECORD_AUTO_NOTE_MAX - 16], err[256];
    KnobValues kv;
    int rc = TunedTable_lookup(d, e->variant, &e->shape, &e->opts, &t, why, sizeof why);
    if (rc == 1 && TunedTable_fits(e->variant, t.knobs, &e->shape, &kv, err, sizeof err)) {
      for (int k = 0; k < e->variant->nknobs; k++)
        if (!(e->knobs_given & (1u << k))) e->knobs.idx[k] = kv.idx[k];
      TunedTable_note(&t, &e->opts, notes[i], sizeof notes[i]);
    } else if (TunedTable_fitting(e, d, notes[i], sizeof notes[i])) {
      /* nothing tuned fits, and the defaults refuse this problem: a setting that runs it */
    } else if (e->knobs_auto == PLAN_AUTO_IF_TUNED) {
      continue; /* nothing tuned: the defaults, as without a tuned table, unremarked */
    } else {
      snprintf(notes[i], sizeof notes[i], "defaults: %s", why);
    }
    /* Notes quote the device's name, which the worker reports: one printable line whatever it holds. */
    Text_sanitize(notes[i], sizeof notes[i], notes[i]);
  }
}

void TunedTable_markRecord(Record *r, const PlanEntry *entries, char (*notes)[RECORD_AUTO_NOTE_MAX], bool *used,
                           int n) {
  for (int i = 0; i < n; i++) {
    if (used[i] || !notes[i][0] || strcmp(entries[i].variant->name, r->variant) != 0 ||
        !Shape_equal(&entries[i].shape, &r->shape))
      continue;
    KnobValues kv;
    char err[256];
    Registry_defaults(entries[i].variant, &kv);
    if (!Registry_applyKnobs(entries[i].variant, r->knobs, &kv, false, err, sizeof err) ||
        !KnobValues_equal(entries[i].variant, &kv, &entries[i].knobs))
      continue;
    used[i] = true;
    Util_strlcpy(r->knobs_auto, notes[i], sizeof r->knobs_auto);
    return;
  }
}
