/* Is B faster than A? Two sets of latency samples (microseconds, in launch order) compared by
 * their medians: a confidence interval of the ratio median(B) / median(A) from a seeded
 * circular block bootstrap, and a verdict against a practical-equivalence margin:
 *   slower  the whole interval lies above 1 + margin
 *   faster  the whole interval lies below 1 / (1 + margin)
 *   tied    anything else: no difference larger than the margin is shown (`equivalent` says
 *           whether the interval lies inside the margin, i.e. tied by evidence and not only
 *           for lack of it)
 *   n/a     too few valid samples on a side to say anything
 * docs/statistics.md says why this method and these defaults. Pure C, no CUDA; deterministic:
 * the same samples and options give the same interval on every machine.
 *
 * Comparing many configurations (tuning): summarise each sample set once
 * (CompareStats_summarize), then compare any pair in O(resamples) (CompareStats_compare). */
#ifndef BENCHTOP_COMPARE_STATS_H
#define BENCHTOP_COMPARE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sessions/record.h"

/* Fewer valid samples than this on either side: no interval, verdict n/a. */
#define COMPARE_MIN_SAMPLES 5

typedef enum {
  VERDICT_NA = 0, /* not comparable (too few samples, no samples, different clocks) */
  VERDICT_TIED,
  VERDICT_FASTER, /* B faster than A */
  VERDICT_SLOWER, /* B slower than A */
} Verdict;

typedef struct CompareOptions {
  double confidence; /* two-sided confidence of the interval, in (0, 1): 0.95 */
  double margin;     /* practical-equivalence margin as a fraction: 0.02 = 2 % */
  int resamples;     /* bootstrap replicates: 2000 */
  uint64_t seed;     /* mixed with a hash of each sample set */
} CompareOptions;

/* confidence 0.95, margin 0.02, resamples 2000, seed 0. */
void CompareStats_defaults(CompareOptions *o);

/* One sample set, ready to compare against others. */
typedef struct SampleSummary {
  int n;          /* valid samples (finite and > 0) */
  int dropped;    /* NaN, infinite, zero or negative samples left out */
  double median;  /* of the valid samples (NAN when n == 0) */
  int nboot;      /* bootstrap replicates held in boot (0 when n < COMPARE_MIN_SAMPLES) */
  double *boot;   /* log of each replicate's median, in replicate order; owned */
  /* Replicate medians (independently allocated input sets) added by CompareStats_add*:
   * their logs' count, and sums about the first one. */
  int nrep;
  double rep_shift, rep_sum, rep_sumsq;
} SampleSummary;

/* Summarises samples[0..n) (n may be 0, samples NULL then). Always fills *out (free it with
 * CompareStats_freeSummary); a NULL o means the defaults. */
void CompareStats_summarize(const double *samples, int n, const CompareOptions *o,
                            SampleSummary *out);
void CompareStats_freeSummary(SampleSummary *s);
/* Adds replicate medians (µs) to a summary: with two or more on either side, the interval of a
 * comparison includes their spread (compare_replicates.c). Invalid values are left out. */
void CompareStats_addReplicates(SampleSummary *s, const double *p50, int n);
/* A record's Timing.replicate_p50, added the same way. */
void CompareStats_addRecordReplicates(SampleSummary *s, const Record *r);

typedef struct Comparison {
  Verdict verdict;
  double ratio;      /* median(B) / median(A): above 1 means B is slower; NAN when unknown */
  double lo, hi;     /* confidence interval of the ratio; NAN when verdict is n/a */
  double confidence; /* as used */
  double margin;     /* as used */
  bool equivalent;   /* the interval lies inside [1/(1+margin), 1+margin] */
  bool replicated;   /* the interval includes the spread between replicate medians */
  char reason[120];  /* why n/a, else empty */
} Comparison;

/* B against A. A NULL o means the defaults; both summaries must come from the same resamples
 * count (else n/a). */
void CompareStats_compare(const SampleSummary *a, const SampleSummary *b, const CompareOptions *o,
                          Comparison *out);
/* Summarise both, compare, free. */
void CompareStats_samples(const double *a, int na, const double *b, int nb,
                          const CompareOptions *o, Comparison *out);
/* Two records of the same work, by their samples. n/a (with the reason) when either has no
 * samples or they were timed by different clocks (kernel timestamps against CUDA events: the
 * samples of one clock cannot be compared with the other's). */
void CompareStats_records(const Record *a, const Record *b, const CompareOptions *o,
                          Comparison *out);

/* The interval [lo, hi] of out widened by the between-replicate spread of a and b (a
 * pooled-variance t interval of the difference of their mean log replicate medians, added in quadrature
 * on each side); no change when neither has two replicates. */
void CompareStats_widenByReplicates(const SampleSummary *a, const SampleSummary *b,
                                    double confidence, Comparison *out);
/* Student's t quantile at p for df degrees of freedom (rounded down). */
double CompareStats_tQuantile(double p, double df);

/* Whether the whole interval lies above 1 + pct/100 (a regression beyond a threshold). */
bool CompareStats_above(const Comparison *c, double pct);

/* "faster", "slower", "tied", "n/a". */
const char *CompareStats_verdictName(Verdict v);
/* The change and its interval in percent: "+10.0% [+9.6,+10.4]", "n/a" when unknown. */
void CompareStats_formatChange(const Comparison *c, char *buf, size_t size);
/* The interval alone: "[+9.6,+10.4]%", "" when unknown. */
void CompareStats_formatInterval(const Comparison *c, char *buf, size_t size);

#endif
