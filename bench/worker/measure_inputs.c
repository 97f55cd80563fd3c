/* Inputs and their check: fresh random Q, K, V, a poisoned output, and the verification of
 * every output element against the fp32 reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/measure_private.h"
#include "common/util.h"


bool Measure_fill(Gpu *g, void *ptr, size_t n, ShapeDtype dtype, uint64_t seed, char *err,
                  size_t errsize) {
  unsigned blocks = (unsigned)((n + 255) / 256 > 4096 ? 4096 : (n + 255) / 256);
  unsigned long long nn = n, ss = seed;
  void *args[] = {&ptr, &nn, &ss};
  int fill = dtype == SHAPE_BF16 ? 5 : 0; /* fill_randn_bf16, fill_randn_half (bench/gpu.c) */
  return Gpu_ok(cudaLaunchKernel((const void *)g->util.kernels[fill], (dim3){blocks, 1, 1},
                                 (dim3){256, 1, 1}, args, 0, g->stream),
                "filling inputs with random values", err, errsize);
}

bool Measure_poison(Gpu *g, void *ptr, size_t n, char *err, size_t errsize) {
  unsigned long long nn = n;
  unsigned short v = POISON_BITS;
  void *args[] = {&ptr, &nn, &v};
  unsigned blocks = (unsigned)((n + 255) / 256 > 4096 ? 4096 : (n + 255) / 256);
  return Gpu_ok(cudaLaunchKernel((const void *)g->util.kernels[1], (dim3){blocks, 1, 1},
                                 (dim3){256, 1, 1}, args, 0, g->stream),
                "poisoning the output", err, errsize);
}

bool Measure_flushL2(Gpu *g, char *err, size_t errsize) {
  void *ptr = g->buf.flush;
  unsigned long long n = g->buf.flush_bytes / 4;
  static unsigned v = 1;
  v++;
  void *args[] = {&ptr, &n, &v};
  return Gpu_ok(cudaLaunchKernel((const void *)g->util.kernels[2],
                                 (dim3){DeviceProps_flushBlocks(&g->props), 1, 1},
                                 (dim3){512, 1, 1}, args, 0, g->stream),
                "flushing L2", err, errsize);
}

/* fp16 bits -> float, on the host. */
static float Measure_half(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    float f = ldexpf((float)man, -24);
    return sign ? -f : f;
  }
  if (exp == 31) bits = sign | 0x7f800000 | (man << 13);
  else bits = sign | ((exp + 112) << 23) | (man << 13);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* bf16 bits -> float: the top half of an fp32. */
static float Measure_bf16(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

bool Measure_verify(Gpu *g, const Shape *s, double tol, ErrorStats *es, char *err,
                    size_t errsize) {
  size_t n = Shape_elems(s);
  uint16_t *o = Util_xmalloc(n * 2);
  float *ref = Util_xmalloc(n * 4);
  cudaError_t e = cudaMemcpyAsync(o, g->buf.o, n * 2, cudaMemcpyDeviceToHost, g->stream);
  if (e == cudaSuccess) e = cudaMemcpyAsync(ref, g->buf.ref, n * 4, cudaMemcpyDeviceToHost, g->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(g->stream);
  if (e != cudaSuccess) {
    free(o);
    free(ref);
    Gpu_errorText(e, "copying the output back", err, errsize);
    return false;
  }
  double num = 0, den = 0, maxabs = 0;
  int64_t nan = 0, inf = 0, unwritten = 0;
  for (size_t i = 0; i < n; i++) {
    if (o[i] == POISON_BITS) { unwritten++; continue; }
    float x = s->dtype == SHAPE_BF16 ? Measure_bf16(o[i]) : Measure_half(o[i]);
    if (isnan(x)) { nan++; continue; }
    if (isinf(x)) { inf++; continue; }
    double d = (double)x - (double)ref[i];
    num += d * d;
    den += (double)ref[i] * ref[i];
    if (fabs(d) > maxabs) maxabs = fabs(d);
  }
  free(o);
  free(ref);
  es->checked = true;
  es->max_abs = maxabs;
  es->rel_l2 = den > 0 ? sqrt(num / den) : sqrt(num);
  es->nan_count = nan;
  es->inf_count = inf;
  es->unwritten = unwritten;
  es->tolerance = tol;
  return true;
}

