// The consumer warpgroups of fa3.cu (sm_90a): per work tile, the main loop over this ring's key
// tiles (tile_first, tile_next, tile_last_pv over fa3_tile.cuh's steps), the merge of two key
// halves (KV_SPLIT=2) and the epilogue (store_o), driven by consume. fa3.cu includes this after
// its macros, shared-memory layout (Smem) and work decomposition (WorkTile, Walk).
#pragma once

#include "fa3_tile.cuh"

// One consumer warpgroup: which query group and key ring it serves, and this thread's place.
struct Consumer {
  int c, qg, ring;         // consumer index, query group, key ring
  int ltid, warp, lane, g, c4;
  unsigned q, o;           // its query group's Q tile and O staging tile
  float sl2;               // scores -> log2 domain: scale * log2(e)
};
__device__ __forceinline__ Consumer consumer_of(const Smem &sm, const AttnParams &p, int tid,
                                                int wg) {
  Consumer cs;
  cs.c = wg - 1;
  cs.qg = cs.c / KV_SPLIT;
  cs.ring = cs.c % KV_SPLIT;
  cs.ltid = tid - 128 * wg;
  cs.warp = cs.ltid >> 5;
  cs.lane = cs.ltid & 31;
  cs.g = cs.lane >> 2;
  cs.c4 = cs.lane & 3;
  cs.q = sm.q + cs.qg * QG_BYTES;
  cs.o = sm.o + cs.qg * QG_BYTES;
  cs.sl2 = p.scale * 1.4426950408889634f;
  return cs;
}

// This warpgroup's share of work tile w: 64 query rows from q0 (this thread's: row_a and
// row_a + 8) and its ring's key tiles [t0, t0 + cnt).
struct Share {
  int q0, row_a, t0, cnt;
};
__device__ __forceinline__ Share share_of(const Consumer &cs, const WorkTile &w) {
  Share sh;
  sh.q0 = w.m0 + 64 * cs.qg;
  sh.row_a = sh.q0 + 16 * cs.warp + cs.g;
  sh.t0 = cs.ring * w.half;
  sh.cnt = w.count(cs.ring);
  return sh;
}

// Timeline hooks of consumer cs: 8 per work tile; a lone consumer (slots 12-27 are free when
// NC = 1) also has 4 per key tile.
#define CTRACE(k) do { if (cs.ltid == 0 && cs.c < 3) TRACE(4 + 8 * cs.c + (k)); } while (0)
#define STRACE(i, k) do { if (NC == 1 && cs.ltid == 0 && (i) < 4) TRACE(12 + 4 * (i) + (k)); } while (0)

// Turn-taking between consumer warpgroups (sched=pingpong: around the GEMM issue; sched=exp:
// around the exponentials) through named barriers BAR_SCHED + c. wait() blocks until it is
// this warpgroup's turn, pass(last) hands the turn on, except for the block's very last turn,
// whose arrive would have no partner. Without TURNS both are empty.
struct Turns {
  int me, next;
  bool on, last_wg, final_tile; // on: the warpgroups of this tile take turns
  __device__ void wait() const {
    if (TURNS && on) bt_bar_sync(me, 256);
  }
  __device__ void pass(bool last) const {
    if (TURNS && on && !(last_wg && last && final_tile)) bt_bar_arrive(next, 256);
  }
};

// The main loop's steps for one work tile (consume runs them over this ring's key tiles).
// State: s the scores (then P) of the newest tile, pa its P packed as wgmma A fragments, al_*
// the factors O still owes to the moves of the row bases, o and rw the accumulators.

// A key tile needs masking if it reaches past Skv or (causal) past the last key this
// warpgroup's first row sees.
__device__ __forceinline__ bool needs_mask(const Walk &k, const Share &sh, int n0) {
  return n0 + BLOCK_N > k.Skv || (k.causal && n0 + BLOCK_N - 1 > sh.q0 + k.shift);
}
// The softmax of the tile in s; with EXP_TURNS its exponentials wait for this warpgroup's turn
// (last: this ring's last tile).
__device__ __forceinline__ void softmax(float (&s)[SREGS], Rows &rw, float sl2, float &al_a,
                                        float &al_b, const Turns &turns, bool last) {
  if (EXP_TURNS) {
    softmax_max(s, rw, sl2, al_a, al_b);
    turns.wait();
    softmax_exp(s, rw, sl2, al_a, al_b);
    turns.pass(last);
  } else {
    softmax_tile(s, rw, sl2, al_a, al_b);
  }
}

// Key tile 0: S_0 = Q K_0^T alone, masked, its softmax, P_0 packed.
__device__ __forceinline__ void tile_first(const Smem &sm, const Consumer &cs, const Turns &turns,
                                           const Walk &k, const Share &sh, int used,
                                           float (&s)[SREGS], unsigned (&pa)[BLOCK_N / 16][4],
                                           float &al_a, float &al_b, Rows &rw) {
  const int u = used, st = u % STAGES;
  bt_mbar_wait(sm.bar(cs.ring, st, FULL_K), (unsigned)((u / STAGES) & 1));
  CTRACE(2);
  if (GEMM_TURNS) turns.wait();
  issue_qk(s, cs.q, sm.ring_k(cs.ring, st));
  if (GEMM_TURNS) turns.pass(sh.cnt == 1);
  bt_wgmma_wait<0>();
  bt_pin(s);
  if (cs.lane == 0) {
    bt_mbar_arrive(sm.bar(cs.ring, st, EMPTY_K));
    if (sh.cnt == 1) bt_mbar_arrive(sm.bar_qe()); // this warp's last read of Q
  }
  if (needs_mask(k, sh, sh.t0 * BLOCK_N)) mask_tile(s, sh.t0 * BLOCK_N, k.Skv, k.causal, sh.row_a + k.shift, cs.c4);
  softmax(s, rw, cs.sl2, al_a, al_b, turns, sh.cnt == 1);
  pack_p(s, pa);
  CTRACE(3);
}

// Key tile i >= 1: S_i = Q K_i^T and O += P_{i-1} V_{i-1} in flight while softmax(S_i) runs.
__device__ __forceinline__ void tile_next(const Smem &sm, const Consumer &cs, const Turns &turns,
                                          const Walk &k, const Share &sh, int used, int i,
                                          float (&s)[SREGS], unsigned (&pa)[BLOCK_N / 16][4],
                                          float &al_a, float &al_b, float (&o)[OREGS], Rows &rw) {
  const int u = used + i, st = u % STAGES, pst = (u - 1) % STAGES;
  bt_mbar_wait(sm.bar(cs.ring, st, FULL_K), (unsigned)((u / STAGES) & 1));
  STRACE(i, 0);
  if (GEMM_TURNS) turns.wait();
  issue_qk(s, cs.q, sm.ring_k(cs.ring, st));
  rescale_o(o, al_a, al_b); // to the max P_{i-1} was taken against
  bt_mbar_wait(sm.bar(cs.ring, pst, FULL_V), (unsigned)(((u - 1) / STAGES) & 1));
  STRACE(i, 1);
  issue_pv(o, pa, sm.ring_v(cs.ring, pst));
  if (GEMM_TURNS) turns.pass(i == sh.cnt - 1);
  bt_wgmma_wait<1>(); // S_i is ready; P_{i-1} V_{i-1} may still run
  bt_pin(s);
  STRACE(i, 2);
  if (cs.lane == 0) {
    bt_mbar_arrive(sm.bar(cs.ring, st, EMPTY_K));
    if (i == sh.cnt - 1) bt_mbar_arrive(sm.bar_qe());
  }
  const int n0 = (sh.t0 + i) * BLOCK_N;
  if (needs_mask(k, sh, n0)) mask_tile(s, n0, k.Skv, k.causal, sh.row_a + k.shift, cs.c4);
  softmax(s, rw, cs.sl2, al_a, al_b, turns, i == sh.cnt - 1);
  STRACE(i, 3);
  bt_wgmma_wait<0>(); // P_{i-1} V_{i-1} done: its registers and V stage are free
  bt_pin(o);
  bt_pin(s);
  if (cs.lane == 0) bt_mbar_arrive(sm.bar(cs.ring, pst, EMPTY_V));
  pack_p(s, pa);
}

// After the last key tile: O += P_last V_last.
__device__ __forceinline__ void tile_last_pv(const Smem &sm, const Consumer &cs, const Share &sh,
                                             int used, const unsigned (&pa)[BLOCK_N / 16][4],
                                             float al_a, float al_b, float (&o)[OREGS]) {
  const int lu = used + sh.cnt - 1, lst = lu % STAGES;
  rescale_o(o, al_a, al_b);
  bt_mbar_wait(sm.bar(cs.ring, lst, FULL_V), (unsigned)((lu / STAGES) & 1));
  CTRACE(4);
  issue_pv(o, pa, sm.ring_v(cs.ring, lst));
  bt_wgmma_wait<0>();
  bt_pin(o);
  CTRACE(5);
  if (cs.lane == 0) bt_mbar_arrive(sm.bar(cs.ring, lst, EMPTY_V));
}

// KV_SPLIT=2: the two key halves of the same 64 query rows are merged. Ring 1's consumer hands
// its (O, m, l) over through ring 1's stage memory, idle now (all its loads were consumed, all
// its wgmma reads are complete; blocks are not persistent with KV_SPLIT=2, so no later tile
// refills it); ring 0's consumer combines them into its own and stores O.
__device__ __forceinline__ unsigned merge_buffer(const Smem &sm) { return sm.ring_k(1, 0); }
__device__ __forceinline__ void hand_over_half(const Smem &sm, const Consumer &cs,
                                               const float (&o)[OREGS], const Rows &rw) {
  const unsigned xfer = merge_buffer(sm);
  const int ltid = cs.ltid;
#pragma unroll
  for (int i = 0; i < OREGS; i++)
    asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(xfer + (i * 128 + ltid) * 4), "f"(o[i]) : "memory");
  const float st4[4] = {rw.m_a, rw.m_b, rw.l_a, rw.l_b};
#pragma unroll
  for (int i = 0; i < 4; i++)
    asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(xfer + ((OREGS + i) * 128 + ltid) * 4), "f"(st4[i]) : "memory");
  bt_bar_arrive(BAR_MERGE, 256);
}
__device__ __forceinline__ void merge_halves(const Smem &sm, const Consumer &cs, float (&o)[OREGS],
                                             Rows &rw) {
  const float NEG_INF = __int_as_float(0xff800000);
  const unsigned xfer = merge_buffer(sm);
  const int ltid = cs.ltid;
  bt_bar_sync(BAR_MERGE, 256);
  float x[4];
#pragma unroll
  for (int i = 0; i < 4; i++)
    asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(x[i]) : "r"(xfer + ((OREGS + i) * 128 + ltid) * 4) : "memory");
  const float mn_a = fmaxf(rw.m_a, x[0]), mn_b = fmaxf(rw.m_b, x[1]);
  const float f0_a = rw.m_a == NEG_INF ? 0.f : bt_ex2(rw.m_a - mn_a); // bases: log2 domain
  const float f1_a = x[0] == NEG_INF ? 0.f : bt_ex2(x[0] - mn_a);
  const float f0_b = rw.m_b == NEG_INF ? 0.f : bt_ex2(rw.m_b - mn_b);
  const float f1_b = x[1] == NEG_INF ? 0.f : bt_ex2(x[1] - mn_b);
  rw.l_a = rw.l_a * f0_a + x[2] * f1_a;
  rw.l_b = rw.l_b * f0_b + x[3] * f1_b;
#pragma unroll
  for (int i = 0; i < OREGS; i++) {
    float y;
    asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(y) : "r"(xfer + (i * 128 + ltid) * 4) : "memory");
    o[i] = (i & 2) ? o[i] * f0_b + y * f1_b : o[i] * f0_a + y * f1_a;
  }
}

// Epilogue: normalise, write O (fp16 or bf16) into the staging tile (swizzled, conflict-free: the 8 rows
// of a store land in 8 different 16-byte chunks), then TMA-store it. Storing straight from the
// registers instead was 0.5 us slower at 2x8x512x64.
__device__ __forceinline__ void store_o(const Consumer &cs, const AttnParams &p, const WorkTile &w,
                                        int q0, const float (&o)[OREGS], const Rows &rw) {
  float l_a = rw.l_a, l_b = rw.l_b;
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 1);
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 2);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 1);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 2);
  const float inv_a = l_a > 0.f ? 1.f / l_a : 0.f, inv_b = l_b > 0.f ? 1.f / l_b : 0.f;
  const int r_a = 16 * cs.warp + cs.g; // row inside the group; r_a + 8 has the same swizzle
  if (PERSIST) bt_bar_sync(BAR_EPI + cs.qg, 128); // the previous tile's store has read the staging tile
#pragma unroll
  for (int j = 0; j < OREGS / 4; j++) {
    const unsigned chunk = cs.o + (j >> 3) * (64 * 128) + ((((unsigned)j & 7) ^ (r_a & 7)) << 4) + 4 * cs.c4;
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(chunk + r_a * 128),
                 "r"(bt_pack2(o[4 * j] * inv_a, o[4 * j + 1] * inv_a)) : "memory");
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(chunk + (r_a + 8) * 128),
                 "r"(bt_pack2(o[4 * j + 2] * inv_b, o[4 * j + 3] * inv_b)) : "memory");
  }
  bt_fence_proxy_async();
  bt_bar_sync(BAR_EPI + cs.qg, 128);
  CTRACE(6);
  if (cs.ltid == 0) {
    for (int cb = 0; cb < CB; cb++) bt_tma_store_3d(&p.tmap_o, cs.o + cb * (64 * 128), 64 * cb, q0, w.bh);
    bt_tma_store_commit_and_wait();
  }
  CTRACE(7);
}

// A consumer warpgroup's loop over its block's work tiles: attend, merge, store.
__device__ __forceinline__ void consume(const Smem &sm, const AttnParams &p, const Walk &k,
                                       const Consumer &cs) {
  const float NEG_INF = __int_as_float(0xff800000);
  if (TURNS && KV_SPLIT == 1 && cs.c == NC - 1) bt_bar_arrive(BAR_SCHED + 0, 256); // warpgroup 0 issues first
  Turns turns;
  turns.me = BAR_SCHED + cs.c;
  turns.next = BAR_SCHED + (cs.c + 1) % NC;
  turns.last_wg = cs.c == NC - 1;
  int used = 0, local = 0; // tiles this ring has carried; work tiles done

  for (int t = k.first; t < k.total; t += k.step, local++) {
    const WorkTile w = k.tile(t);
    const Share sh = share_of(cs, w);
    // The last warpgroup's last arrive would have no partner: the block is done after it.
    turns.final_tile = t + k.step >= k.total;
    // With KV_SPLIT=2 the two key halves take turns only when they hold as many tiles (a turn
    // nobody gives would hang); ragged or causal halves run unordered. Such blocks carry one tile.
    turns.on = KV_SPLIT == 1 || w.count(0) == w.count(1);
    if (TURNS && KV_SPLIT == 2 && turns.on && turns.last_wg) bt_bar_arrive(BAR_SCHED + 0, 256); // ring 0 issues first
    float o[OREGS];
#pragma unroll
    for (int i = 0; i < OREGS; i++) o[i] = 0.f;
    Rows rw = {NEG_INF, NEG_INF, 0.f, 0.f};

    CTRACE(0);
    if (sh.cnt > 0) {
      // Main loop: this warpgroup's 64 query rows against its ring's key tiles.
      bt_mbar_wait(sm.bar_q(), (unsigned)(local & 1));
      CTRACE(1);
      float s[SREGS];
      unsigned pa[BLOCK_N / 16][4];
      float al_a, al_b;
      tile_first(sm, cs, turns, k, sh, used, s, pa, al_a, al_b, rw);
      for (int i = 1; i < sh.cnt; i++) tile_next(sm, cs, turns, k, sh, used, i, s, pa, al_a, al_b, o, rw);
      tile_last_pv(sm, cs, sh, used, pa, al_a, al_b, o);
    } else if (cs.lane == 0) {
      bt_mbar_arrive(sm.bar_qe()); // no tile here (key split, early causal block): Q not needed
    }
    used += sh.cnt;
    if (KV_SPLIT == 2) {
      if (cs.ring == 1) {
        hand_over_half(sm, cs, o, rw);
        continue;
      }
      merge_halves(sm, cs, o, rw);
    }
    store_o(cs, p, w, sh.q0, o, rw);
  }
}

#undef CTRACE
#undef STRACE
