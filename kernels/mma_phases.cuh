// The phases of mma.cu's attention body (sm_80 and up), in the order it runs them: swz and
// load_tile (swizzled cp.async tiles), key_range, load_prologue, lane_addresses, then per key
// tile qk_tile, mask_tile, softmax_tile and pv_tile, and store_o. mma.cu includes this after
// its knob macros (HEAD_DIM, BLOCK_M, BLOCK_N, WARPS, STAGES) and their derived sizes.
#pragma once

namespace {

// Element offset of 16-byte chunk `chunk` of row `row` in a swizzled [rows][HEAD_DIM] tile.
// Eight consecutive rows at the same logical chunk land in eight distinct bank groups.
__device__ __forceinline__ int swz(int row, int chunk) {
  return row * SROW + (bt_swizzle(row, chunk) << 3);
}

// Copies ROWS rows of a [S, HEAD_DIM] head starting at row0 into a swizzled tile; rows at or
// past S are zero-filled (their source is the head's first row, never read). A thread always
// copies the same 16-byte chunk c of rows r0, r0 + RSTEP, ...: with RSTEP a multiple of 8 the
// swizzle (c ^ row%8) is the same for all of them, so every copy is one base address plus an
// immediate on both sides and no per-copy address stays live across the tile loop (those
// registers spilled at D=128 with 32 query rows per warp).
#define RSTEP (NT / CPR)
template <int ROWS>
__device__ __forceinline__ void load_tile(bt_elem *tile, const bt_elem *g, int row0, int S, int tid) {
  const unsigned dst = bt_smem_u32(tile);
#if NT % CPR == 0
  const int r0 = tid / CPR, c = tid % CPR;
  const bt_elem *src = g + (size_t)(row0 + r0) * HEAD_DIM + c * 8;
#pragma unroll
  for (int i = 0; i < ROWS / RSTEP; i++) {
    const bool ok = row0 + r0 + i * RSTEP < S;
    const int off = RSTEP % 8 == 0 ? swz(r0, c) + i * RSTEP * SROW : swz(r0 + i * RSTEP, c);
    bt_cp_async16(dst + off * 2, ok ? src + i * RSTEP * HEAD_DIM : g, ok);
  }
#else
  // D=96: 12 chunks a row do not divide the threads; each copy finds its own row and chunk.
#pragma unroll
  for (int i = tid; i < ROWS * CPR; i += NT) {
    const int r = i / CPR, c = i % CPR;
    const bool ok = row0 + r < S;
    bt_cp_async16(dst + swz(r, c) * 2, ok ? g + (size_t)(row0 + r) * HEAD_DIM + c * 8 : g, ok);
  }
#endif
}

// ---- the phases of one block, in the order attn_body runs them ----

// The query block this block owns. Causal: the last query blocks have the most key tiles;
// start them first.
__device__ __forceinline__ int query_block(const AttnParams &p) {
  return p.causal ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x;
}

// The key tiles this block walks: [tile0, tile0 + n_tiles) of the Skv keys (here S). Causal
// blocks stop at their last row's last key. Split-KV: split z owns key tiles
// [z * per, z * per + per) of all ceil(Skv/BLOCK_N) tiles
// (the same share for every query block, so the longest block is `per` tiles long), cut at the
// block's last visible key.
struct KeyRange {
  int tile0, n_tiles;
};
template <bool SPLIT>
__device__ __forceinline__ KeyRange key_range(int S, int kv_end) {
  const int splits = SPLIT ? (int)gridDim.z : 1;
  const int per = ((S + BLOCK_N - 1) / BLOCK_N + splits - 1) / splits;
  KeyRange r;
  r.tile0 = SPLIT ? (int)blockIdx.z * per : 0;
  r.n_tiles = SPLIT ? max(0, min((kv_end + BLOCK_N - 1) / BLOCK_N - r.tile0, per))
                    : (kv_end + BLOCK_N - 1) / BLOCK_N;
  return r;
}

// Loads, prologue: Q with the first key tile in the first cp.async group, then tiles
// 1..STAGES-2, one group each (empty groups keep the wait_group arithmetic uniform).
__device__ __forceinline__ void load_prologue(bt_elem *sQ, bt_elem *sK, bt_elem *sV,
                                              const bt_elem *Q, const bt_elem *K, const bt_elem *V,
                                              int m0, const KeyRange &kr, int S, int Skv, int tid) {
  load_tile<BLOCK_M>(sQ, Q, m0, S, tid);
#pragma unroll
  for (int s = 0; s < STAGES - 1; s++) {
    if (s < kr.n_tiles) {
      load_tile<BLOCK_N>(sK + s * BLOCK_N * SROW, K, (kr.tile0 + s) * BLOCK_N, Skv, tid);
      load_tile<BLOCK_N>(sV + s * BLOCK_N * SROW, V, (kr.tile0 + s) * BLOCK_N, Skv, tid);
    }
    bt_cp_async_commit();
  }
}

// ldmatrix lane addresses. Every fragment row block starts at a multiple of 8 rows, so a
// lane's row%8 is lane%8 and, the logical chunk being 2k + (0 or 1), its swizzled chunk is
// (2k) ^ x with x = (0 or 1) ^ lane%8: one XOR per k-step, the row block an immediate offset.
struct Lanes {
  unsigned q_addr, k_lane, v_lane; // this lane's row in the Q tile, K stage 0, V stage 0
  int q_x, k_x, v_x;               // its chunk XOR
};
__device__ __forceinline__ Lanes lane_addresses(const bt_elem *sQ, const bt_elem *sK, const bt_elem *sV,
                                                int warp, int lane) {
  Lanes l;
  // Q (A operand): lanes 0-15 rows 0-15 at chunk 2k, lanes 16-31 the same rows at chunk 2k+1.
  l.q_addr = bt_smem_u32(sQ + (warp * WARP_ROWS + (lane & 15)) * SROW);
  l.q_x = (lane >> 4) ^ (lane & 7);
  // K (B operand, keys x d): matrices (keys 0-7, chunk 2k), (0-7, 2k+1), (8-15, 2k), (8-15, 2k+1).
  l.k_lane = bt_smem_u32(sK + ((lane & 7) + ((lane >> 4) << 3)) * SROW);
  l.k_x = ((lane >> 3) & 1) ^ (lane & 7);
  // V (B operand via .trans, keys x d): (keys 0-7, chunk 2k), (8-15, 2k), (0-7, 2k+1), (8-15, 2k+1).
  l.v_lane = bt_smem_u32(sV + ((lane & 7) + (((lane >> 3) & 1) << 3)) * SROW);
  l.v_x = (lane >> 4) ^ (lane & 7);
  return l;
}

// Main loop, GEMM 1: S = Q K^T for this warp's 16*MT rows and the BLOCK_N keys of the stage at
// k_addr, fp32 in registers. Q comes from qf (held across the loop) or, with two m-tiles, from
// shared memory per k-step.
__device__ __forceinline__ void qk_tile(float (&s)[MT][NTILES][4], const unsigned (&qf)[HEAD_DIM / 16][4],
                                        const Lanes &ln, unsigned k_addr) {
#pragma unroll
  for (int mt = 0; mt < MT; mt++)
#pragma unroll
    for (int j = 0; j < NTILES; j++) s[mt][j][0] = s[mt][j][1] = s[mt][j][2] = s[mt][j][3] = 0.f;
#pragma unroll
  for (int kk = 0; kk < HEAD_DIM / 16; kk++) {
    unsigned a[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; mt++) {
#if Q_IN_REGS
      a[mt][0] = qf[kk][0]; a[mt][1] = qf[kk][1]; a[mt][2] = qf[kk][2]; a[mt][3] = qf[kk][3];
#else
      (void)qf;
      bt_ldsm_x4(a[mt], ln.q_addr + mt * (16 * SROW * 2) + (((2 * kk) ^ ln.q_x) << 4));
#endif
    }
#pragma unroll
    for (int jp = 0; jp < NTILES / 2; jp++) {
      unsigned b[4]; // b[0..1]: keys 16jp..+7, b[2..3]: keys 16jp+8..+15
      bt_ldsm_x4(b, k_addr + jp * (16 * SROW * 2) + (((2 * kk) ^ ln.k_x) << 4));
#pragma unroll
      for (int mt = 0; mt < MT; mt++) bt_mma_16816_x2(s[mt][2 * jp], s[mt][2 * jp + 1], a[mt], b);
    }
  }
}

// Keys past Skv and (causal) keys after the query row's last visible key to -inf. diag0 is
// the last key the warp's first row sees (its row + Skv - S: bottom-right aligned; past every
// key when not causal). A thread holds rows g and g+8 of each m-tile, keys 2*c4 and 2*c4+1 of
// each n8 tile.
__device__ __forceinline__ void mask_tile(float (&s)[MT][NTILES][4], int n0, int Skv, int diag0,
                                          int g, int c4) {
  const float NEG_INF = __int_as_float(0xff800000);
#pragma unroll
  for (int mt = 0; mt < MT; mt++)
#pragma unroll
    for (int j = 0; j < NTILES; j++)
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const int key = n0 + 8 * j + 2 * c4 + (e & 1);
        const int diag = diag0 + 16 * mt + g + 8 * (e >> 1);
        if (key >= Skv || key > diag) s[mt][j][e] = NEG_INF;
      }
}

// Softmax on the accumulators (rows g and g+8 of each m-tile); s becomes P, unnormalised.
// The state of this thread's rows: the O accumulators, the base P is taken against (row_m, log2
// domain: score * sl2) and the quad-partial row sums (row_l). row_m moves only when a tile's max exceeds it by more than BT_RESCALE_SLACK (common.cuh), so
// O and l are rescaled rarely; the result is exact since O and l share the base.
__device__ __forceinline__ void softmax_tile(float (&s)[MT][NTILES][4], float (&o)[MT][DTILES][4],
                                             float (&row_m)[MT][2], float (&row_l)[MT][2], float sl2) {
  const float NEG_INF = __int_as_float(0xff800000);
  float alpha[MT][2];
  bool moved = false;
#pragma unroll
  for (int mt = 0; mt < MT; mt++)
#pragma unroll
    for (int h = 0; h < 2; h++) {
      float mx = NEG_INF;
#pragma unroll
      for (int j = 0; j < NTILES; j++) mx = fmaxf(mx, fmaxf(s[mt][j][2 * h], s[mt][j][2 * h + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float tm = mx * sl2; // -inf for a row with no visible key in this tile
      alpha[mt][h] = 1.f;
      if (tm > row_m[mt][h] + BT_RESCALE_SLACK) {
        alpha[mt][h] = bt_ex2(row_m[mt][h] - tm);
        row_m[mt][h] = tm;
        moved = true;
      }
    }
  // One vote per tile: the O rescale (the softmax's largest cost at D=128) runs only when a
  // row of this warp moved its base; alpha is 0 when the old base was -inf.
  if (__any_sync(0xffffffffu, moved)) {
#pragma unroll
    for (int mt = 0; mt < MT; mt++) {
      row_l[mt][0] *= alpha[mt][0];
      row_l[mt][1] *= alpha[mt][1];
#pragma unroll
      for (int dt = 0; dt < DTILES; dt++) {
        o[mt][dt][0] *= alpha[mt][0];
        o[mt][dt][1] *= alpha[mt][0];
        o[mt][dt][2] *= alpha[mt][1];
        o[mt][dt][3] *= alpha[mt][1];
      }
    }
  }
#pragma unroll
  for (int mt = 0; mt < MT; mt++)
#pragma unroll
    for (int h = 0; h < 2; h++) {
      // A row with no visible key yet keeps base -inf: use 0 so that -inf - -inf never occurs.
      const float ms = row_m[mt][h] == NEG_INF ? 0.f : row_m[mt][h];
      float rs = 0.f;
#pragma unroll
      for (int j = 0; j < NTILES; j++) {
        const float p0 = bt_ex2(fmaf(s[mt][j][2 * h], sl2, -ms));
        const float p1 = bt_ex2(fmaf(s[mt][j][2 * h + 1], sl2, -ms));
        s[mt][j][2 * h] = p0;
        s[mt][j][2 * h + 1] = p1;
        rs += p0 + p1;
      }
      row_l[mt][h] += rs; // quad-partial; reduced once at the end
    }
}

// Main loop, GEMM 2: O += P V, P repacked from the S accumulators as fp16 (bf16) A-fragments (the
// accumulator layout of m16n8 is the A-fragment layout of m16k16), V from the stage at v_addr.
__device__ __forceinline__ void pv_tile(float (&o)[MT][DTILES][4], const float (&s)[MT][NTILES][4],
                                        const Lanes &ln, unsigned v_addr) {
#pragma unroll
  for (int kk = 0; kk < BLOCK_N / 16; kk++) {
    unsigned a[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; mt++) {
      a[mt][0] = bt_pack2(s[mt][2 * kk][0], s[mt][2 * kk][1]);
      a[mt][1] = bt_pack2(s[mt][2 * kk][2], s[mt][2 * kk][3]);
      a[mt][2] = bt_pack2(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
      a[mt][3] = bt_pack2(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
    }
#pragma unroll
    for (int dp = 0; dp < HEAD_DIM / 16; dp++) {
      unsigned b[4]; // b[0..1]: d 16dp..+7, b[2..3]: d 16dp+8..+15
      bt_ldsm_x4_trans(b, v_addr + kk * (16 * SROW * 2) + (((2 * dp) ^ ln.v_x) << 4));
#pragma unroll
      for (int mt = 0; mt < MT; mt++) bt_mma_16816_x2(o[mt][2 * dp], o[mt][2 * dp + 1], a[mt], b);
    }
  }
}

// Epilogue: normalise. One split: stage fp16 rows through this warp's own Q rows (only this
// warp ever read them) and store 16-byte rows. Split-KV: the fp32 partial O and its
// log2-sum-exp2 go straight from the accumulators to global memory (a quad writes 32
// contiguous bytes per d-tile: whole sectors). O, S and the warp's first row are computed here
// from p and the block's index, not kept in registers through the main loop (at D=128 with 32
// rows per warp, those registers spilled).
template <bool SPLIT>
__device__ __forceinline__ void store_o(const float (&o)[MT][DTILES][4], const float (&row_m)[MT][2],
                                        const float (&row_l)[MT][2], const AttnParams &p, bt_elem *sQ,
                                        int warp, int lane) {
  const float NEG_INF = __int_as_float(0xff800000);
  const int S = p.S, wrow0 = query_block(p) * BLOCK_M + warp * WARP_ROWS;
  bt_elem *O = static_cast<bt_elem *>(p.o) + (size_t)blockIdx.y * S * HEAD_DIM;
  const int g = lane >> 2, c4 = lane & 3;
  __syncwarp();
  bt_elem *sO = sQ + warp * WARP_ROWS * SROW;
  const size_t zb = (size_t)blockIdx.z * gridDim.y + blockIdx.y; // (split, head) of a partial
#pragma unroll
  for (int mt = 0; mt < MT; mt++)
#pragma unroll
    for (int h = 0; h < 2; h++) {
      float l = row_l[mt][h];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = l > 0.f ? 1.f / l : 0.f;
      const int r = 16 * mt + g + 8 * h;
      if (!SPLIT) {
#pragma unroll
        for (int dt = 0; dt < DTILES; dt++)
          *reinterpret_cast<unsigned *>(sO + swz(r, dt) + 2 * c4) =
              bt_pack2(o[mt][dt][2 * h] * inv, o[mt][dt][2 * h + 1] * inv);
      } else if (wrow0 + r < S) {
        const size_t row = zb * S + wrow0 + r;
        if (c4 == 0) p.lse[row] = l > 0.f ? row_m[mt][h] + __log2f(l) : NEG_INF;
#pragma unroll
        for (int dt = 0; dt < DTILES; dt++)
          *reinterpret_cast<float2 *>(p.o_f32 + row * HEAD_DIM + dt * 8 + 2 * c4) =
              make_float2(o[mt][dt][2 * h] * inv, o[mt][dt][2 * h + 1] * inv);
      }
    }
  if (SPLIT) return;
  __syncwarp();
#pragma unroll
  for (int i = lane; i < WARP_ROWS * CPR; i += 32) {
    const int r = i / CPR, c = i % CPR;
    if (wrow0 + r < S)
      *reinterpret_cast<uint4 *>(O + (size_t)(wrow0 + r) * HEAD_DIM + c * 8) =
          *reinterpret_cast<const uint4 *>(sO + swz(r, c));
  }
}

} // namespace
