#include "bench/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

static int Stats_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double Stats_percentile(const double *sorted, int n, double pct) {
  if (n <= 0) return NAN;
  double pos = pct / 100.0 * (n - 1);
  int lo = (int)floor(pos);
  if (lo >= n - 1) return sorted[n - 1];
  double frac = pos - lo;
  return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * frac;
}

void Stats_compute(const double *samples, int n, Timing *t) {
  if (n <= 0) {
    t->p50 = t->p90 = t->p99 = t->min = t->mean = t->stddev = NAN;
    return;
  }
  double *s = Util_xmalloc(sizeof(double) * (size_t)n);
  memcpy(s, samples, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), Stats_cmp);
  t->p50 = Stats_percentile(s, n, 50);
  t->p90 = Stats_percentile(s, n, 90);
  t->p99 = Stats_percentile(s, n, 99);
  t->min = s[0];
  double sum = 0;
  for (int i = 0; i < n; i++) sum += s[i];
  t->mean = sum / n;
  double var = 0;
  for (int i = 0; i < n; i++) var += (s[i] - t->mean) * (s[i] - t->mean);
  t->stddev = n > 1 ? sqrt(var / (n - 1)) : 0.0;
  free(s);
}
