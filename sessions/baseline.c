/* Ratios to the cudnn baseline (sessions/baseline.h). */
#include "sessions/baseline.h"

#include <math.h>
#include <string.h>

static bool Baseline_is(const Record *r) {
  return strcmp(r->variant, BASELINE_VARIANT) == 0 && r->status == REC_PASS && !isnan(r->timing.p50) &&
         r->timing.p50 > 0;
}

const Record *Baseline_find(const Record *records, int n, const Shape *shape) {
  const Record *best = NULL;
  for (int i = 0; i < n; i++)
    if (Baseline_is(&records[i]) && Shape_equal(&records[i].shape, shape) &&
        (!best || records[i].timing.p50 < best->timing.p50))
      best = &records[i];
  return best;
}

double Baseline_ratio(const Record *r, const Record *records, int n) {
  if ((r->status != REC_PASS && r->status != REC_FAIL) || isnan(r->timing.p50)) return NAN;
  const Record *b = Baseline_find(records, n, &r->shape);
  return b ? r->timing.p50 / b->timing.p50 : NAN;
}

bool Baseline_present(const Record *records, int n) {
  for (int i = 0; i < n; i++)
    if (Baseline_is(&records[i])) return true;
  return false;
}
