/* benchtop
name      tiles
summary   smem with its tile shape as knobs: warps per block and query rows per warp
rung      2
builds_on smem
head_dims 64 128
arch      sm_80
tolerance 2e-3

knob warps WARPS 1..8 default 4  : warps per block (each owns rpw query rows)
knob rpw   RPW   {16, 8}         : query rows per warp
knob pad   PAD   {0, 8}          : halves added to each K/V row (0: bank conflicts)

# keys per tile: one per lane
let block_n = 32
let block_m = warps * rpw
# the Q tile [block_m][D] and two K/V tiles [32][D + pad] fp16, the probabilities [block_m][32] fp32
let smem = block_m * D * 2 + 2 * block_n * (D + pad) * 2 + block_m * block_n * 4
require smem <= 101376 : tiles: the tiles exceed 99 KiB of shared memory (fewer warps or rows)

kernel attn_fwd grid(cdiv(S, block_m), B * H) block(32 * warps) smem(smem)

preset warps=4,rpw=16,pad=8
preset warps=8,rpw=8,pad=8
preset warps=2,rpw=16,pad=0
preset warps=6,rpw=16,pad=8
*/
// An example of a user kernel (docs/kernel-declarations.md): smem.cu's algorithm with the
// block's shape as knobs, which the built-in rung keeps fixed at 4 warps of 16 rows. Copy it
// into ~/.config/benchtop/kernels (or any directory on the kernel path) and edit it.
// Per block: WARPS warps, each owning RPW query rows of one (b, h); K/V tiles of 32 keys (one
// per lane) staged in dynamic shared memory; lane j scores key j against the warp's rows, the
// online softmax runs per row with warp shuffles, PV with each lane owning D/32 columns.
#include "attn_params.h"
#include "common.cuh"

#ifndef WARPS
#define WARPS 4
#endif
#ifndef RPW
#define RPW 16
#endif
#ifndef PAD
#define PAD 0
#endif

#define THREADS (WARPS * 32)
#define BM (WARPS * RPW)      // query rows per block
#define BN 32                 // keys per tile: one per lane
#define NCHUNK (HEAD_DIM / 8) // 16-byte chunks per row
#define DPL (HEAD_DIM / 32)   // output columns per lane
#define KSTRIDE (HEAD_DIM + PAD)

static_assert(PAD % 8 == 0, "rows stay 16-byte aligned");
static_assert(HEAD_DIM % 32 == 0, "each lane owns D/32 output columns");

extern "C" __global__ void __launch_bounds__(THREADS) attn_fwd(const AttnParams p) {
  // The declaration's smem: q_s, k_s, v_s (fp16), p_s (fp32), each a multiple of 16 bytes.
  extern __shared__ __align__(16) unsigned char smem[];
  __half(*q_s)[HEAD_DIM] = reinterpret_cast<__half(*)[HEAD_DIM]>(smem);
  __half(*k_s)[KSTRIDE] = reinterpret_cast<__half(*)[KSTRIDE]>(smem + BM * HEAD_DIM * 2);
  __half(*v_s)[KSTRIDE] = k_s + BN;
  float(*p_s)[BN] = reinterpret_cast<float(*)[BN]>(smem + BM * HEAD_DIM * 2 + 2 * BN * KSTRIDE * 2);

  const int S = p.S, bh = blockIdx.y, q0 = blockIdx.x * BM;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int row_base = warp * RPW;
  const __half *Q = static_cast<const __half *>(p.q);
  const __half *K = static_cast<const __half *>(p.k);
  const __half *V = static_cast<const __half *>(p.v);
  const float scale_log2 = p.scale * BT_LOG2E;

  for (int e = tid; e < BM * NCHUNK; e += THREADS) {
    const int r = e / NCHUNK, c = e % NCHUNK;
    *reinterpret_cast<uint4 *>(&q_s[r][c * 8]) = bt_load_chunk(Q, bh, S, q0 + r, c * 8, HEAD_DIM);
  }

  float m[RPW], l[RPW], acc[RPW][DPL];
#pragma unroll
  for (int r = 0; r < RPW; r++) {
    m[r] = -INFINITY;
    l[r] = 0.f;
#pragma unroll
    for (int d = 0; d < DPL; d++) acc[r][d] = 0.f;
  }

  const int kend = bt_key_end(p, q0, BM);
  for (int k0 = 0; k0 < kend; k0 += BN) {
    __syncthreads(); // every warp is done with the previous K/V tile (and Q is stored)
    for (int e = tid; e < BN * NCHUNK; e += THREADS) {
      const int r = e / NCHUNK, c = e % NCHUNK;
      *reinterpret_cast<uint4 *>(&k_s[r][c * 8]) = bt_load_chunk(K, bh, S, k0 + r, c * 8, HEAD_DIM);
      *reinterpret_cast<uint4 *>(&v_s[r][c * 8]) = bt_load_chunk(V, bh, S, k0 + r, c * 8, HEAD_DIM);
    }
    __syncthreads();

    // Scores: this lane's key against the warp's rows.
    float s[RPW];
#pragma unroll
    for (int r = 0; r < RPW; r++) s[r] = 0.f;
#pragma unroll 1
    for (int c = 0; c < NCHUNK; c++) {
      float kf[8];
      bt_unpack8(*reinterpret_cast<const uint4 *>(&k_s[lane][c * 8]), kf);
#pragma unroll
      for (int r = 0; r < RPW; r++) {
        float qf[8];
        bt_unpack8(*reinterpret_cast<const uint4 *>(&q_s[row_base + r][c * 8]), qf);
#pragma unroll
        for (int t = 0; t < 8; t++) s[r] = fmaf(qf[t], kf[t], s[r]);
      }
    }

    // Online softmax, one row at a time across the warp; s[r] becomes the rescale factor.
    const int kj = k0 + lane;
#pragma unroll
    for (int r = 0; r < RPW; r++) {
      const float x = bt_visible(p, q0 + row_base + r, kj) ? s[r] * scale_log2 : -INFINITY;
      const float m_new = fmaxf(m[r], bt_warp_max(x));
      const float pj = exp2f(x - bt_safe_base(m_new)); // masked: exp2(-inf) = 0
      const float corr = bt_rescale(m[r], m_new);
      l[r] = fmaf(l[r], corr, bt_warp_sum(pj));
      m[r] = m_new;
      p_s[row_base + r][lane] = pj;
      s[r] = corr;
    }
    __syncwarp();

    // PV: this lane's DPL columns for the warp's rows. Masked keys have p = 0 and, past S,
    // zero-filled V rows.
#pragma unroll
    for (int r = 0; r < RPW; r++)
#pragma unroll
      for (int d = 0; d < DPL; d++) acc[r][d] *= s[r];
#pragma unroll 1
    for (int j = 0; j < BN; j += 4) {
      float vf[4][DPL];
#pragma unroll
      for (int jj = 0; jj < 4; jj++) bt_load_halves<DPL>(&v_s[j + jj][lane * DPL], vf[jj]);
#pragma unroll
      for (int r = 0; r < RPW; r++) {
        const float4 p4 = *reinterpret_cast<const float4 *>(&p_s[row_base + r][j]);
#pragma unroll
        for (int d = 0; d < DPL; d++) {
          float a = acc[r][d];
          a = fmaf(p4.x, vf[0][d], a);
          a = fmaf(p4.y, vf[1][d], a);
          a = fmaf(p4.z, vf[2][d], a);
          a = fmaf(p4.w, vf[3][d], a);
          acc[r][d] = a;
        }
      }
    }
  }

  // Rows past S are not written. A valid row saw key 0 in the first tile, so l >= 1.
  __half *O = static_cast<__half *>(p.o);
#pragma unroll
  for (int r = 0; r < RPW; r++) {
    const int qi = q0 + row_base + r;
    if (qi < S) {
      const float inv_l = 1.f / l[r];
      __half2 *dst = reinterpret_cast<__half2 *>(O + bt_row_offset(bh, S, qi, HEAD_DIM) + lane * DPL);
#pragma unroll
      for (int d = 0; d < DPL; d += 2)
        dst[d / 2] = __floats2half2_rn(acc[r][d] * inv_l, acc[r][d + 1] * inv_l);
    }
  }
}
