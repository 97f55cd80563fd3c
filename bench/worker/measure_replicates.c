/* Replicate buffer sets (measure_private.h): where a kernel's buffers land changes its
 * steady-state speed from one allocation to the next (fa3 at 4x16x2048x128 on an H100: p50 of
 * 212 or 231 us by process; fp8 at 2x8x512x64: 12.4 or 14.3 us by process). Rotating only the
 * output, or only Q/K/V, did not reproduce the two speeds inside one process
 * (docs/statistics.md), so the timed launches rotate through whole sets: every buffer the entry
 * uses (inputs, output, workspace, split-KV partials, fp8 copies) allocated anew and copied from
 * the worker's own. Each set's median is a replicate, and the verdicts' intervals include their
 * spread. A set is an independent draw of the placement a separate process would get. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/integrity.h"
#include "bench/worker/measure_private.h"
#include "bench/stats.h"
#include "bench/worker/tensor_maps.h"
#include "common/util.h"

/* Whole sets where all of them fit in half the L2, or where one set exceeds the L2 (nothing
 * stays anyway). Between the two, rotating would turn a warm-L2 measurement cold: only a large
 * output is rotated then, as under an L2 window (the window covers the worker's own K and V).
 * Small sets are timed in consecutive blocks, one set after another: rotating launch by launch
 * cost wmma 4-6 % at 2x8x512x64 on an H100 (its lines left L2 between a set's launches), while a
 * block's first launch is the only one that finds its set cold. */
typedef enum { REP_NONE, REP_OUTPUT, REP_WHOLE } RepKind;

static RepKind Replicates_kind(const Gpu *g, size_t set, size_t o_bytes, bool l2_persist) {
  size_t l2 = g->props.l2_bytes > 0 ? (size_t)g->props.l2_bytes : 0;
  if (!l2) return REP_NONE;
  bool large = o_bytes * 4 >= l2;
  if (!l2_persist && (set * MEASURE_REPLICATES <= l2 / 2 || set > l2)) return REP_WHOLE;
  return large ? REP_OUTPUT : REP_NONE;
}

/* Points every buffer pointer of p that lies in a region at the same offset of that region's
 * copy (the fp8 scales are three pointers into one region). */
static void Replicates_rebase(AttnParams *p, const BufferRegion *r, int nr, void *const *copy) {
  void **fields[] = {(void **)&p->q, (void **)&p->k, (void **)&p->v, &p->o, (void **)&p->o_f32,
                     (void **)&p->lse, &p->q8, &p->k8, &p->v8, (void **)&p->q_scale,
                     (void **)&p->k_scale, (void **)&p->v_scale, &p->workspace};
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
    uintptr_t a = (uintptr_t)*fields[f];
    for (int i = 0; a && i < nr; i++) {
      uintptr_t lo = (uintptr_t)r[i].ptr;
      if (copy[i] && a >= lo && a < lo + (r[i].used ? r[i].used : 1)) {
        *fields[f] = (char *)copy[i] + (a - lo);
        break;
      }
    }
  }
}

/* One more set: each region copied into its own allocation, with guard room on both sides so a
 * kernel that strays writes into this set's padding, not into another buffer. False: no memory
 * (fewer sets, not no record). */
static bool Replicates_allocSet(Gpu *g, const BufferRegion *r, int nr, RepKind kind, void **mem,
                                void **copy) {
  for (int i = 0; i < nr; i++) {
    mem[i] = copy[i] = NULL;
    if (r[i].used == 0 || (kind == REP_OUTPUT && strcmp(r[i].name, "O") != 0)) continue;
    void *m;
    if (cudaMalloc(&m, r[i].used + 2 * INTEGRITY_GUARD_BYTES) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    mem[i] = m;
    copy[i] = (char *)m + INTEGRITY_GUARD_BYTES;
    if (cudaMemcpyAsync(copy[i], r[i].ptr, r[i].used, cudaMemcpyDeviceToDevice, g->stream) !=
        cudaSuccess) {
      cudaGetLastError();
      return false;
    }
  }
  return true;
}

bool Replicates_prepare(Gpu *g, const AttnParams *p0, const Shape *s, const BufferNeeds *need,
                        bool l2_persist, Replicates *r, char *err, size_t errsize) {
  memset(r, 0, sizeof *r);
  r->n = 1;
  r->p[0] = *p0;
  BufferRegion reg[BUFFERS_REGIONS_MAX];
  int nr = Buffers_regions(&g->buf, need, reg);
  size_t set = 0; /* the bytes of one whole set */
  for (int i = 0; i < nr; i++) set += reg[i].used;
  RepKind kind = Replicates_kind(g, set, Shape_elems(s) * 2, l2_persist);
  if (kind == REP_NONE) return true;
  r->whole = kind == REP_WHOLE;
  r->blocks = r->whole && set <= (size_t)g->props.l2_bytes;
  for (int k = 1; k < MEASURE_REPLICATES; k++) {
    void *copy[BUFFERS_REGIONS_MAX];
    bool got = Replicates_allocSet(g, reg, nr, kind, r->mem[k], copy);
    if (!got) {
      for (int i = 0; i < nr; i++) cudaFree(r->mem[k][i]), r->mem[k][i] = NULL;
      break;
    }
    r->p[k] = *p0;
    Replicates_rebase(&r->p[k], reg, nr, copy);
    r->n = k + 1;
    if (!TensorMaps_fill(&g->plan, s, &r->p[k], err, errsize)) return false;
  }
  return Gpu_ok(cudaStreamSynchronize(g->stream), "copying the replicate buffers", err, errsize);
}

int Replicates_spanBlocks(const Replicates *r, int reps) {
  int g = r->span_blocks < reps / 3 ? r->span_blocks : reps / 3;
  return g >= 2 ? g : 0;
}

int Replicates_blockOf(const Replicates *r, int i, int reps) {
  int g = Replicates_spanBlocks(r, reps);
  return g ? (int)((long long)i * g / reps) : 0;
}

/* The set of timed launch i of reps: the last launch is always on the worker's own buffers.
 * Under --span each time block keeps one set (the last block set 0). */
static int Replicates_setOf(const Replicates *r, int i, int reps) {
  int g = Replicates_spanBlocks(r, reps);
  if (g) return (g - 1 - Replicates_blockOf(r, i, reps)) % r->n;
  int back = reps - 1 - i;
  if (r->blocks) return (int)((long long)back * r->n / reps);
  return (back % r->n + r->n) % r->n;
}

/* Which replicate launch i's sample belongs to: its time block under --span, else its set. */
static int Replicates_groupOf(const Replicates *r, int i, int reps) {
  return Replicates_spanBlocks(r, reps) ? Replicates_blockOf(r, i, reps) : Replicates_setOf(r, i, reps);
}

const AttnParams *Replicates_params(const Replicates *r, int i, int reps) {
  return &r->p[Replicates_setOf(r, i, reps)];
}

static int Replicates_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void Replicates_medians(const Replicates *r, const double *samples, int n, int reps, Timing *t) {
  t->nreplicates = 0;
  int groups = Replicates_spanBlocks(r, reps) ? Replicates_spanBlocks(r, reps) : r->n;
  if (groups < 2 || n < 3 * groups) return;
  double *x = Util_xmalloc(sizeof(double) * (size_t)n);
  for (int k = 0; k < groups && k < RECORD_REPLICATES_MAX; k++) {
    int m = 0;
    for (int i = 0; i < n; i++)
      if (Replicates_groupOf(r, i, reps) == k && isfinite(samples[i]) && samples[i] > 0) x[m++] = samples[i];
    if (m == 0) continue;
    qsort(x, (size_t)m, sizeof *x, Replicates_cmp);
    t->replicate_p50[t->nreplicates++] = Stats_percentile(x, m, 50);
  }
  free(x);
}

void Replicates_release(Replicates *r) {
  for (int k = 1; k < MEASURE_REPLICATES; k++)
    for (int i = 0; i < BUFFERS_REGIONS_MAX; i++) cudaFree(r->mem[k][i]);
  memset(r, 0, sizeof *r);
}
