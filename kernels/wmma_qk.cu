/* benchtop
name      wmma_qk
summary   WMMA 16x16x16 tensor cores for QK^T, scalar PV
rung      5
builds_on cp_async
head_dims 64 128
arch      sm_80
tolerance 2e-3
# 4 warps, 64 query rows a block (16 a warp)
kernel attn_fwd grid(cdiv(S, 64), B * H) block(128)
*/
// Rung 5 of the ladder: wmma_qk. Tensor cores (nvcuda::wmma 16x16x16, fp16 in, fp32 out) for
// QK^T; softmax and PV stay scalar fp32.
// Changes from cp_async: each warp keeps its 16 query rows as WMMA A fragments in registers
// and multiplies them with the K tile (read as a column-major B fragment) into a 16 x 32 fp32
// score tile in shared memory; two lanes per row run the online softmax on it, and PV is the
// scalar loop of the earlier rungs. WMMA loads need a plain strided layout, so the tiles are
// padded by 8 halves per row (ldm = D + 8) instead of XOR-swizzled, and loaded with plain
// 16-byte loads: one variable at a time (the tensor cores), not the pipeline.
// Expect in the metrics: tensor-pipe activity above zero but low (only QK^T, a third of the
// FLOPs counting PV's scalar work, uses it); few shared-memory bank conflicts.
#include <mma.h>

#include "attn_params.h"
#include "common.cuh"

using namespace nvcuda;

#define BM 64                 // query rows per block (must match the declaration above)
#define BN 32                 // keys per tile
#define THREADS 128           // 4 warps of 16 rows
#define NCHUNK (HEAD_DIM / 8) // 16-byte chunks per row
#define DPL (HEAD_DIM / 32)   // PV output columns per lane
#define LDK (HEAD_DIM + 8)    // padded row of the Q/K/V tiles (halves; WMMA needs % 8 == 0)
#define LDS (BN + 4)          // padded row of the score tile (floats; WMMA needs % 4 == 0)

static_assert(2 * BN == BM, "the Q tile is staged in the K/V buffer");

typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> FragQ;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> FragKt;
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> FragS;

extern "C" __global__ void __launch_bounds__(THREADS, 1) attn_fwd(const AttnParams p) {
  // Rows 0..BN-1: K tile, BN..2BN-1: V tile; before the loop: the whole Q tile (BM rows).
  __shared__ __align__(32) __half kv_s[2 * BN][LDK];
  __shared__ __align__(32) float s_s[THREADS / 32][16][LDS]; // per warp: scores, then P

  const int S = p.S, bh = blockIdx.y, q0 = blockIdx.x * BM;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const __half *Q = static_cast<const __half *>(p.q);
  const __half *K = static_cast<const __half *>(p.k);
  const __half *V = static_cast<const __half *>(p.v);
  const float scale_log2 = p.scale * BT_LOG2E;

  // Q tile (zero past S) through shared memory into this warp's A fragments.
  for (int e = tid; e < BM * NCHUNK; e += THREADS) {
    const int r = e / NCHUNK, c = e % NCHUNK;
    *reinterpret_cast<uint4 *>(&kv_s[r][c * 8]) = bt_load_chunk(Q, bh, S, q0 + r, c * 8, HEAD_DIM);
  }
  __syncthreads();
  FragQ qf[HEAD_DIM / 16];
#pragma unroll
  for (int kk = 0; kk < HEAD_DIM / 16; kk++)
    wmma::load_matrix_sync(qf[kk], &kv_s[warp * 16][kk * 16], LDK);

  // Softmax layout: lane owns row `srow` of the warp's 16, columns [scol, scol + 16) of a tile.
  const int srow = lane >> 1, scol = (lane & 1) * 16;
  const int qi = q0 + warp * 16 + srow;
  float m = -INFINITY, l = 0.f; // of row srow (both lanes of the pair hold the same values)
  float acc[16][DPL];           // PV layout: all 16 rows, columns lane*DPL ..
#pragma unroll
  for (int r = 0; r < 16; r++)
#pragma unroll
    for (int d = 0; d < DPL; d++) acc[r][d] = 0.f;

  const int kend = bt_key_end(p, q0, BM);
  for (int k0 = 0; k0 < kend; k0 += BN) {
    __syncthreads(); // all warps hold their Q fragments / are done with the previous tile
    for (int e = tid; e < BN * NCHUNK; e += THREADS) {
      const int r = e / NCHUNK, c = e % NCHUNK;
      *reinterpret_cast<uint4 *>(&kv_s[r][c * 8]) = bt_load_chunk(K, bh, S, k0 + r, c * 8, HEAD_DIM);
      *reinterpret_cast<uint4 *>(&kv_s[BN + r][c * 8]) =
          bt_load_chunk(V, bh, S, k0 + r, c * 8, HEAD_DIM);
    }
    __syncthreads();

    // S (16 x BN) = Q_w K^T on the tensor cores. K row n is column n of K^T: col_major, ldm LDK.
#pragma unroll
    for (int n = 0; n < BN / 16; n++) {
      FragS sf;
      wmma::fill_fragment(sf, 0.f);
#pragma unroll
      for (int kk = 0; kk < HEAD_DIM / 16; kk++) {
        FragKt kf;
        wmma::load_matrix_sync(kf, &kv_s[n * 16][kk * 16], LDK);
        wmma::mma_sync(sf, qf[kk], kf, sf);
      }
      wmma::store_matrix_sync(&s_s[warp][0][n * 16], sf, LDS, wmma::mem_row_major);
    }
    __syncwarp();

    // Online softmax on row srow, 16 columns per lane, the pair combined with one shuffle.
    float x[16];
    float tmax = -INFINITY;
#pragma unroll
    for (int c = 0; c < 16; c++) {
      const int kj = k0 + scol + c;
      x[c] = bt_visible(p, qi, kj) ? s_s[warp][srow][scol + c] * scale_log2 : -INFINITY;
      tmax = fmaxf(tmax, x[c]);
    }
    tmax = fmaxf(tmax, __shfl_xor_sync(BT_FULL_MASK, tmax, 1));
    const float m_new = fmaxf(m, tmax);
    const float base = bt_safe_base(m_new);
    const float corr = bt_rescale(m, m_new);
    float tsum = 0.f;
#pragma unroll
    for (int c = 0; c < 16; c++) {
      const float pj = exp2f(x[c] - base); // masked: exp2(-inf) = 0
      s_s[warp][srow][scol + c] = pj;
      tsum += pj;
    }
    tsum += __shfl_xor_sync(BT_FULL_MASK, tsum, 1);
    l = fmaf(l, corr, tsum);
    m = m_new;
    __syncwarp();

    // Scalar PV: rescale each row by its factor (held by lane 2r), then add P V.
#pragma unroll
    for (int r = 0; r < 16; r++) {
      const float cr = __shfl_sync(BT_FULL_MASK, corr, 2 * r);
#pragma unroll
      for (int d = 0; d < DPL; d++) acc[r][d] *= cr;
    }
#pragma unroll 1
    for (int j = 0; j < BN; j += 4) {
      float vf[4][DPL];
#pragma unroll
      for (int jj = 0; jj < 4; jj++) bt_load_halves<DPL>(&kv_s[BN + j + jj][lane * DPL], vf[jj]);
#pragma unroll
      for (int r = 0; r < 16; r++) {
        const float4 p4 = *reinterpret_cast<const float4 *>(&s_s[warp][r][j]);
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
  for (int r = 0; r < 16; r++) {
    const float lr = __shfl_sync(BT_FULL_MASK, l, 2 * r);
    const int row = q0 + warp * 16 + r;
    if (row < S) {
      const float inv_l = 1.f / lr;
      __half2 *dst = reinterpret_cast<__half2 *>(O + bt_row_offset(bh, S, row, HEAD_DIM) + lane * DPL);
#pragma unroll
      for (int d = 0; d < DPL; d += 2)
        dst[d / 2] = __floats2half2_rn(acc[r][d] * inv_l, acc[r][d + 1] * inv_l);
    }
  }
}
