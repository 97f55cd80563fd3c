/* benchtop
name      smem
summary   K/V tiles staged in shared memory
rung      2
builds_on naive
head_dims 64 128
arch      sm_80
tolerance 2e-3
knob pad PAD {0, 8} : halves added to each 128-byte K/V row (0: 32-way bank conflicts)
# 64 query rows a block, 4 warps of 16 rows; the K/V tiles are static shared memory
kernel attn_fwd grid(cdiv(S, 64), B * H) block(128)
preset pad=0
preset pad=8
*/
// Rung 2 of the ladder: smem. K/V tiles staged in shared memory (knob PAD: 0 or 8 halves).
// Changes from naive: a block of 4 warps owns 64 query rows (16 per warp) and walks the keys
// in tiles of 32; the block loads each K/V tile into shared memory once (coalesced 16-byte
// loads) and all 64 rows reuse it, instead of every thread streaming K and V from L1/L2.
// Scores: lane j of a warp computes key j of the tile against the warp's 16 rows (the Q tile
// is read as a broadcast), online softmax per row with warp shuffles, probabilities through a
// small per-warp shared buffer, then PV with each lane owning D/32 output columns.
// Expect in the metrics: zero tensor-pipe activity. With pad=0 a K row is 128 bytes (D=64)
// or 256 bytes (D=128), so the 8 lanes of each quarter-warp reading 16 bytes from 8 different
// key rows all hit the same 4 banks: heavy shared-load bank conflicts (8 wavefronts per
// quarter, 32 per warp instead of 4). pad=8 shifts each row by 16 bytes and removes them.
#include "attn_params.h"
#include "common.cuh"

#ifndef PAD
#define PAD 0
#endif

#define BM 64                 // query rows per block (must match the declaration above)
#define BN 32                 // keys per tile: one per lane
#define THREADS 128           // 4 warps
#define RPW 16                // query rows per warp
#define NCHUNK (HEAD_DIM / 8) // 16-byte chunks per row
#define DPL (HEAD_DIM / 32)   // output columns per lane
#define KSTRIDE (HEAD_DIM + PAD)

static_assert(BM == RPW * THREADS / 32, "every warp owns RPW rows");
static_assert(PAD % 8 == 0, "rows stay 16-byte aligned");

extern "C" __global__ void __launch_bounds__(THREADS) attn_fwd(const AttnParams p) {
  __shared__ __align__(16) __half q_s[BM][HEAD_DIM]; // read as a broadcast: no padding needed
  __shared__ __align__(16) __half k_s[BN][KSTRIDE];
  __shared__ __align__(16) __half v_s[BN][KSTRIDE];
  __shared__ __align__(16) float p_s[BM][BN]; // rows of warp w are private to warp w

  const int S = p.S, bh = blockIdx.y, q0 = blockIdx.x * BM;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int row_base = warp * RPW; // first row of this warp inside the block's tile
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

    // Scores: this lane's key against the warp's 16 rows.
    float s[RPW];
#pragma unroll
    for (int r = 0; r < RPW; r++) s[r] = 0.f;
#pragma unroll 1
    for (int c = 0; c < NCHUNK; c++) {
      float kf[8];
      bt_unpack8(*reinterpret_cast<const uint4 *>(&k_s[lane][c * 8]), kf); // the conflicting load
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

    // PV: this lane's DPL columns for the warp's 16 rows. Masked keys have p = 0 and, past S,
    // zero-filled V rows.
#pragma unroll
    for (int r = 0; r < RPW; r++)
#pragma unroll
      for (int d = 0; d < DPL; d++) acc[r][d] *= s[r];
#pragma unroll 1
    for (int j = 0; j < BN; j += 4) {
      float vf[4][DPL];
#pragma unroll
      for (int jj = 0; jj < 4; jj++)
        bt_load_halves<DPL>(&v_s[j + jj][lane * DPL], vf[jj]);
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
