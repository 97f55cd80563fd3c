/* benchtop
name      swizzle
summary   XOR-swizzled shared-memory tiles, no padding
rung      3
builds_on smem
head_dims 64 128
arch      sm_80
tolerance 2e-3
kernel attn_fwd grid(cdiv(S, 64), B * H) block(128)
*/
// Rung 3 of the ladder: swizzle. XOR-swizzled shared-memory tiles, no padding.
// Changes from smem: the K/V tiles keep their natural 128/256-byte rows (no pad bytes wasted),
// and the 16-byte chunk c of key row r is stored at chunk c ^ (r % 8). The 8 lanes of a
// quarter-warp that read chunk c of 8 consecutive key rows now read 8 different chunk slots,
// i.e. 8 different groups of 4 banks. PV reads stay within one row, only permuted.
// Expect in the metrics: zero tensor-pipe activity, shared-load bank conflicts near zero (as
// smem pad=8) with less shared memory per block; timing close to smem pad=8.
#include "attn_params.h"
#include "common.cuh"

#define BM 64                 // query rows per block (must match the declaration above)
#define BN 32                 // keys per tile: one per lane
#define THREADS 128           // 4 warps
#define RPW 16                // query rows per warp
#define NCHUNK (HEAD_DIM / 8) // 16-byte chunks per row
#define DPL (HEAD_DIM / 32)   // output columns per lane

static_assert(BM == RPW * THREADS / 32, "every warp owns RPW rows");
static_assert(NCHUNK % 8 == 0, "the swizzle permutes chunks within groups of 8");

extern "C" __global__ void __launch_bounds__(THREADS) attn_fwd(const AttnParams p) {
  __shared__ __align__(16) __half q_s[BM][HEAD_DIM]; // read as a broadcast: no padding needed
  __shared__ __align__(16) __half k_s[BN][HEAD_DIM];
  __shared__ __align__(16) __half v_s[BN][HEAD_DIM];
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
      const int cs = bt_swizzle(r, c) * 8;
      *reinterpret_cast<uint4 *>(&k_s[r][cs]) = bt_load_chunk(K, bh, S, k0 + r, c * 8, HEAD_DIM);
      *reinterpret_cast<uint4 *>(&v_s[r][cs]) = bt_load_chunk(V, bh, S, k0 + r, c * 8, HEAD_DIM);
    }
    __syncthreads();

    // Scores: this lane's key against the warp's 16 rows.
    float s[RPW];
#pragma unroll
    for (int r = 0; r < RPW; r++) s[r] = 0.f;
#pragma unroll 1
    for (int c = 0; c < NCHUNK; c++) {
      float kf[8];
      bt_unpack8(*reinterpret_cast<const uint4 *>(&k_s[lane][bt_swizzle(lane, c) * 8]), kf);
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
      for (int jj = 0; jj < 4; jj++) {
        const int col = lane * DPL; // logical column -> swizzled chunk, same offset in it
        bt_load_halves<DPL>(&v_s[j + jj][bt_swizzle(j + jj, col / 8) * 8 + col % 8], vf[jj]);
      }
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
