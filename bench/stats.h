/* Order statistics of latency samples. */
#ifndef BENCHTOP_STATS_H
#define BENCHTOP_STATS_H

#include "sessions/record.h"

/* Fills p50/p90/p99/min/mean/stddev from samples (microseconds); NAN when n == 0.
 * Percentiles interpolate linearly between order statistics (numpy's default). */
void Stats_compute(const double *samples, int n, Timing *t);
double Stats_percentile(const double *sorted, int n, double pct);

#endif
