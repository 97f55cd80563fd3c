/* Transfer rules and their leave-one-out replay (bench/tune/tune_transfer.h). */
#include "bench/tune/tune_transfer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tune/tune_table.h"
#include "bench/tune/tune_dissent.h"
#include "bench/tune/tune_wavefit.h"
#include "common/util.h"
#include "kernels/knobs.h"
#include "kernels/registry.h"

static const char *const Transfer_names[TRANSFER_NRULES] = {"nearest", "feature", "best-of-k", "guarded", "pick", "pick+fit", "pick+dissent"};

const char *TransferRule_name(TransferRule r) {
  return r >= 0 && r < TRANSFER_NRULES ? Transfer_names[r] : "?";
}

bool TransferRule_parse(const char *name, TransferRule *out) {
  for (int r = 0; r < TRANSFER_NRULES; r++)
    if (strcmp(name, Transfer_names[r]) == 0) {
      *out = (TransferRule)r;
      return true;
    }
  return false;
}

/* log2 of the tiles (128-row query blocks of every head) per wave of SMs, within [-4, 5]: past
 * ~30 waves the tail of the last wave no longer tells problems apart. */
static double Transfer_waves(const Shape *s, int sms) {
  double tiles = (double)s->B * s->H * ((s->S + 127) / 128);
  double w = log2(tiles / (sms > 0 ? sms : TRANSFER_SMS_DEFAULT));
  return w < -4 ? -4 : w > 5 ? 5 : w;
}

double Transfer_distance(TransferRule r, const Shape *a, const Shape *b, int sms) {
  if (r != TRANSFER_FEATURE) return TunedTable_distance(a, b);
  double skv = ((double)Shape_skv(a) / a->S) / ((double)Shape_skv(b) / b->S);
  double group = ((double)a->H / Shape_hkv(a)) / ((double)b->H / Shape_hkv(b));
  return fabs(Transfer_waves(a, sms) - Transfer_waves(b, sms)) + fabs(log2((double)a->S / b->S)) +
         2 * fabs(log2((double)a->D / b->D)) + fabs(log2(skv)) + fabs(log2(group)) +
         (a->causal != b->causal ? 0.5 : 0.0) + (a->dtype != b->dtype ? 0.5 : 0.0) +
         /* problems of equal features: the nearer shape first */
         1e-6 * TunedTable_distance(a, b);
}

void Transfer_device(DeviceProps *dev, int cc, int sms) {
  Registry_anyDevice(dev);
  dev->cc = cc > 0 ? cc : 0;
  dev->sm_count = sms > 0 ? sms : TRANSFER_SMS_DEFAULT;
}

/* Padding of s's queries by blocks of block_m rows (1: none), and the share of the first wave of
 * SMs that the largest grid of the launch fills (at most 1). False when the launch cannot be
 * planned. */
static bool Transfer_tiles(const Variant *v, const KnobValues *kv, const Shape *s, const DeviceProps *dev,
                           double *pad, double *fill) {
  LaunchPlan plan;
  char err[256];
  if (!Registry_plan(v, s, kv, dev, &plan, err, sizeof err)) return false;
  long long blocks;
  WaveFit_largest(&plan, &blocks);
  *fill = fmin(1.0, (double)blocks / dev->sm_count);
  int k = Registry_knobIndex(v, "block_m");
  long long bm = k >= 0 ? Registry_knobNumber(v, kv, k) : 0;
  *pad = bm > 0 ? (double)((s->S + bm - 1) / bm * bm) / s->S : 1.0;
  return blocks > 0;
}

bool Transfer_tilesFit(const Variant *v, const char *knobs, const Shape *from, const Shape *to,
                       const DeviceProps *dev) {
  KnobValues kv;
  char err[256];
  double pad_from, fill_from, pad_to, fill_to;
  Registry_defaults(v, &kv);
  if (!Registry_applyKnobs(v, knobs, &kv, false, err, sizeof err) ||
      !Transfer_tiles(v, &kv, from, dev, &pad_from, &fill_from) || !Transfer_tiles(v, &kv, to, dev, &pad_to, &fill_to))
    return true;
  return pad_to <= pad_from * 1.05 && fill_to >= fill_from * 0.75;
}

/* One grid point of one variant: every setting measured there, with its mean recorded p50. */
typedef struct TPoint {
  Shape shape;
  const char *winner;     /* the search's winner (what the table holds) */
  int n;
  const char **knobs;     /* per setting */
  double *sum;
  int *count;
  bool *bad;              /* failed verification or errored there */
  double best;
} TPoint;

enum { SCORE_OK, SCORE_UNMEASURED, SCORE_FAILED };

static int TPoint_score(const TPoint *p, const char *knobs, double *score) {
  for (int i = 0; i < p->n; i++)
    if (KnobText_same(p->knobs[i], knobs)) {
      if (p->bad[i] || p->count[i] == 0) return SCORE_FAILED;
      *score = p->sum[i] / p->count[i];
      return SCORE_OK;
    }
  return SCORE_UNMEASURED;
}

static void TPoint_add(TPoint *p, const Record *r) {
  int i = 0;
  while (i < p->n && !KnobText_same(p->knobs[i], r->knobs)) i++;
  if (i == p->n) {
    p->knobs = Util_xrealloc(p->knobs, sizeof *p->knobs * (size_t)(p->n + 1));
    p->sum = Util_xrealloc(p->sum, sizeof *p->sum * (size_t)(p->n + 1));
    p->count = Util_xrealloc(p->count, sizeof *p->count * (size_t)(p->n + 1));
    p->bad = Util_xrealloc(p->bad, sizeof *p->bad * (size_t)(p->n + 1));
    p->knobs[i] = r->knobs;
    p->sum[i] = 0;
    p->count[i] = 0;
    p->bad[i] = false;
    p->n++;
  }
  if (r->status == REC_PASS && r->timing.p50 > 0) {
    p->sum[i] += r->timing.p50;
    p->count[i]++;
  } else {
    p->bad[i] = true;
  }
}

/* The variant's grid points: its complete searches with a winner, and their records. */
static int Transfer_points(const Session *s, const char *variant, TPoint **out) {
  TPoint *pts = Util_xcalloc((size_t)s->ntune + 1, sizeof *pts);
  int n = 0;
  for (int i = 0; i < s->ntune; i++) {
    const TuneSummary *t = &s->tune[i];
    if (strcmp(t->variant, variant) != 0 || !t->complete || t->winner < 0) continue;
    TPoint *p = &pts[n++];
    p->shape = t->shape;
    p->winner = t->winner_knobs;
    for (int k = 0; k < s->nrecords; k++) {
      const Record *r = &s->records[k];
      if (r->status != REC_CANCELLED && strcmp(r->variant, variant) == 0 && Shape_equal(&r->shape, &t->shape))
        TPoint_add(p, r);
    }
    p->best = INFINITY;
    for (int c = 0; c < p->n; c++)
      if (!p->bad[c] && p->count[c] > 0 && p->sum[c] / p->count[c] < p->best) p->best = p->sum[c] / p->count[c];
  }
  *out = pts;
  return n;
}

static void Transfer_freePoints(TPoint *pts, int n) {
  for (int i = 0; i < n; i++) {
    free(pts[i].knobs);
    free(pts[i].sum);
    free(pts[i].count);
    free(pts[i].bad);
  }
  free(pts);
}

/* What the replay shares. */
typedef struct TReplay {
  const Variant *v;
  TPoint *pts;
  int n, k, sms;
  DeviceProps dev;
  bool has_dev;
  char fit[RECORD_KNOBS_MAX]; /* PICK_FIT's refitted knobs when they are its pick */
} TReplay;

static bool Transfer_fits(const TReplay *x, const char *knobs, const Shape *at) {
  KnobValues kv;
  char err[256];
  Registry_defaults(x->v, &kv);
  return Registry_applyKnobs(x->v, knobs, &kv, false, err, sizeof err) &&
         Registry_refusal(x->v, at, &kv, x->has_dev ? &x->dev : NULL, err, sizeof err) == NULL;
}

/* PICK_DISSENT: the farther winners (order[kk..m), distinct, DISSENT_POOL with the nearest)
 * unlike all of the kk nearest in a knob they agree on, scored at held; where one beats
 * *best_score, *pick becomes its place in order and *knob its knob. True when one did. */
static bool Transfer_dissent(const TReplay *x, const TPoint *held, const int *order, const bool *dup, int m,
                             int kk, double *best_score, int *pick, int *knob) {
  KnobValues *kv = Util_xcalloc((size_t)m + 1, sizeof *kv);
  int *place = Util_xcalloc((size_t)m + 1, sizeof *place), nnear = 0, nfar = 0, out[DISSENT_MAX], dk[DISSENT_MAX];
  char err[256];
  for (int j = 0; j < m && nnear + nfar < DISSENT_POOL; j++) {
    KnobValues *at = &kv[nnear + nfar];
    Registry_defaults(x->v, at);
    if (dup[j] || !Registry_applyKnobs(x->v, x->pts[order[j]].winner, at, false, err, sizeof err)) continue;
    place[nnear + nfar] = j;
    if (j < kk) nnear++;
    else nfar++;
  }
  int n = Dissent_choose(x->v, kv, nnear, kv + nnear, nfar, DISSENT_MAX, out, dk);
  bool won = false;
  for (int c = 0; c < n; c++) {
    double score;
    int j = place[nnear + out[c]];
    if (TPoint_score(held, x->pts[order[j]].winner, &score) == SCORE_OK && score < *best_score) {
      *best_score = score;
      *pick = j;
      *knob = dk[c];
      won = true;
    }
  }
  free(kv);
  free(place);
  return won;
}

/* For each place j of order[0..m): whether an earlier place has the same winner (heap, m entries). */
static bool *Transfer_duplicates(const TReplay *x, const int *order, int m) {
  bool *dup = Util_xcalloc((size_t)m + 1, sizeof *dup);
  for (int j = 0; j < m; j++)
    for (int i = 0; i < j && !dup[j]; i++) dup[j] = KnobText_same(x->pts[order[i]].winner, x->pts[order[j]].winner);
  return dup;
}

/* Where a pick came from, into from: the points it chose among (order[0..kk), at dist), the
 * chosen one starred, and whether it was refitted from it, or is a farther winner unlike them. */
static void Transfer_from(const TReplay *x, const int *order, const double *dist, int kk, int pick, bool fitted,
                          int dissent_knob, char *from, size_t size) {
  size_t used = 0;
  from[0] = '\0';
  for (int j = 0; j < kk && used < size; j++) {
    char name[64];
    Shape_format(&x->pts[order[j]].shape, name, sizeof name);
    used += (size_t)snprintf(from + used, size - used, "%s%s%s (%.3g)", j ? ", " : "",
                             j == pick && kk > 1 ? "*" : "", name, dist[j]);
  }
  if (fitted && used < size) snprintf(from + used, size - used, ", refitted to fewer waves");
  else if (dissent_knob >= 0 && used < size) {
    char name[64];
    Shape_format(&x->pts[order[pick]].shape, name, sizeof name);
    snprintf(from + used, size - used, ", *%s (%.3g) unlike them in %s", name, dist[pick], x->v->knobs[dissent_knob].name);
  }
}

/* The rule's pick for the held-out point from the grid's points but skip (-1: none, all of
 * them count): its knobs, the point(s) they came from in `from`. NULL when no point's winner
 * fits there. */
static const char *Transfer_pick(TReplay *x, TransferRule rule, const TPoint *held, int skip, char *from,
                                 size_t size) {
  int *order = Util_xmalloc(sizeof *order * (size_t)(x->n + 1)), m = 0;
  double *dist = Util_xmalloc(sizeof *dist * (size_t)(x->n + 1));
  TransferRule metric = rule == TRANSFER_FEATURE ? TRANSFER_FEATURE : TRANSFER_NEAREST;
  for (int j = 0; j < x->n; j++) {
    if (j == skip || !Transfer_fits(x, x->pts[j].winner, &held->shape)) continue;
    double d = Transfer_distance(metric, &held->shape, &x->pts[j].shape, x->sms);
    int at = m++;
    while (at > 0 && dist[at - 1] > d) { /* stable: at equal distance the earlier point first */
      order[at] = order[at - 1];
      dist[at] = dist[at - 1];
      at--;
    }
    order[at] = j;
    dist[at] = d;
  }
  if (m == 0) {
    free(order);
    free(dist);
    return NULL;
  }
  int pick = 0, kk = rule == TRANSFER_BEST_OF_K ? (x->k < m ? x->k : m)
                    : rule == TRANSFER_GUARDED ? (TRANSFER_GUARD_K < m ? TRANSFER_GUARD_K : m) : 1;
  if (rule == TRANSFER_GUARDED) {
    DeviceProps dev;
    Transfer_device(&dev, x->has_dev ? x->dev.cc : 0, x->sms);
    while (pick < kk && !Transfer_tilesFit(x->v, x->pts[order[pick]].winner, &x->pts[order[pick]].shape,
                                           &held->shape, &dev))
      pick++;
    if (pick == kk) pick = 0; /* none fits better: the nearest */
  }
  const char *fitted = NULL; /* PICK_FIT: the refit that won, refitted from order[pick] */
  bool fit = rule == TRANSFER_PICK_FIT || rule == TRANSFER_PICK_DISSENT;
  int dissent_knob = -1; /* PICK_DISSENT: the knob of the farther winner that won, order[pick]'s */
  if (rule == TRANSFER_PICK || fit) { /* the K nearest distinct winners; the fastest measured here */
    int distinct = 0;
    double best_score = INFINITY, score;
    DeviceProps dev;
    Transfer_device(&dev, x->has_dev ? x->dev.cc : 0, x->sms);
    bool *dup = Transfer_duplicates(x, order, m);
    for (int j = 0; j < m && distinct < TRANSFER_PICK_K; j++) {
      if (dup[j]) continue;
      distinct++;
      kk = j + 1;
      if (TPoint_score(held, x->pts[order[j]].winner, &score) == SCORE_OK && score < best_score) {
        best_score = score;
        pick = j;
        fitted = NULL;
      }
      KnobValues kv, alt;
      char err[256], text[RECORD_KNOBS_MAX];
      Registry_defaults(x->v, &kv);
      if (!fit || distinct > WAVEFIT_FROM ||
          !Registry_applyKnobs(x->v, x->pts[order[j]].winner, &kv, false, err, sizeof err) ||
          !WaveFit_alternative(x->v, &held->shape, &kv, &dev, &alt))
        continue;
      Registry_formatKnobs(x->v, &alt, text, sizeof text);
      if (TPoint_score(held, text, &score) == SCORE_OK && score < best_score) {
        best_score = score;
        pick = j;
        Util_strlcpy(x->fit, text, sizeof x->fit);
        fitted = x->fit;
      }
    }
    if (rule == TRANSFER_PICK_DISSENT && Transfer_dissent(x, held, order, dup, m, kk, &best_score, &pick, &dissent_knob))
      fitted = NULL;
    free(dup);
  }
  double best_avg = INFINITY;
  for (int c = 0; rule == TRANSFER_BEST_OF_K && c < kk; c++) {
    double sum = 0, score;
    int seen = 0;
    for (int j = 0; j < kk; j++)
      if (TPoint_score(&x->pts[order[j]], x->pts[order[c]].winner, &score) == SCORE_OK) {
        sum += score / x->pts[order[j]].best - 1;
        seen++;
      }
    if (seen > 0 && sum / seen < best_avg) {
      best_avg = sum / seen;
      pick = c;
    }
  }
  const char *knobs = fitted ? fitted : x->pts[order[pick]].winner;
  Transfer_from(x, order, dist, kk, pick, fitted != NULL, dissent_knob, from, size);
  free(order);
  free(dist);
  return knobs;
}

/* One rule's tally over the held-out points of one variant. */
typedef struct TTally {
  int points, measured, unmeasured, failed, none, within2, within5, within10;
  double sum, worst;
} TTally;

static void Transfer_one(TReplay *x, TransferRule rule, const TPoint *held, int skip, TTally *t,
                         bool verbose, FILE *out) {
  char from[600], shape[64];
  const char *knobs = Transfer_pick(x, rule, held, skip, from, sizeof from);
  double score = 0;
  int st = knobs ? TPoint_score(held, knobs, &score) : -1;
  t->points++;
  if (st == SCORE_OK) {
    double loss = score / held->best - 1;
    t->measured++;
    t->sum += loss;
    if (loss > t->worst) t->worst = loss;
    t->within2 += loss <= 0.02;
    t->within5 += loss <= 0.05;
    t->within10 += loss <= 0.10;
  }
  t->unmeasured += st == SCORE_UNMEASURED;
  t->failed += st == SCORE_FAILED;
  t->none += st < 0;
  if (!verbose) return;
  Shape_format(&held->shape, shape, sizeof shape);
  fprintf(out, "  %-9s %-32s %-10s ", x->v->name, shape, TransferRule_name(rule));
  if (st == SCORE_OK) fprintf(out, "%+6.1f %%  from %s\n", 100 * (score / held->best - 1), from);
  else fprintf(out, "%s%s%s\n", st < 0 ? "no other point's knobs fit" : st == SCORE_FAILED
               ? "failed there" : "not measured there", knobs ? "  from " : "", knobs ? from : "");
}

static void Transfer_summary(FILE *out, const char *variant, TransferRule rule, int k, const TTally *t) {
  char name[32];
  if (rule == TRANSFER_BEST_OF_K) snprintf(name, sizeof name, "best-of-%d", k);
  else if (rule == TRANSFER_PICK) snprintf(name, sizeof name, "pick-of-%d", TRANSFER_PICK_K);
  else if (rule == TRANSFER_PICK_FIT) snprintf(name, sizeof name, "pick-of-%d+fit", TRANSFER_PICK_K);
  else if (rule == TRANSFER_PICK_DISSENT) snprintf(name, sizeof name, "pick-of-%d+fit+dissent", TRANSFER_PICK_K);
  else snprintf(name, sizeof name, "%s", TransferRule_name(rule));
  fprintf(out, "%-9s %-11s %3d points: %3d scored, mean loss %5.1f %%, worst %5.1f %%, within 2/5/10 %%: "
          "%d/%d/%d; not measured there %d, failed there %d, nothing fits %d\n", variant, name, t->points,
          t->measured, t->measured ? 100 * t->sum / t->measured : 0.0, 100 * t->worst, t->within2,
          t->within5, t->within10, t->unmeasured, t->failed, t->none);
}

bool Transfer_replay(const Session *s, unsigned rules, int k, const char *variant, bool verbose,
                     FILE *out, char *err, size_t errsize) {
  return Transfer_replayHeldout(s, NULL, 0, rules, k, variant, verbose, out, err, errsize);
}

bool Transfer_replayHeldout(const Session *s, const Session *held, int nheld, unsigned rules, int k,
                            const char *variant, bool verbose, FILE *out, char *err, size_t errsize) {
  int replayed = 0;
  for (int i = 0; i < s->plan.nvariants; i++) {
    const char *name = s->plan.variants[i].name;
    bool dup = false;
    for (int j = 0; j < i; j++) dup |= strcmp(s->plan.variants[j].name, name) == 0;
    if (dup || (variant && strcmp(variant, name) != 0)) continue;
    TReplay x = {.v = Registry_find(name), .k = k > 0 ? k : TRANSFER_K_DEFAULT};
    if (!x.v) continue;
    x.n = Transfer_points(s, name, &x.pts);
    if (s->has_device && s->device.cc_major >= 0) {
      x.dev = (DeviceProps){.cc = s->device.cc_major * 10 + s->device.cc_minor,
                            .sm_count = s->device.sm_count, .l2_bytes = s->device.l2_bytes};
      x.has_dev = true;
      x.sms = s->device.sm_count;
    }
    /* Held-out points: the complete searches of the other sessions (every grid point counts),
     * or else each grid point in turn (the others count). */
    TPoint *hp = NULL;
    int nh = 0;
    for (int f = 0; f < nheld; f++) {
      TPoint *more;
      int m = Transfer_points(&held[f], name, &more);
      hp = Util_xrealloc(hp, sizeof *hp * (size_t)(nh + m + 1));
      memcpy(hp + nh, more, sizeof *hp * (size_t)m);
      nh += m;
      free(more);
    }
    if (x.n >= (nheld ? 1 : 2) && (nheld == 0 || nh > 0)) {
      replayed++;
      TTally tally[TRANSFER_NRULES];
      memset(tally, 0, sizeof tally);
      for (int h = 0; h < (nheld ? nh : x.n); h++)
        for (int r = 0; r < TRANSFER_NRULES; r++)
          if (rules & (1u << r))
            Transfer_one(&x, (TransferRule)r, nheld ? &hp[h] : &x.pts[h], nheld ? -1 : h, &tally[r], verbose, out);
      for (int r = 0; r < TRANSFER_NRULES; r++)
        if (rules & (1u << r)) Transfer_summary(out, name, (TransferRule)r, x.k, &tally[r]);
    }
    Transfer_freePoints(hp, nh);
    Transfer_freePoints(x.pts, x.n);
  }
  if (replayed == 0) {
    snprintf(err, errsize, nheld ? "no variant has both a complete search in %s and one in the held-out "
                                   "sessions%s%s (held-out sessions: benchtop tune -o at problems off the grid)"
                                 : "%s holds no variant with two complete searches or more%s%s (make one "
                                   "with benchtop tune --grid)",
             s->path[0] ? s->path : "the session", variant ? " of " : "", variant ? variant : "");
    return false;
  }
  return true;
}
