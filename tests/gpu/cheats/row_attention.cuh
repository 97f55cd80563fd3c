// Shared by the cheating kernels (gpu_cheats.sh puts it before each of them): a correct
// attention, one thread per query row as the extra kernels are launched (naive's launch: 128
// rows per block, blockIdx.y = b * H + h). Slow and plain on purpose: a test fixture.
#include "attn_params.h"
#include <cuda_fp16.h>
#ifndef INFINITY /* NVRTC has no math.h */
#define INFINITY __int_as_float(0x7f800000)
#endif

__device__ __forceinline__ long long cheat_rows(const AttnParams &p) {
  return (long long)p.B * p.H * p.S;
}

// This thread's row, or -1 when it has none.
__device__ __forceinline__ long long cheat_row(const AttnParams &p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  return i < p.S ? (long long)blockIdx.y * p.S + i : -1;
}

__device__ void row_attention(const AttnParams &p, long long row) {
  const int i = (int)(row % p.S);
  const long long base = (row - i) * p.D; // this (b, h)'s first element
  const __half *q = (const __half *)p.q + row * p.D;
  const __half *k = (const __half *)p.k + base, *v = (const __half *)p.v + base;
  float acc[128], m = -INFINITY, l = 0.f;
  for (int d = 0; d < p.D; d++) acc[d] = 0.f;
  const int kend = p.causal ? i + 1 : p.S;
  for (int j = 0; j < kend; j++) {
    float s = 0.f;
    for (int d = 0; d < p.D; d++) s += __half2float(q[d]) * __half2float(k[(long long)j * p.D + d]);
    s *= p.scale;
    const float mn = fmaxf(m, s), c = expf(m - mn), e = expf(s - mn);
    l = l * c + e;
    for (int d = 0; d < p.D; d++) acc[d] = acc[d] * c + e * __half2float(v[(long long)j * p.D + d]);
    m = mn;
  }
  __half *o = (__half *)p.o + row * p.D;
  for (int d = 0; d < p.D; d++) o[d] = __float2half(acc[d] / l);
}
