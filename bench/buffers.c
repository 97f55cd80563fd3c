/* Device buffers for one entry, grown on demand and kept between records (the worker stays
 * warm). Oversized shapes are refused here, before any launch, with the sizes named. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/buffers.h"
#include "common/util.h"

static double Buffers_gib(size_t b) { return (double)b / (1024.0 * 1024.0 * 1024.0); }

static void Buffers_release(GpuBuffers *b) {
  void **ptrs[] = {&b->q, &b->k, &b->v, &b->o, (void **)&b->ref, &b->workspace, &b->q8, &b->k8,
                   &b->v8, (void **)&b->scales, (void **)&b->partial_o, (void **)&b->partial_lse};
  for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) {
    if (*ptrs[i]) cudaFree(*ptrs[i]);
    *ptrs[i] = NULL;
  }
  b->elems = b->workspace_bytes = b->partial_elems = b->nscales = 0;
  memset(&b->shape, 0, sizeof b->shape);
}

bool Buffers_ensure(Gpu *g, const BufferNeeds *n, char *err, size_t errsize) {
  GpuBuffers *b = &g->buf;
  size_t nscales = 3 * (size_t)n->bh;
  bool fits = n->elems <= b->elems && n->workspace_bytes <= b->workspace_bytes &&
              n->partial_elems <= b->partial_elems && (!n->fp8 || (b->q8 && nscales <= b->nscales));
  size_t flush_need = n->cold_l2 ? DeviceProps_flushBytes(&g->props) : 0;
  if (fits && flush_need <= b->flush_bytes) return true;

  size_t e = n->elems > b->elems ? n->elems : b->elems;
  size_t ws = n->workspace_bytes > b->workspace_bytes ? n->workspace_bytes : b->workspace_bytes;
  size_t pe = n->partial_elems > b->partial_elems ? n->partial_elems : b->partial_elems;
  bool fp8 = n->fp8 || b->q8;
  if (nscales < b->nscales) nscales = b->nscales;
  size_t tensors = 4 * e * 2, ref = e * 4, f8 = fp8 ? 3 * e + nscales * 4 : 0;
  size_t partial = pe ? pe * 4 + pe / (size_t)(n->D ? n->D : 1) * 4 : 0;
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
    {&b->q, e * 2, "allocating Q"}, {&b->k, e * 2, "allocating K"},
    {&b->v, e * 2, "allocating V"}, {&b->o, e * 2, "allocating O"},
    {(void **)&b->ref, e * 4, "allocating the reference output"},
    {&b->workspace, ws, "allocating the variant's workspace"},
    {&b->q8, fp8 ? e : 0, "allocating fp8 Q"}, {&b->k8, fp8 ? e : 0, "allocating fp8 K"},
    {&b->v8, fp8 ? e : 0, "allocating fp8 V"},
    {(void **)&b->scales, fp8 ? nscales * 4 : 0, "allocating fp8 scales"},
    {(void **)&b->partial_o, pe * 4, "allocating split-KV partial outputs"},
    {(void **)&b->partial_lse, pe / (size_t)(n->D ? n->D : 1) * 4,
     "allocating split-KV partial statistics"},
  };
  for (size_t i = 0; i < sizeof allocs / sizeof allocs[0]; i++) {
    if (allocs[i].bytes == 0) continue;
    if (!Gpu_ok(cudaMalloc(allocs[i].ptr, allocs[i].bytes), allocs[i].what, err, errsize)) {
      Buffers_release(b); /* nothing half-made stays allocated */
      return false;
    }
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
  b->workspace_bytes = ws;
  b->partial_elems = pe;
  return true;
}
