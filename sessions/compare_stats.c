/* Confidence intervals of the p50 ratio and faster/slower/tied verdicts (see compare_stats.h,
 * docs/statistics.md). */
#include "sessions/compare_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* Resample length cap: the median's spread shrinks as 1/sqrt(n), so replicates of m < n draws
 * are scaled by sqrt(m / n) (an m-out-of-n bootstrap): 100000 samples cost what 8192 do. */
#define COMPARE_RESAMPLE_MAX 8192
#define COMPARE_RESAMPLES_MAX 100000

void CompareStats_defaults(CompareOptions *o) {
  o->confidence = 0.95;
  o->margin = 0.02;
  o->resamples = 2000;
  o->seed = 0;
}

/* The options to use: the defaults for NULL, out-of-range fields replaced by defaults. */
static CompareOptions CompareStats_options(const CompareOptions *o) {
  CompareOptions d;
  CompareStats_defaults(&d);
  if (!o) return d;
  CompareOptions r = *o;
  if (!(r.confidence > 0 && r.confidence < 1)) r.confidence = d.confidence;
  if (!(r.margin >= 0 && r.margin < 10)) r.margin = d.margin;
  if (r.resamples < 100 || r.resamples > COMPARE_RESAMPLES_MAX) r.resamples = d.resamples;
  return r;
}

/* splitmix64: small, fast, and the same sequence on every platform. */
static uint64_t CompareStats_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* FNV-1a over the samples' bits: two different sample sets draw different resamples, so the
 * bootstrap of A and of B are independent even when both hold the same count. */
static uint64_t CompareStats_hash(const double *x, int n, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ull ^ seed;
  for (int i = 0; i < n; i++) {
    uint64_t bits;
    memcpy(&bits, &x[i], sizeof bits);
    for (int b = 0; b < 8; b++) {
      h ^= (bits >> (8 * b)) & 0xff;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

static void CompareStats_swap(double *a, double *b) {
  double t = *a;
  *a = *b;
  *b = t;
}

/* The k-th smallest of x[0..n) (Hoare's selection; x is reordered). */
static double CompareStats_select(double *x, int n, int k) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = x[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (x[i] < pivot) i++;
      while (x[j] > pivot) j--;
      if (i <= j) CompareStats_swap(&x[i++], &x[j--]);
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return x[k];
  }
  return x[k];
}

/* The median as Stats_percentile(50) computes it: the mean of the two middle values for even n. */
static double CompareStats_median(double *x, int n) {
  if (n <= 0) return NAN;
  int k = n / 2;
  double upper = CompareStats_select(x, n, k);
  if (n % 2) return upper;
  double lower = x[0]; /* select left x[0..k) <= upper: their largest is the lower middle */
  for (int i = 1; i < k; i++)
    if (x[i] > lower) lower = x[i];
  return (lower + upper) / 2;
}

static int CompareStats_cmpDouble(const void *p, const void *q) {
  double x = *(const double *)p, y = *(const double *)q;
  return (x > y) - (x < y);
}

/* Linear interpolation between order statistics of sorted[0..n). */
static double CompareStats_quantile(const double *sorted, int n, double q) {
  double pos = q * (n - 1);
  int lo = (int)floor(pos);
  if (lo < 0) return sorted[0];
  if (lo >= n - 1) return sorted[n - 1];
  return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * (pos - lo);
}

/* The samples as ranks among their distinct values: a replicate is then a count per rank, and
 * its median a walk up the counts (O(n) with no comparisons, the same value a selection gives). */
typedef struct SampleRanks {
  int ndistinct;
  double *value; /* the distinct values, ascending (borrowed: the caller's scratch) */
  int *rank;     /* rank[i]: index in value of sample i */
  int *count;    /* one replicate's draws of each distinct value */
} SampleRanks;

typedef struct RankedSample {
  double value;
  int index;
} RankedSample;

static int CompareStats_cmpRanked(const void *p, const void *q) {
  const RankedSample *x = p, *y = q;
  return (x->value > y->value) - (x->value < y->value);
}

/* Fills r from x[0..n); scratch (n doubles) receives the distinct values. */
static void CompareStats_ranks(const double *x, int n, double *scratch, SampleRanks *r) {
  RankedSample *sorted = Util_xmalloc(sizeof *sorted * (size_t)n);
  for (int i = 0; i < n; i++) sorted[i] = (RankedSample){x[i], i};
  qsort(sorted, (size_t)n, sizeof *sorted, CompareStats_cmpRanked);
  r->value = scratch;
  r->rank = Util_xmalloc(sizeof(int) * (size_t)n);
  r->ndistinct = 0;
  for (int i = 0; i < n; i++) {
    if (i == 0 || sorted[i].value != sorted[i - 1].value) r->value[r->ndistinct++] = sorted[i].value;
    r->rank[sorted[i].index] = r->ndistinct - 1;
  }
  r->count = Util_xmalloc(sizeof(int) * (size_t)r->ndistinct);
  free(sorted);
}

/* The median of the m draws counted in r, as CompareStats_median computes it. */
static double CompareStats_countedMedian(const SampleRanks *r, int m) {
  int k = m / 2, seen = 0, d = 0;
  while (seen + r->count[d] <= k) seen += r->count[d++]; /* d holds position k */
  double upper = r->value[d];
  if (m % 2) return upper;
  if (seen < k) return upper; /* position k - 1 holds the same value */
  int below = d - 1;
  while (r->count[below] == 0) below--;
  return (r->value[below] + upper) / 2;
}

void CompareStats_summarize(const double *samples, int n, const CompareOptions *opt,
                            SampleSummary *out) {
  CompareOptions o = CompareStats_options(opt);
  memset(out, 0, sizeof *out);
  out->median = NAN;
  if (!samples || n < 0) n = 0;
  double *x = Util_xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  int valid = 0;
  for (int i = 0; i < n; i++) {
    if (isfinite(samples[i]) && samples[i] > 0) x[valid++] = samples[i];
    else out->dropped++;
  }
  out->n = valid;
  if (valid == 0) {
    free(x);
    return;
  }
  uint64_t state = CompareStats_hash(x, valid, o.seed);
  double *work = Util_xmalloc(sizeof(double) * (size_t)valid);
  memcpy(work, x, sizeof(double) * (size_t)valid);
  out->median = CompareStats_median(work, valid);
  if (valid < COMPARE_MIN_SAMPLES) {
    free(work);
    free(x);
    return;
  }
  /* Circular blocks of about n^(1/3) consecutive launches keep the serial correlation of the
   * samples (clock steps, thermal drift) inside each replicate, which iid resampling would
   * average away into a too-narrow interval. */
  int m = valid < COMPARE_RESAMPLE_MAX ? valid : COMPARE_RESAMPLE_MAX;
  int block = (int)ceil(cbrt((double)valid));
  double scale = sqrt((double)m / valid), center = log(out->median);
  out->nboot = o.resamples;
  out->boot = Util_xmalloc(sizeof(double) * (size_t)o.resamples);
  SampleRanks ranks;
  CompareStats_ranks(x, valid, work, &ranks);
  for (int r = 0; r < o.resamples; r++) {
    memset(ranks.count, 0, sizeof(int) * (size_t)ranks.ndistinct);
    int filled = 0;
    while (filled < m) {
      int start = (int)(CompareStats_next(&state) % (uint64_t)valid);
      for (int j = 0; j < block && filled < m; j++, filled++) {
        int at = start + j < valid ? start + j : start + j - valid;
        ranks.count[ranks.rank[at]]++;
      }
    }
    out->boot[r] = center + scale * (log(CompareStats_countedMedian(&ranks, m)) - center);
  }
  free(ranks.rank);
  free(ranks.count);
  free(work);
  free(x);
}

void CompareStats_freeSummary(SampleSummary *s) {
  free(s->boot);
  s->boot = NULL;
  s->nboot = 0;
}

static void CompareStats_na(Comparison *c) {
  c->verdict = VERDICT_NA;
  c->lo = c->hi = NAN;
}

void CompareStats_compare(const SampleSummary *a, const SampleSummary *b,
                          const CompareOptions *opt, Comparison *out) {
  CompareOptions o = CompareStats_options(opt);
  memset(out, 0, sizeof *out);
  out->confidence = o.confidence;
  out->margin = o.margin;
  out->ratio = a->n > 0 && b->n > 0 ? b->median / a->median : NAN;
  if (a->n == 0 || b->n == 0) {
    CompareStats_na(out);
    snprintf(out->reason, sizeof out->reason, "no samples (A %d, B %d)", a->n, b->n);
    return;
  }
  if (!a->boot || !b->boot) {
    CompareStats_na(out);
    snprintf(out->reason, sizeof out->reason, "too few samples (A %d, B %d; at least %d a side)",
             a->n, b->n, COMPARE_MIN_SAMPLES);
    return;
  }
  if (a->nboot != b->nboot) {
    CompareStats_na(out);
    snprintf(out->reason, sizeof out->reason, "summaries of different resample counts (%d, %d)",
             a->nboot, b->nboot);
    return;
  }
  int nb = a->nboot;
  double *d = Util_xmalloc(sizeof(double) * (size_t)nb);
  for (int r = 0; r < nb; r++) d[r] = b->boot[r] - a->boot[r];
  qsort(d, (size_t)nb, sizeof(double), CompareStats_cmpDouble);
  double alpha = 1 - o.confidence;
  out->lo = exp(CompareStats_quantile(d, nb, alpha / 2));
  out->hi = exp(CompareStats_quantile(d, nb, 1 - alpha / 2));
  free(d);
  /* The percentile interval is centred on the replicates; keep the point estimate inside it
   * (with a lumpy bootstrap of few samples it can fall just outside). */
  if (out->ratio < out->lo) out->lo = out->ratio;
  if (out->ratio > out->hi) out->hi = out->ratio;
  CompareStats_widenByReplicates(a, b, o.confidence, out);
  double up = 1 + o.margin, down = 1 / up;
  out->equivalent = out->lo >= down && out->hi <= up;
  out->verdict = out->lo > up ? VERDICT_SLOWER : out->hi < down ? VERDICT_FASTER : VERDICT_TIED;
}

void CompareStats_samples(const double *a, int na, const double *b, int nb,
                          const CompareOptions *o, Comparison *out) {
  SampleSummary sa, sb;
  CompareStats_summarize(a, na, o, &sa);
  /* The same samples (a session diffed against a copy of itself) summarise the same: once. */
  bool same = na == nb && na > 0 && a && b && memcmp(a, b, sizeof(double) * (size_t)na) == 0;
  if (same) sb = sa;
  else CompareStats_summarize(b, nb, o, &sb);
  CompareStats_compare(&sa, &sb, o, out);
  CompareStats_freeSummary(&sa);
  if (!same) CompareStats_freeSummary(&sb);
}

void CompareStats_records(const Record *a, const Record *b, const CompareOptions *o,
                          Comparison *out) {
  if (Record_kernelClock(a) != Record_kernelClock(b)) {
    CompareStats_samples(NULL, 0, NULL, 0, o, out);
    double pa, pb;
    Record_comparableP50(a, b, &pa, &pb);
    out->ratio = pa > 0 && pb > 0 ? pb / pa : NAN;
    snprintf(out->reason, sizeof out->reason,
             "timed by different clocks (kernel timestamps, CUDA events): p50s of events only");
    return;
  }
  SampleSummary sa, sb;
  CompareStats_summarize(a->timing.samples, a->timing.nsamples, o, &sa);
  CompareStats_summarize(b->timing.samples, b->timing.nsamples, o, &sb);
  CompareStats_addRecordReplicates(&sa, a);
  CompareStats_addRecordReplicates(&sb, b);
  CompareStats_compare(&sa, &sb, o, out);
  CompareStats_freeSummary(&sa);
  CompareStats_freeSummary(&sb);
}

bool CompareStats_above(const Comparison *c, double pct) {
  return c->verdict != VERDICT_NA && !isnan(pct) && c->lo > 1 + pct / 100.0;
}

const char *CompareStats_verdictName(Verdict v) {
  switch (v) {
  case VERDICT_TIED: return "tied";
  case VERDICT_FASTER: return "faster";
  case VERDICT_SLOWER: return "slower";
  case VERDICT_NA: break;
  }
  return "n/a";
}

/* A ratio as a signed percent change with a precision suited to its size. */
static void CompareStats_pct(char *buf, size_t size, double ratio) {
  double p = (ratio - 1) * 100;
  if (!(fabs(p) < 1e6)) snprintf(buf, size, "%+.3g", p); /* a broken p50: not 300 digits */
  else if (fabs(p) >= 1000) snprintf(buf, size, "%+.0f", p);
  else if (fabs(p) >= 100) snprintf(buf, size, "%+.0f", p);
  else snprintf(buf, size, "%+.1f", p);
}

void CompareStats_formatInterval(const Comparison *c, char *buf, size_t size) {
  if (c->verdict == VERDICT_NA || isnan(c->lo) || isnan(c->hi)) {
    if (size) buf[0] = '\0';
    return;
  }
  char lo[24], hi[24];
  CompareStats_pct(lo, sizeof lo, c->lo);
  CompareStats_pct(hi, sizeof hi, c->hi);
  snprintf(buf, size, "[%s,%s]%%", lo, hi);
}

void CompareStats_formatChange(const Comparison *c, char *buf, size_t size) {
  if (isnan(c->ratio)) {
    snprintf(buf, size, "n/a");
    return;
  }
  char mid[24], iv[56];
  CompareStats_pct(mid, sizeof mid, c->ratio);
  CompareStats_formatInterval(c, iv, sizeof iv);
  if (iv[0]) {
    iv[strlen(iv) - 1] = '\0'; /* the interval's own % sign: one after the point estimate */
    snprintf(buf, size, "%s%% %s", mid, iv);
  } else {
    snprintf(buf, size, "%s%%", mid);
  }
}
