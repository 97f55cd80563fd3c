/* Replicate outputs (measure_private.h): where a large kernel's buffers land changes its
 * steady-state speed from one allocation to the next (fa3 at 4x16x2048x128 on an H100: p50 of
 * 212 or 231 us by process, and within one process after its buffers were allocated anew; eight
 * independently allocated Q/K/V sets in one process agreed within 0.3 %: docs/statistics.md).
 * The timed launches of a large shape rotate through independently allocated outputs; each
 * output's median is a replicate, and the verdicts' intervals include their spread. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/measure_private.h"
#include "bench/stats.h"
#include "bench/worker/tensor_maps.h"
#include "common/util.h"

bool Replicates_prepare(Gpu *g, const AttnParams *p0, const Shape *s, Replicates *r, char *err,
                        size_t errsize) {
  memset(r, 0, sizeof *r);
  r->n = 1;
  r->p[0] = *p0;
  size_t bytes = Shape_elems(s) * 2, l2 = g->props.l2_bytes > 0 ? (size_t)g->props.l2_bytes : 0;
  /* Only where the output cannot stay in L2 anyway: a small shape's warm-L2 p50 is unchanged. */
  if (!l2 || bytes * 4 < l2) return true;
  for (int k = 1; k < MEASURE_REPLICATES; k++) {
    void *o;
    if (cudaMalloc(&o, bytes) != cudaSuccess) { /* fewer replicates, not no record */
      cudaGetLastError();
      break;
    }
    r->o[k] = o;
    r->p[k] = *p0;
    r->p[k].o = o;
    if (!TensorMaps_fill(&g->plan, s, &r->p[k], err, errsize)) return false;
    r->n = k + 1;
  }
  return true;
}

/* Timed launch i of reps writes output (reps - 1 - i) % n: the last one the worker's own O. */
static int Replicates_of(const Replicates *r, int i, int reps) {
  return ((reps - 1 - i) % r->n + r->n) % r->n;
}

const AttnParams *Replicates_params(const Replicates *r, int i, int reps) {
  return &r->p[Replicates_of(r, i, reps)];
}

static int Replicates_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void Replicates_medians(const Replicates *r, const double *samples, int n, int reps, Timing *t) {
  t->nreplicates = 0;
  if (r->n < 2 || n < 3 * r->n) return;
  double *x = Util_xmalloc(sizeof(double) * (size_t)n);
  for (int k = 0; k < r->n && k < RECORD_REPLICATES_MAX; k++) {
    int m = 0;
    for (int i = 0; i < n; i++)
      if (Replicates_of(r, i, reps) == k && isfinite(samples[i]) && samples[i] > 0) x[m++] = samples[i];
    if (m == 0) continue;
    qsort(x, (size_t)m, sizeof *x, Replicates_cmp);
    t->replicate_p50[t->nreplicates++] = Stats_percentile(x, m, 50);
  }
  free(x);
}

void Replicates_release(Replicates *r) {
  for (int k = 1; k < MEASURE_REPLICATES; k++) cudaFree(r->o[k]);
  memset(r, 0, sizeof *r);
}
