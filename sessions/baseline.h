/* The baseline of a comparison: cuDNN's fused attention (the `cudnn` variant). Where a session
 * holds a passing cudnn record of a problem, every record of that problem has a ratio to it
 * (p50 / the cudnn p50: below 1 is faster than cuDNN). */
#ifndef BENCHTOP_BASELINE_H
#define BENCHTOP_BASELINE_H

#include <stdbool.h>

#include "sessions/record.h"

#define BASELINE_VARIANT "cudnn"

/* The fastest passing baseline record of the shape among records[0..n), NULL when none. */
const Record *Baseline_find(const Record *records, int n, const Shape *shape);
/* r's p50 over the baseline's of its shape; NaN when there is none or r has no p50. */
double Baseline_ratio(const Record *r, const Record *records, int n);
/* Baseline_ratio of every record into out[0..n), in one pass over the baseline records (a
 * table that shows the ratio of each row). */
void Baseline_ratios(const Record *records, int n, double *out);
/* Whether any record is a passing baseline record. */
bool Baseline_present(const Record *records, int n);

#endif
