/* benchtop
name      naive
summary   1 thread per query row, online softmax, no shared memory
rung      1
head_dims 64 128
arch      sm_80
tolerance 2e-3
kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)
*/
// Rung 1 of the ladder: naive.
// One thread per query row, online softmax over every key one at a time, no shared memory:
// each thread reads its K and V rows straight from global memory (the 32 lanes of a warp read
// the same key row, so L1 serves a broadcast). fp32 scores, running max/sum and output
// accumulator in registers, rescaled by exp2(m_old - m_new) at every key (a branch-free
// update: the rescale-only-when-the-max-grows branch made ptxas spill at D = 128).
// Expect in the metrics: zero tensor-pipe activity, zero shared-memory traffic (so no bank
// conflicts), a high L2/L1 hit rate, long latency; occupancy bounded by registers (the fp32
// accumulator is D floats per thread).
#include "attn_params.h"
#include "common.cuh"

#define NAIVE_THREADS 128 // must match the declaration above
#define NCHUNK (HEAD_DIM / 8) // 16-byte chunks of 8 halves per row

extern "C" __global__ void __launch_bounds__(NAIVE_THREADS) attn_fwd(const AttnParams p) {
  const int S = p.S;
  const int i = blockIdx.x * NAIVE_THREADS + threadIdx.x; // this thread's query row
  const int bh = blockIdx.y;
  if (i >= S) return; // no barriers in this kernel: idle threads may leave
  const __half *Q = static_cast<const __half *>(p.q);
  const __half *K = static_cast<const __half *>(p.k);
  const __half *V = static_cast<const __half *>(p.v);

  // q stays fp16 (exact), converted per use. At D = 64 it lives in registers; at D = 128 the
  // fp32 accumulator alone takes 128 registers, so q is re-read from L1 for every key instead
  // of spilling.
  const uint4 *qrow = reinterpret_cast<const uint4 *>(Q + bt_row_offset(bh, S, i, HEAD_DIM));
#if HEAD_DIM <= 64
  uint4 q[NCHUNK];
#pragma unroll
  for (int c = 0; c < NCHUNK; c++) q[c] = qrow[c];
#define NAIVE_Q(c) q[c]
#else
#define NAIVE_Q(c) __ldg(&qrow[c])
#endif

  float acc[HEAD_DIM];
#pragma unroll
  for (int d = 0; d < HEAD_DIM; d++) acc[d] = 0.f;
  float m = -INFINITY, l = 0.f;
  const float scale_log2 = p.scale * BT_LOG2E; // exp(x * scale) = exp2(x * scale * log2 e)
  const int kend = p.causal ? i + 1 : S;

  for (int j = 0; j < kend; j++) {
    const uint4 *krow = reinterpret_cast<const uint4 *>(K + bt_row_offset(bh, S, j, HEAD_DIM));
    float dot = 0.f;
#pragma unroll
    for (int c = 0; c < NCHUNK; c++) {
      float qf[8], kf[8];
      bt_unpack8(NAIVE_Q(c), qf);
      bt_unpack8(krow[c], kf);
#pragma unroll
      for (int t = 0; t < 8; t++) dot = fmaf(qf[t], kf[t], dot);
    }
    const float s = dot * scale_log2;
    // Online softmax: a new running max rescales what was summed so far (first key: by 0).
    const float m_new = fmaxf(m, s);
    const float corr = bt_rescale(m, m_new);
    const float pj = exp2f(s - m_new);
    m = m_new;
    l = fmaf(l, corr, pj);
    const uint4 *vrow = reinterpret_cast<const uint4 *>(V + bt_row_offset(bh, S, j, HEAD_DIM));
#pragma unroll
    for (int c = 0; c < NCHUNK; c++) {
      float vf[8];
      bt_unpack8(vrow[c], vf);
#pragma unroll
      for (int t = 0; t < 8; t++) acc[c * 8 + t] = fmaf(acc[c * 8 + t], corr, pj * vf[t]);
    }
  }

  // l >= 1: the key holding the row max contributed exp2(0).
  const float inv_l = 1.f / l;
  uint4 *orow = reinterpret_cast<uint4 *>(static_cast<__half *>(p.o) +
                                          bt_row_offset(bh, S, i, HEAD_DIM));
#pragma unroll
  for (int c = 0; c < NCHUNK; c++) {
    uint4 out;
    __half2 *h = reinterpret_cast<__half2 *>(&out);
#pragma unroll
    for (int t = 0; t < 4; t++)
      h[t] = __floats2half2_rn(acc[c * 8 + 2 * t] * inv_l, acc[c * 8 + 2 * t + 1] * inv_l);
    orow[c] = out;
  }
}
