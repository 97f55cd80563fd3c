/* The between-replicate part of a verdict's interval (compare_stats.h): the medians of a
 * record's independently allocated input sets vary by more than one run's samples can show
 * (where the buffers land changes a large kernel's steady-state speed), so the spread of the
 * replicate medians widens the bootstrap interval. docs/statistics.md says how and why. */
#include <math.h>

#include "sessions/compare_stats.h"

void CompareStats_addReplicates(SampleSummary *s, const double *p50, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(p50[i]) || p50[i] <= 0) continue;
    double x = log(p50[i]);
    if (s->nrep == 0) s->rep_shift = x; /* sums about the first value: no cancellation */
    x -= s->rep_shift;
    s->nrep++;
    s->rep_sum += x;
    s->rep_sumsq += x * x;
  }
}

void CompareStats_addRecordReplicates(SampleSummary *s, const Record *r) {
  int n = r->timing.nreplicates;
  CompareStats_addReplicates(s, r->timing.replicate_p50, n < RECORD_REPLICATES_MAX ? n
                                                                                  : RECORD_REPLICATES_MAX);
}

/* The sample variance of the log replicate medians (needs two). */
static double CompareStats_repVar(const SampleSummary *s) {
  double m = s->rep_sum / s->nrep, v = (s->rep_sumsq - s->nrep * m * m) / (s->nrep - 1);
  return v > 0 ? v : 0;
}

/* The mean log replicate median of a side; a side without replicates is its own median. */
static double CompareStats_repMean(const SampleSummary *s) {
  return s->nrep > 0 ? s->rep_shift + s->rep_sum / s->nrep : log(s->median);
}

/* The standard normal quantile at p in (0, 1), by bisection on erfc (exact enough for an
 * interval's width). */
static double CompareStats_zQuantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
    double mid = 0.5 * (lo + hi);
    if (0.5 * erfc(-mid / sqrt(2.0)) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

double CompareStats_tQuantile(double p, double df) {
  const double pi = 3.14159265358979323846;
  if (df < 1) df = 1;
  df = floor(df); /* fewer degrees of freedom: wider, the safe side */
  if (df == 1) return tan(pi * (p - 0.5));
  if (df == 2) return (2 * p - 1) * sqrt(2.0 / (4 * p * (1 - p)));
  /* Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5): within 0.2 % from 3 df on. */
  double z = CompareStats_zQuantile(p), z2 = z * z, n = df;
  double g1 = (z2 + 1) * z / 4;
  double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
  double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
  double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
  return z + g1 / n + g2 / (n * n) + g3 / (n * n * n) + g4 / (n * n * n * n);
}

void CompareStats_widenByReplicates(const SampleSummary *a, const SampleSummary *b,
                                    double confidence, Comparison *out) {
  if ((a->nrep < 2 && b->nrep < 2) || isnan(out->lo) || !(out->ratio > 0)) return;
  /* One between-replicate variance, pooled over the sides that have two or more (the same
   * kernel, or two close configurations of it, on the same GPU): steadier than each side's own
   * with few replicates. A side without replicates is one draw from that spread. */
  double df = 0, ss = 0;
  const SampleSummary *side[2] = {a, b};
  for (int i = 0; i < 2; i++)
    if (side[i]->nrep >= 2) {
      df += side[i]->nrep - 1;
      ss += (side[i]->nrep - 1) * CompareStats_repVar(side[i]);
    }
  double na = a->nrep >= 1 ? a->nrep : 1, nb = b->nrep >= 1 ? b->nrep : 1;
  double se2 = ss / df * (1 / na + 1 / nb);
  out->replicated = true;
  if (!(se2 > 0)) return;
  double h = CompareStats_tQuantile(1 - (1 - confidence) / 2, df) * sqrt(se2);
  /* The replicate medians' spread already holds each run's own noise, so the two intervals are
   * not added: the verdict's interval is their union (the t interval about the ratio of the
   * replicates' geometric means, the bootstrap's about the ratio of the pooled medians). */
  double c = CompareStats_repMean(b) - CompareStats_repMean(a);
  if (exp(c - h) < out->lo) out->lo = exp(c - h);
  if (exp(c + h) > out->hi) out->hi = exp(c + h);
}
