/* benchtop
name      cublas
summary   unfused: cuBLAS batched GEMM QK^T, softmax kernel, GEMM PV (PyTorch's math path)
rung      9
head_dims 64 128
arch      sm_80
tolerance 2e-3
hook   cublas_qk
kernel softmax_rows grid(S, B * H) block(256)
hook   cublas_pv
# fp32 scores and fp16 probabilities, [B*H, S, S] each
scratch workspace B * H * S * S * (4 + 2)
*/
// Rung 9 of the ladder: cublas, the unfused library baseline (what PyTorch's math backend
// does). The host runs cuBLAS strided-batched GEMM S = scale * Q K^T into fp32 scores, this
// kernel turns each score row into fp16 probabilities (masked causal softmax), and a second
// GEMM computes O = P V. Changes from the fused rungs: the S x S matrices go through global
// memory (6 bytes per score), so the cost grows with S^2 in bytes, not only in FLOPs.
// Expect in the metrics: the GEMMs show high tensor-pipe activity; this kernel shows none and
// is bandwidth-bound (high DRAM/L2 traffic, L2 hit rate depending on whether a row of
// scores stays resident); no shared-memory bank conflicts worth noting.
//
// p.workspace: fp32 scores [B*H][S][S], immediately followed by fp16 probabilities
// [B*H][S][S] (the declaration's scratch). One block of 256 threads per score row.
#include "attn_params.h"
#include "common.cuh"

#define SOFTMAX_THREADS 256 // must match the declaration above

// Online-softmax partial of a set of scores: its max m and sum of exp(x - m). Merging two
// partials rescales both sums to the larger max; an empty partial is (-inf, 0).
struct SoftmaxPart {
  float m, s;
};

__device__ __forceinline__ SoftmaxPart softmax_merge(SoftmaxPart a, SoftmaxPart b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return a; // both empty: avoids -inf - (-inf)
  SoftmaxPart r;
  r.m = m;
  r.s = (a.m == -INFINITY ? 0.f : a.s * expf(a.m - m)) + (b.m == -INFINITY ? 0.f : b.s * expf(b.m - m));
  return r;
}

extern "C" __global__ void __launch_bounds__(SOFTMAX_THREADS) softmax_rows(const AttnParams p) {
  __shared__ SoftmaxPart warp_parts[SOFTMAX_THREADS / 32];
  __shared__ SoftmaxPart row_part;

  const int S = p.S, i = blockIdx.x, bh = blockIdx.y;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const size_t row = (size_t)bh * S + i;
  const size_t matrix = (size_t)p.B * p.H * S * S; // elements of the whole score tensor
  const float *scores = static_cast<const float *>(p.workspace) + row * S;
  __half *probs = reinterpret_cast<__half *>(static_cast<float *>(p.workspace) + matrix) + row * S;
  const int visible = p.causal ? i + 1 : S; // keys 0 .. visible-1; at least key 0

  // One pass over the row: each thread's online (max, sum), then a block-wide merge.
  SoftmaxPart part = {-INFINITY, 0.f};
  for (int j = tid; j < visible; j += SOFTMAX_THREADS) {
    const float x = scores[j];
    if (x > part.m) {
      part.s = (part.m == -INFINITY ? 0.f : part.s * expf(part.m - x)) + 1.f;
      part.m = x;
    } else {
      part.s += expf(x - part.m);
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    SoftmaxPart other;
    other.m = __shfl_xor_sync(BT_FULL_MASK, part.m, o);
    other.s = __shfl_xor_sync(BT_FULL_MASK, part.s, o);
    part = softmax_merge(part, other);
  }
  if (lane == 0) warp_parts[warp] = part;
  __syncthreads();
  if (tid == 0) {
    SoftmaxPart all = warp_parts[0];
    for (int w = 1; w < SOFTMAX_THREADS / 32; w++) all = softmax_merge(all, warp_parts[w]);
    row_part = all;
  }
  __syncthreads();

  // The row's max contributes exp(0) = 1: s >= 1, no division by zero.
  const float m = row_part.m, inv_s = 1.f / row_part.s;
  for (int j = tid; j < S; j += SOFTMAX_THREADS)
    probs[j] = j < visible ? __float2half_rn(expf(scores[j] - m) * inv_s) : __float2half_rn(0.f);
}
