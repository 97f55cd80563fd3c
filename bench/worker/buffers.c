/* Device buffers for one entry, grown on demand and kept between records (the worker stays
 * warm). Oversized shapes are refused here, before any launch, with the sizes named. Every
 * buffer a kernel is handed has a guard band on each side (bench/worker/integrity.h), inside its
 * allocation, so a write a few bytes out of bounds lands where the engine looks, not in the
 * next buffer. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/worker/buffers.h"
#include "bench/worker/integrity.h"
#include "common/util.h"

static double Buffers_gib(size_t b) { return (double)b / (1024.0 * 1024.0 * 1024.0); }

static void Buffers_release(GpuBuffers *b) {
  void **ptrs[] = {&b->q, &b->k, &b->v, &b->o, (void **)&b->ref, &b->workspace, &b->q8, &b->k8,
                   &b->v8, (void **)&b->scales, (void **)&b->partial_o, (void **)&b->partial_lse};
  for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) {
    if (*ptrs[i]) cudaFree((char *)*ptrs[i] - INTEGRITY_GUARD_BYTES);
    *ptrs[i] = NULL;
  }
  b->elems = b->kv_elems = b->workspace_bytes = b->partial_o_bytes = b->partial_lse_bytes = b->nscales = 0;
  memset(&b->shape, 0, sizeof b->shape);
}

void Buffers_free(GpuBuffers *b) {
  Buffers_release(b);
  if (b->flush) cudaFree(b->flush);
  if (b->sums) cudaFree(b->sums);
  b->flush = NULL;
  b->sums = NULL;
  b->flush_bytes = 0;
}

bool Buffers_ensure(Gpu *g, const BufferNeeds *n, char *err, size_t errsize) {
  GpuBuffers *b = &g->buf;
  size_t nscales = 3 * (size_t)n->bh;
  bool fits = n->elems <= b->elems && n->kv_elems <= b->kv_elems && n->workspace_bytes <= b->workspace_bytes &&
              n->partial_o_bytes <= b->partial_o_bytes && n->partial_lse_bytes <= b->partial_lse_bytes &&
              (!n->fp8 || (b->q8 && nscales <= b->nscales));
  size_t flush_need = n->cold_l2 ? DeviceProps_flushBytes(&g->props) : 0;
  if (fits && flush_need <= b->flush_bytes) return true;

  size_t e = n->elems > b->elems ? n->elems : b->elems;
  size_t kve = n->kv_elems > b->kv_elems ? n->kv_elems : b->kv_elems;
  size_t ws = n->workspace_bytes > b->workspace_bytes ? n->workspace_bytes : b->workspace_bytes;
  size_t po = n->partial_o_bytes > b->partial_o_bytes ? n->partial_o_bytes : b->partial_o_bytes;
  size_t pl = n->partial_lse_bytes > b->partial_lse_bytes ? n->partial_lse_bytes : b->partial_lse_bytes;
  bool fp8 = n->fp8 || b->q8;
  if (nscales < b->nscales) nscales = b->nscales;
  size_t tensors = 2 * e * 2 + 2 * kve * 2, ref = e * 4, f8 = fp8 ? 3 * e + nscales * 4 : 0;
  size_t partial = po + pl;
  size_t need = tensors + ref + ws + f8 + partial + (flush_need > b->flush_bytes ? flush_need : 0);

  Buffers_release(b);
  size_t free_b = 0, total_b = 0;
  if (!Gpu_ok(cudaMemGetInfo(&free_b, &total_b), "reading free device memory", err, errsize))
    return false;
  if (need > free_b) {
    snprintf(err, errsize,
             "shape needs %.2f GiB on the GPU (Q,K,V,O %.2f + fp32 reference %.2f + workspace %.2f"
             " + other %.2f) but only %.2f of %.2f GiB are free",
             Buffers_gib(need), Buffers_gib(tensors), Buffers_gib(ref), Buffers_gib(ws),
             Buffers_gib(f8 + partial + flush_need), Buffers_gib(free_b), Buffers_gib(total_b));
    return false;
  }
  const struct {
    void **ptr;
    size_t bytes;
    const char *what;
  } allocs[] = {
    {&b->q, e * 2, "allocating Q"}, {&b->k, kve * 2, "allocating K"},
    {&b->v, kve * 2, "allocating V"}, {&b->o, e * 2, "allocating O"},
    {(void **)&b->ref, e * 4, "allocating the reference output"},
    {&b->workspace, ws, "allocating the variant's workspace"},
    {&b->q8, fp8 ? e : 0, "allocating fp8 Q"}, {&b->k8, fp8 ? e : 0, "allocating fp8 K"},
    {&b->v8, fp8 ? e : 0, "allocating fp8 V"},
    {(void **)&b->scales, fp8 ? nscales * 4 : 0, "allocating fp8 scales"},
    {(void **)&b->partial_o, po, "allocating split-KV partial outputs"},
    {(void **)&b->partial_lse, pl, "allocating split-KV partial statistics"},
  };
  for (size_t i = 0; i < sizeof allocs / sizeof allocs[0]; i++) {
    if (allocs[i].bytes == 0) continue;
    char *base = NULL;
    if (!Gpu_ok(cudaMalloc((void **)&base, allocs[i].bytes + 2 * INTEGRITY_GUARD_BYTES),
                allocs[i].what, err, errsize)) {
      Buffers_release(b); /* nothing half-made stays allocated */
      return false;
    }
    *allocs[i].ptr = base + INTEGRITY_GUARD_BYTES; /* 256-byte aligned still (TMA wants 16) */
  }
  if (fp8) b->nscales = nscales;
  if (flush_need > b->flush_bytes) {
    if (b->flush) cudaFree(b->flush);
    b->flush = NULL;
    b->flush_bytes = 0;
    if (!Gpu_ok(cudaMalloc(&b->flush, flush_need), "allocating the L2 flush buffer", err,
                errsize)) {
      Buffers_release(b);
      return false;
    }
    b->flush_bytes = flush_need;
  }
  b->elems = e;
  b->kv_elems = kve;
  b->workspace_bytes = ws;
  b->partial_o_bytes = po;
  b->partial_lse_bytes = pl;
  return true;
}

int Buffers_regions(const GpuBuffers *b, const BufferNeeds *n, BufferRegion *out) {
  size_t sc = 3 * (size_t)n->bh * 4;
  const BufferRegion all[] = {
    {"Q", b->q, n->elems * 2, b->elems * 2, true},
    {"K", b->k, n->kv_elems * 2, b->kv_elems * 2, true},
    {"V", b->v, n->kv_elems * 2, b->kv_elems * 2, true},
    {"O", b->o, n->elems * 2, b->elems * 2, false},
    {"the workspace", b->workspace, n->workspace_bytes, b->workspace_bytes, false},
    {"fp8 Q", b->q8, n->elems, b->elems, false},
    {"fp8 K", b->k8, n->elems, b->elems, false},
    {"fp8 V", b->v8, n->elems, b->elems, false},
    {"the fp8 scales", b->scales, sc, b->nscales * 4, false},
    {"the split-KV partial outputs", b->partial_o, n->partial_o_bytes, b->partial_o_bytes, false},
    {"the split-KV partial statistics", b->partial_lse, n->partial_lse_bytes, b->partial_lse_bytes, false},
  };
  int count = 0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    if (!all[i].ptr) continue;
    out[count] = all[i];
    /* A buffer this entry does not use (kept from an earlier one): its band sits at its start. */
    if (out[count].used > out[count].capacity) out[count].used = out[count].capacity;
    count++;
  }
  return count;
}
