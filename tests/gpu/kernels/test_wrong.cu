/* benchtop
name      test_wrong
summary   Deliberately wrong (verification test): writes every element, but half of them are zero.
head_dims 64 128
arch      sm_80
tolerance 2e-3
kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)
*/
// Deliberately wrong (verification test): writes every element, but half of them are zero.
#include "attn_params.h"
#include <cuda_fp16.h>
extern "C" __global__ void attn_fwd(const AttnParams p) {
  long long row = (long long)blockIdx.y * p.S + blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x * blockDim.x + threadIdx.x >= p.S) return;
  const __half *v = (const __half *)p.v;
  __half *o = (__half *)p.o;
  for (int d = 0; d < p.D; d++) o[row * p.D + d] = (d & 1) ? __float2half(0.f) : v[row * p.D + d];
}
