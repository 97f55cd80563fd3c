/* benchtop
name      cp_async
summary   cp.async multi-stage K/V pipeline over swizzled tiles
rung      4
builds_on swizzle
head_dims 64 128
arch      sm_80
tolerance 2e-3
knob stages STAGES {2, 3} : K/V tiles in flight (cp.async pipeline depth)
# dynamic shared memory: the Q tile [64][D] fp16, `stages` K and V tiles [32][D] fp16, the
# probabilities [64][32] fp32
kernel attn_fwd grid(cdiv(S, 64), B * H) block(128) smem(64 * D * 2 + stages * 2 * 32 * D * 2 + 64 * 32 * 4)
preset stages=2
preset stages=3
*/
// Rung 4 of the ladder: cp_async. A cp.async multi-stage K/V pipeline over swizzled tiles
// (knob STAGES: 2 or 3 tiles in flight).
// Changes from swizzle: tiles move global -> shared with cp.async.cg (16 bytes, bypassing L1
// and the registers; rows past S are zero-filled by the copy itself) into STAGES ring
// buffers, so the loads of the next STAGES-1 tiles overlap the math on the current one and
// a block needs only two barriers per tile. Shared memory is dynamic (its size is in the declaration).
// Expect in the metrics: zero tensor-pipe activity, no shared-load bank conflicts, fewer
// stall cycles waiting on memory than swizzle; more shared memory per block (lower occupancy
// at D=128, stages=3).
#include "attn_params.h"
#include "common.cuh"
#include "sm80.cuh"

#define BM 64                 // query rows per block (must match the declaration above)
#define BN 32                 // keys per tile: one per lane
#define THREADS 128           // 4 warps
#define RPW 16                // query rows per warp
#define NCHUNK (HEAD_DIM / 8) // 16-byte chunks per row
#define DPL (HEAD_DIM / 32)   // output columns per lane

static_assert(BM == RPW * THREADS / 32, "every warp owns RPW rows");
static_assert(NCHUNK % 8 == 0, "the swizzle permutes chunks within groups of 8");

#ifndef STAGES
#define STAGES 2
#endif
static_assert(STAGES >= 2 && STAGES <= 4, "2 to 4 tiles in flight");

// Issues the cp.async copies of key tile `tile` (K and V) into ring slot `slot`.
__device__ __forceinline__ void load_kv_tile(__half *k_s, __half *v_s, const __half *K,
                                             const __half *V, int bh, int S, int tile, int slot,
                                             int tid) {
  const int k0 = tile * BN;
  __half *ks = k_s + slot * BN * HEAD_DIM;
  __half *vs = v_s + slot * BN * HEAD_DIM;
  for (int e = tid; e < BN * NCHUNK; e += THREADS) {
    const int r = e / NCHUNK, c = e % NCHUNK;
    const bool valid = k0 + r < S;
    // Invalid rows copy 0 bytes (zero fill); the source must still be a valid address.
    const size_t off = valid ? bt_row_offset(bh, S, k0 + r, HEAD_DIM) + c * 8 : 0;
    const int dst = r * HEAD_DIM + bt_swizzle(r, c) * 8;
    bt_cp_async16(ks + dst, K + off, valid);
    bt_cp_async16(vs + dst, V + off, valid);
  }
}

extern "C" __global__ void __launch_bounds__(THREADS) attn_fwd(const AttnParams p) {
  // Dynamic shared memory: Q [BM][D] | K [STAGES][BN][D] | V [STAGES][BN][D] | P [BM][BN] fp32.
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __half(*q_s)[HEAD_DIM] = reinterpret_cast<__half(*)[HEAD_DIM]>(smem_raw); // broadcast reads
  __half *k_ring = reinterpret_cast<__half *>(smem_raw) + BM * HEAD_DIM;
  __half *v_ring = k_ring + STAGES * BN * HEAD_DIM;
  float(*p_s)[BN] = reinterpret_cast<float(*)[BN]>(v_ring + STAGES * BN * HEAD_DIM); // per warp

  const int S = p.S, bh = blockIdx.y, q0 = blockIdx.x * BM;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int row_base = warp * RPW; // first row of this warp inside the block's tile
  const __half *Q = static_cast<const __half *>(p.q);
  const __half *K = static_cast<const __half *>(p.k);
  const __half *V = static_cast<const __half *>(p.v);
  const float scale_log2 = p.scale * BT_LOG2E;

  // Q joins the first cp.async group, together with key tile 0.
  for (int e = tid; e < BM * NCHUNK; e += THREADS) {
    const int r = e / NCHUNK, c = e % NCHUNK;
    const bool valid = q0 + r < S;
    const size_t off = valid ? bt_row_offset(bh, S, q0 + r, HEAD_DIM) + c * 8 : 0;
    bt_cp_async16(&q_s[r][c * 8], Q + off, valid);
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
  const int ntiles = (kend + BN - 1) / BN;
  // Prologue: tiles 0 .. STAGES-2 in flight, one commit group each (empty groups keep the
  // group count uniform when there are fewer tiles).
  for (int t = 0; t < STAGES - 1; t++) {
    if (t < ntiles) load_kv_tile(k_ring, v_ring, K, V, bh, S, t, t % STAGES, tid);
    bt_cp_async_commit();
  }
  for (int tile = 0; tile < ntiles; tile++) {
    const int k0 = tile * BN;
    // Refill the slot that iteration tile-1 finished with (the barrier at its end).
    const int pre = tile + STAGES - 1;
    if (pre < ntiles) load_kv_tile(k_ring, v_ring, K, V, bh, S, pre, pre % STAGES, tid);
    bt_cp_async_commit();
    bt_cp_async_wait<STAGES - 1>(); // this thread's copies of `tile` (and Q) have landed
    __syncthreads();                // ... and everyone else's
    const int slot = tile % STAGES;
    const __half(*k_s)[HEAD_DIM] =
        reinterpret_cast<const __half(*)[HEAD_DIM]>(k_ring + slot * BN * HEAD_DIM);
    const __half(*v_s)[HEAD_DIM] =
        reinterpret_cast<const __half(*)[HEAD_DIM]>(v_ring + slot * BN * HEAD_DIM);

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
    __syncthreads(); // `slot` is refilled by the next iteration
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
