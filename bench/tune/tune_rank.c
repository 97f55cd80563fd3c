/* What a tune's records mean: each configuration's samples pooled over its passing records
 * (a configuration with a failed or errored record never wins), ranked by their median; the
 * winner's lead over the runner-up as a confidence interval and the configurations the data
 * cannot separate from the winner, by the statistics every comparison in benchtop uses
 * (sessions/compare_stats.h); the best configuration over several shapes; the tuned-table
 * entries. A pure function of the session's records, so any saved tune can be re-ranked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tune/tune.h"
#include "common/util.h"
#include "kernels/jit.h"
#include "kernels/knobs.h"
#include "sessions/compare_stats.h"

/* Configurations within this factor of the winner are compared with it by their samples;
 * the rest are slower by more than any interval at benchtop's sample counts spans. */
#define TUNE_TIE_WINDOW 1.10

typedef struct RankedConfig {
  const char *knobs;
  int nrec, npass, last_pass;
  double sum;           /* of the passing records' p50s */
  bool bad;
  double *samples;      /* pooled from the passing records, in record order */
  int nsamples;
  double score;         /* median of the pooled samples (mean p50 without samples); inf: bad */
} RankedConfig;

static int Rank_cmp(const void *a, const void *b) {
  const RankedConfig *x = a, *y = b;
  return x->score < y->score ? -1 : x->score > y->score ? 1 : KnobText_compare(x->knobs, y->knobs);
}

static int Rank_cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double Rank_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, Rank_cmpDouble);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void Rank_freeConfigs(RankedConfig *cs, int n) {
  for (int k = 0; k < n; k++) free(cs[k].samples);
  free(cs);
}

/* The configurations of one variant at one shape, ranked; *n of them (Rank_freeConfigs). */
static RankedConfig *Rank_configs(const Session *s, const char *variant, const Shape *shape, int *n,
                                  int *records, int *failed) {
  RankedConfig *cs = Util_xcalloc((size_t)s->nrecords + 1, sizeof *cs);
  *n = *records = *failed = 0;
  for (int i = 0; i < s->nrecords; i++) {
    const Record *r = &s->records[i];
    if (strcmp(r->variant, variant) != 0 || !Shape_equal(&r->shape, shape) ||
        r->status == REC_CANCELLED)
      continue;
    int k = 0;
    while (k < *n && !KnobText_same(cs[k].knobs, r->knobs)) k++;
    if (k == *n) {
      cs[k].knobs = r->knobs;
      cs[k].last_pass = -1;
      (*n)++;
    }
    (*records)++;
    cs[k].nrec++;
    if (r->status == REC_PASS && isfinite(r->timing.p50) && r->timing.p50 > 0) {
      cs[k].npass++;
      cs[k].sum += r->timing.p50;
      cs[k].last_pass = i;
      if (r->timing.samples && r->timing.nsamples > 0) {
        size_t total = (size_t)cs[k].nsamples + (size_t)r->timing.nsamples;
        cs[k].samples = Util_xrealloc(cs[k].samples, sizeof(double) * total);
        memcpy(cs[k].samples + cs[k].nsamples, r->timing.samples,
               sizeof(double) * (size_t)r->timing.nsamples);
        cs[k].nsamples += r->timing.nsamples;
      }
    } else {
      cs[k].bad = true;
      (*failed)++;
    }
  }
  for (int k = 0; k < *n; k++) {
    RankedConfig *c = &cs[k];
    c->score = INFINITY;
    if (c->npass == 0 || c->bad) continue;
    c->score = c->sum / c->npass;
    if (c->nsamples > 0) {
      double *copy = Util_xmalloc(sizeof(double) * (size_t)c->nsamples);
      int m = 0;
      for (int i = 0; i < c->nsamples; i++)
        if (isfinite(c->samples[i]) && c->samples[i] > 0) copy[m++] = c->samples[i];
      if (m > 0) c->score = Rank_median(copy, m);
      free(copy);
    }
  }
  qsort(cs, (size_t)*n, sizeof *cs, Rank_cmp);
  return cs;
}

/* The replicate medians of a configuration's passing records, into its summary. */
static void Rank_addReplicates(const Session *s, const char *variant, const Shape *shape,
                               const char *knobs, SampleSummary *sum) {
  for (int i = 0; i < s->nrecords; i++) {
    const Record *r = &s->records[i];
    if (r->status == REC_PASS && strcmp(r->variant, variant) == 0 &&
        Shape_equal(&r->shape, shape) && KnobText_same(r->knobs, knobs))
      CompareStats_addRecordReplicates(sum, r);
  }
}

/* The winner against the others near it: the lead's interval (over the runner-up) and how
 * many the samples cannot separate from it (marked on their records). */
static void Rank_ties(Session *s, const char *variant, const Shape *shape, RankedConfig *cs,
                      int ranked, TuneSummary *sum) {
  CompareOptions o;
  CompareStats_defaults(&o);
  SampleSummary win;
  CompareStats_summarize(cs[0].samples, cs[0].nsamples, &o, &win);
  Rank_addReplicates(s, variant, shape, cs[0].knobs, &win);
  sum->tied = 0;
  for (int k = 1; k < ranked && (k == 1 || cs[k].score <= cs[0].score * TUNE_TIE_WINDOW); k++) {
    SampleSummary other;
    Comparison c;
    CompareStats_summarize(cs[k].samples, cs[k].nsamples, &o, &other);
    Rank_addReplicates(s, variant, shape, cs[k].knobs, &other);
    CompareStats_compare(&win, &other, &o, &c);
    CompareStats_freeSummary(&other);
    if (k == 1 && c.verdict != VERDICT_NA) {
      sum->lead_lo = c.lo - 1.0;
      sum->lead_hi = c.hi - 1.0;
    }
    /* Said of the winner: its runner-up slower by more than the margin is a win. */
    if (k == 1)
      Util_strlcpy(sum->verdict, c.verdict == VERDICT_SLOWER ? "faster"
                                 : c.verdict == VERDICT_TIED ? "tied" : "n/a",
                   sizeof sum->verdict);
    if (c.verdict != VERDICT_TIED) continue;
    sum->tied++;
    for (int i = 0; i < s->nrecords; i++) {
      Record *r = &s->records[i];
      if (strcmp(r->variant, variant) == 0 && Shape_equal(&r->shape, shape) &&
          KnobText_same(r->knobs, cs[k].knobs))
        r->tune.tied = true;
    }
  }
  CompareStats_freeSummary(&win);
}

int Tune_rankPair(Session *s, const char *variant, const Shape *shape, TuneSummary *sum) {
  int n, records, failed;
  RankedConfig *cs = Rank_configs(s, variant, shape, &n, &records, &failed);
  int ranked = 0;
  while (ranked < n && isfinite(cs[ranked].score)) ranked++;
  for (int i = 0; i < s->nrecords; i++) {
    Record *r = &s->records[i];
    if (strcmp(r->variant, variant) != 0 || !Shape_equal(&r->shape, shape)) continue;
    r->tune.rank = r->tune.of = -1;
    r->tune.winner = r->tune.tied = false;
    for (int k = 0; k < ranked; k++)
      if (KnobText_same(cs[k].knobs, r->knobs) && r->status == REC_PASS) {
        r->tune.rank = k + 1;
        r->tune.of = ranked;
      }
  }
  sum->configs = n;
  sum->measured = records;
  sum->failed = failed;
  sum->remeasured = 0;
  for (int k = 0; k < n; k++) sum->remeasured += cs[k].nrec > 1;
  sum->winner = -1;
  sum->winner_knobs[0] = sum->runner_up[0] = sum->verdict[0] = '\0';
  sum->winner_p50 = sum->runner_up_p50 = sum->lead = sum->lead_lo = sum->lead_hi = NAN;
  sum->tied = -1;
  if (ranked > 0) {
    /* The winner's record is its last measurement: the re-measurement, when there was one,
     * which is not the lucky draw that put it on top. */
    sum->winner = cs[0].last_pass;
    s->records[sum->winner].tune.winner = true;
    Util_strlcpy(sum->winner_knobs, cs[0].knobs, sizeof sum->winner_knobs);
    sum->winner_p50 = cs[0].score;
  }
  if (ranked > 1) {
    Util_strlcpy(sum->runner_up, cs[1].knobs, sizeof sum->runner_up);
    sum->runner_up_p50 = cs[1].score;
    sum->lead = sum->runner_up_p50 / sum->winner_p50 - 1.0;
    Rank_ties(s, variant, shape, cs, ranked, sum);
  }
  Rank_freeConfigs(cs, n);
  return ranked;
}

int Tune_scores(const Session *s, const TuneSpace *sp, double *scores) {
  int n, records, failed, scored = 0;
  RankedConfig *cs = Rank_configs(s, sp->variant->name, &sp->shape, &n, &records, &failed);
  for (int c = 0; c < sp->nconfigs; c++) scores[c] = INFINITY;
  for (int k = 0; k < n; k++) {
    KnobValues kv;
    char err[256];
    Registry_defaults(sp->variant, &kv);
    if (!isfinite(cs[k].score) || !Registry_applyKnobs(sp->variant, cs[k].knobs, &kv, false, err, sizeof err))
      continue;
    int c = TuneSpace_find(sp, &kv);
    if (c >= 0) {
      scores[c] = cs[k].score;
      scored++;
    }
  }
  Rank_freeConfigs(cs, n);
  return scored;
}

static TuneSummary *Tune_slot(Session *s, const char *variant, const Shape *shape) {
  for (int i = 0; i < s->ntune; i++)
    if (strcmp(s->tune[i].variant, variant) == 0 && Shape_equal(&s->tune[i].shape, shape))
      return &s->tune[i];
  s->tune = Util_xrealloc(s->tune, sizeof(TuneSummary) * (size_t)(s->ntune + 1));
  return &s->tune[s->ntune++];
}

/* The configuration with the smallest geometric mean of p50 over every shape it was measured
 * at, among those measured (and passing) at all of them. */
static void Tune_overall(Session *s, const char *variant, const Shape *shapes, int nshapes) {
  if (nshapes < 2 || nshapes > TUNE_SHAPES_MAX) return;
  RankedConfig *per[TUNE_SHAPES_MAX];
  int counts[TUNE_SHAPES_MAX], records, failed;
  for (int j = 0; j < nshapes; j++)
    per[j] = Rank_configs(s, variant, &shapes[j], &counts[j], &records, &failed);
  int best = -1;
  double best_log = INFINITY;
  for (int c = 0; c < counts[0]; c++) {
    if (!isfinite(per[0][c].score)) continue;
    double logsum = 0;
    bool everywhere = true;
    for (int j = 0; j < nshapes && everywhere; j++) {
      int k = 0;
      while (k < counts[j] && !KnobText_same(per[j][k].knobs, per[0][c].knobs)) k++;
      everywhere = k < counts[j] && isfinite(per[j][k].score);
      if (everywhere) logsum += log(per[j][k].score);
    }
    if (everywhere && logsum < best_log) {
      best_log = logsum;
      best = c;
    }
  }
  if (best >= 0) {
    TuneOverall *o = NULL;
    for (int i = 0; i < s->noverall && !o; i++)
      if (strcmp(s->overall[i].variant, variant) == 0) o = &s->overall[i];
    if (!o) {
      s->overall = Util_xrealloc(s->overall, sizeof(TuneOverall) * (size_t)(s->noverall + 1));
      o = &s->overall[s->noverall++];
    }
    memset(o, 0, sizeof *o);
    Util_strlcpy(o->variant, variant, sizeof o->variant);
    Util_strlcpy(o->knobs, per[0][best].knobs, sizeof o->knobs);
    o->geomean = exp(best_log / nshapes);
    o->nshapes = nshapes;
    for (int j = 0; j < nshapes; j++) {
      int k = 0;
      while (!KnobText_same(per[j][k].knobs, o->knobs)) k++;
      o->shapes[j] = shapes[j];
      o->p50[j] = per[j][k].score;
      o->loss[j] = o->p50[j] / per[j][0].score - 1.0;
    }
  }
  for (int j = 0; j < nshapes; j++) Rank_freeConfigs(per[j], counts[j]);
}

void Tune_finishSession(Session *s, const TuneSummary *base, int n) {
  for (int i = 0; i < n; i++) {
    TuneSummary sum = base[i];
    Tune_rankPair(s, sum.variant, &sum.shape, &sum);
    *Tune_slot(s, sum.variant, &sum.shape) = sum;
  }
  /* Over all shapes, per variant, in the order the variants were tuned. */
  for (int i = 0; i < n; i++) {
    bool first = true;
    for (int j = 0; j < i; j++) first &= strcmp(base[j].variant, base[i].variant) != 0;
    if (!first) continue;
    Shape shapes[TUNE_SHAPES_MAX];
    int ns = 0;
    for (int j = i; j < n && ns < TUNE_SHAPES_MAX; j++)
      if (strcmp(base[j].variant, base[i].variant) == 0) shapes[ns++] = base[j].shape;
    Tune_overall(s, base[i].variant, shapes, ns);
  }
  s->dirty = true;
}

int Tune_tunedEntries(const Session *s, const TunedEntry *keys, int nkeys, TunedEntry **out) {
  *out = Util_xcalloc((size_t)nkeys + 1, sizeof(TunedEntry));
  int n = 0;
  for (int i = 0; i < nkeys; i++) {
    const TuneSummary *sum = NULL;
    for (int j = 0; j < s->ntune && !sum; j++)
      if (strcmp(s->tune[j].variant, keys[i].variant) == 0 && Shape_equal(&s->tune[j].shape, &keys[i].shape))
        sum = &s->tune[j];
    if (!sum || !sum->complete || sum->winner < 0 || sum->winner >= s->nrecords) continue;
    const Record *w = &s->records[sum->winner];
    TunedEntry *e = &(*out)[n++];
    *e = keys[i];
    Util_strlcpy(e->knobs, w->knobs, sizeof e->knobs);
    e->p50 = w->timing.p50;
    Util_strlcpy(e->clock, w->timing.source, sizeof e->clock);
    Util_isoTime(e->created, sizeof e->created);
    /* The file's name, as tune-table writes it: a long folder would not fit, and is not kept. */
    const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
    Util_strlcpy(e->session, base, sizeof e->session);
  }
  return n;
}
