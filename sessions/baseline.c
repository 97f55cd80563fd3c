/* Ratios to the cudnn baseline (sessions/baseline.h). */
#include "sessions/baseline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

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

/* r's p50 over the baseline record b's; NaN without b or a p50 of r's. */
static double Baseline_over(const Record *r, const Record *b) {
  if (!b || (r->status != REC_PASS && r->status != REC_FAIL) || isnan(r->timing.p50)) return NAN;
  return r->timing.p50 / b->timing.p50;
}

double Baseline_ratio(const Record *r, const Record *records, int n) {
  return Baseline_over(r, Baseline_find(records, n, &r->shape));
}

void Baseline_ratios(const Record *records, int n, double *out) {
  /* The baseline records first (few), then each record against those alone. */
  int nb = 0;
  int *base = Util_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *base);
  for (int i = 0; i < n; i++)
    if (Baseline_is(&records[i])) base[nb++] = i;
  for (int i = 0; i < n; i++) {
    const Record *r = &records[i], *b = NULL;
    for (int k = 0; k < nb; k++) {
      const Record *c = &records[base[k]];
      if (Shape_equal(&c->shape, &r->shape) && (!b || c->timing.p50 < b->timing.p50)) b = c;
    }
    out[i] = Baseline_over(r, b);
  }
  free(base);
}

bool Baseline_present(const Record *records, int n) {
  for (int i = 0; i < n; i++)
    if (Baseline_is(&records[i])) return true;
  return false;
}
