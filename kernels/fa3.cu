/* benchtop
name      fa3
summary   Hopper FlashAttention-3 style: wgmma, TMA tensor maps + mbarriers, warp-specialised, intra-warpgroup overlap, ping-pong
rung      10
builds_on mma
head_dims 64 128
arch      sm_90a
tolerance 2e-3
knob block_m  BLOCK_M        {128, 64, 192} : query rows per block (64 per consumer warpgroup)
knob block_n  BLOCK_N        {128, 176, 64} : keys per K/V tile (the N of the QK^T wgmma)
knob stages   STAGES         {2, 3, 4}      : K/V tiles in flight per ring (TMA + mbarriers)
knob kv_split KV_SPLIT       {1, 2}         : warpgroups per 64 query rows, each walking part of the keys, merged in shared memory
knob sched    SCHED          {pingpong=0, plain=1, exp=2} : pingpong: consumer warpgroups take turns issuing GEMMs; exp: take turns on the exponentials
knob persist  PERSIST        {1, 0}         : 1: one block per SM walks the tiles; the next tile's loads overlap this one's epilogue
knob exp_poly EXP_POLY_EVERY {0, 8, 4}      : every n-th group of exponentials by a polynomial on the FMA pipe, not MUFU (0: none)

# a producer warpgroup plus block_m/64 * kv_split consumer warpgroups; dynamic shared memory:
# Q [block_m][D] (twice when persistent: O is staged apart so the next tile's Q loads under the
# epilogue), kv_split rings of `stages` K and V tiles [block_n][D] fp16, their mbarriers, and
# 1024 bytes of slack for the 128-byte-swizzle alignment
let consumers = block_m / 64 * kv_split
let smem = (1 + persist) * block_m * D * 2 + kv_split * stages * 2 * block_n * D * 2 + 8 * (2 + 4 * kv_split * stages) + 1024

# What fa3.cu compiles without spills (NVRTC 13.0, sm_90a) and what fits one SM
refuse kv_split == 2 && block_m != 64 : fa3: kv_split=2 needs block_m=64 (two warpgroups on 64 rows)
refuse consumers > 3 : fa3: at most 3 consumer warpgroups (block_m/64 * kv_split)
# three consumers get 160 registers each: S, P and O of D=128 or 176-key tiles do not fit
refuse consumers == 3 && (D != 64 || block_n > 128) : fa3: block_m=192 fits the registers only with D=64 and block_n<=128
refuse kv_split == 2 && persist : fa3: persist=1 needs kv_split=1 (the key halves merge through ring memory)
# found by check-kernels --all-knobs: 12 bytes of spills
refuse consumers == 3 && sched == "plain" && persist : fa3: block_m=192 with sched=plain and persist=1 spills (use sched=pingpong or persist=0)
refuse sched != "plain" && consumers < 2 : fa3: sched=pingpong and sched=exp need 2-3 consumer warpgroups (block_m>=128, or kv_split=2)
# 227 KiB: the most one block may use on sm_90
refuse smem > 232448 : fa3: Q + kv_split*stages*(K+V) tiles exceed 227 KiB of shared memory (lower stages/block_n)

kernel attn_fwd grid(cdiv(S, block_m), B * H) block(128 * (consumers + 1)) smem(smem) persistent(persist)
# TMA boxes (64 columns wide): one box of Q and O per consumer warpgroup, a K/V tile each
tma q(64) k(block_n) v(block_n) o(64)

preset block_m=128,block_n=128,stages=2,kv_split=1,sched=pingpong,persist=1
preset block_m=128,block_n=128,stages=3,kv_split=1,sched=pingpong,persist=0
preset block_m=192,block_n=128,stages=2,kv_split=1,sched=pingpong,persist=1
preset block_m=128,block_n=128,stages=2,kv_split=1,sched=plain,persist=0
preset block_m=128,block_n=176,stages=2,kv_split=1,sched=pingpong,persist=0
# small grids (B*H*S/64 near the SM count): 64-row blocks, keys split or not
preset block_m=64,block_n=128,stages=2,kv_split=2,sched=plain,persist=0
preset block_m=64,block_n=64,stages=2,kv_split=2,sched=plain,persist=0
preset block_m=64,block_n=128,stages=2,kv_split=1,sched=plain,persist=0
preset block_m=64,block_n=128,stages=2,kv_split=2,sched=pingpong,persist=0
preset block_m=64,block_n=128,stages=2,kv_split=2,sched=exp,persist=0
preset block_m=64,block_n=128,stages=2,kv_split=2,sched=plain,persist=0,exp_poly=8
*/
// Hopper variant (issue 8): fa3 — FlashAttention-3-style forward pass, sm_90a only.
// One kernel, one launch. Per block: BLOCK_M query rows of one (b, h), a producer warpgroup and
// NC consumer warpgroups (64 query rows each, or two per 64 rows when KV_SPLIT = 2).
//  - Producer (warpgroup 0, setmaxnreg down): one thread issues TMA tensor copies
//    (cp.async.bulk.tensor.3d through the CUtensorMaps the engine puts in AttnParams) of the Q
//    rows and of each K and V tile into a STAGES-deep ring; 128-byte swizzle, so the tiles land
//    in exactly the layout wgmma reads. Full/empty mbarriers per stage, K and V apart, so that
//    QK^T of a tile can start before its V has arrived.
//  - Consumers (setmaxnreg up): S = Q K^T by wgmma with both operands in shared memory; online
//    softmax on the accumulators (exp2, quad shuffles); P stays in registers as the A operand
//    of O += P V (V read MN-major through the descriptor, no transpose copy).
//  - Intra-warpgroup overlap (FA3): QK^T of tile t+1 and PV of tile t are in flight together
//    while the softmax of tile t+1 runs (wgmma.wait_group 1, then 0).
//  - Ping-pong (SCHED=0, 2-3 consumer warpgroups): named barriers let one warpgroup issue its
//    GEMMs while the other does its softmax, in turn (with KV_SPLIT=2 when both key halves
//    hold as many tiles). SCHED=2 puts the turns around the exponentials instead: one
//    warpgroup at a time on the MUFU pipe, the others' GEMMs and row maxima under it.
//  - KV_SPLIT=2 (small grids): two consumer warpgroups share the same 64 query rows and walk
//    halves of the key tiles from two rings, then merge (max, sum, O) through shared memory:
//    half the serial tile walk per block, and the whole machine busy at B*H*S/64 ~ SM count.
//  - Epilogue: O normalised, written to shared memory in the swizzled layout, then one TMA
//    store per 64 columns (rows past S are clipped by the tensor map). Storing straight from
//    the registers instead was 0.5 us slower at 2x8x512x64 (kernel notes, session 5).
//  - The first work tile's Q and first K tile(s) are requested right after the mbarrier init,
//    before the block-wide barrier: the cold DRAM round trip is the longest wait of a small grid.
//  - PERSIST=1: the engine launches one block per SM; each walks work tiles (bh, query block),
//    and the producer loads the next tile's Q and K/V while this one's PV and epilogue finish
//    (O is staged apart from Q for that; the rings' stages and phases carry on across tiles).
// Causal: blocks run heaviest first; key tiles past the block's last row are never loaded; the
// diagonal tile is masked. Not done: clusters/multicast, a dynamic tile scheduler, FP8.
#include "attn_params.h"
#include "common.cuh"
#include "hopper.cuh"
#include <cuda_fp16.h>

#ifndef HEAD_DIM
#define HEAD_DIM 64
#endif
#ifndef BLOCK_M
#define BLOCK_M 128
#endif
#ifndef BLOCK_N
#define BLOCK_N 128
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef KV_SPLIT
#define KV_SPLIT 1
#endif
#ifndef SCHED
#define SCHED 0 /* knob sched: 0 pingpong, 1 plain, 2 exp */
#endif
#ifndef PERSIST
#define PERSIST 0
#endif

#define QG (BLOCK_M / 64)                 /* 64-row query groups */
#define NC (QG * KV_SPLIT)                /* consumer warpgroups */
#define NTHREADS (128 * (NC + 1))
#define CB (HEAD_DIM / 64)                /* 64-column (128-byte) blocks per row */
#define TILE_BYTES (BLOCK_N * 128 * CB)   /* one K or V tile: [CB][BLOCK_N][128 B] */
#define QG_BYTES (64 * 128 * CB)          /* one query group: [CB][64][128 B] */
#define SREGS (BLOCK_N / 2)               /* S accumulators per thread */
#define OREGS (HEAD_DIM / 2)              /* O accumulators per thread */
#define TURNS (SCHED != 1 && NC >= 2)      /* consumer warpgroups take turns: */
#define GEMM_TURNS (TURNS && SCHED == 0)  /* at GEMM issue (pingpong) */
#define EXP_TURNS (TURNS && SCHED == 2)   /* at the exponentials (exp) */
#define BAR_SCHED 1                       /* named barriers 1..NC: whose turn to issue */
#define BAR_MERGE 4
#define BAR_EPI 5                         /* 5..7: one per query group */

static_assert(HEAD_DIM == 64 || HEAD_DIM == 128, "fa3: HEAD_DIM must be 64 or 128");
static_assert(BLOCK_N == 64 || BLOCK_N == 128 || BLOCK_N == 176, "fa3: BLOCK_N 64, 128 or 176");
static_assert(KV_SPLIT == 1 || (KV_SPLIT == 2 && QG == 1), "fa3: KV_SPLIT=2 needs BLOCK_M=64");
static_assert(NC >= 1 && NC <= 3, "fa3: 1 to 3 consumer warpgroups");
static_assert(!(PERSIST && KV_SPLIT == 2), "fa3: persistent blocks need KV_SPLIT=1");

// Register split after setmaxnreg (the totals match the cap at entry: 65536 / NTHREADS).
#if NC == 3
#define REG_PRODUCER 32
#define REG_CONSUMER 160
#else
#define REG_PRODUCER 24
#define REG_CONSUMER 240
#endif

// Timeline hooks: research/fa3_trace.cu defines TRACE(slot) before including this file; in every
// benchtop (NVRTC) build they compile to nothing.
#ifndef TRACE
#define TRACE(slot) do { } while (0)
#endif

#include "fa3_tile.cuh"

// mbarrier kinds per (ring, stage)
enum { FULL_K = 0, FULL_V = 1, EMPTY_K = 2, EMPTY_V = 3 };

// Work tile t of the logical grid (x fastest: query blocks of one head run together, so their
// K/V stay in L2); causal blocks heaviest first. Key ring r walks key tiles
// [r * half, r * half + count(r)); the producer and the consumers derive it the same way here.
struct WorkTile {
  int bh, m0, n_tiles, half;
  __device__ int count(int r) const { return max(0, min(half, n_tiles - r * half)); }
};
__device__ __forceinline__ WorkTile decode_tile(int t, int tiles_m, bool causal, int S) {
  WorkTile w;
  w.bh = t / tiles_m;
  const int x = t % tiles_m;
  w.m0 = (causal ? tiles_m - 1 - x : x) * BLOCK_M;
  const int kv_end = causal ? min(S, w.m0 + BLOCK_M) : S; // keys past the block's last row: never
  w.n_tiles = (kv_end + BLOCK_N - 1) / BLOCK_N;
  w.half = (w.n_tiles + KV_SPLIT - 1) / KV_SPLIT;
  return w;
}

extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
attn_fwd(const __grid_constant__ AttnParams p) {
  extern __shared__ unsigned char smem_raw[];
  // 1024-byte alignment for the 128B-swizzle tiles (the registry adds 1024 bytes of slack).
  const unsigned base = (bt_smem_u32(smem_raw) + 1023u) & ~1023u;
  const unsigned sQ = base;                                   // [QG][QG_BYTES]
  const unsigned sRing = sQ + QG * QG_BYTES;                  // [KV_SPLIT][STAGES][K|V]
  const unsigned sO = PERSIST ? sRing + KV_SPLIT * STAGES * 2 * TILE_BYTES : sQ; // O staging
  const unsigned bars = sRing + KV_SPLIT * STAGES * 2 * TILE_BYTES + (PERSIST ? QG * QG_BYTES : 0);
  const unsigned bar_q = bars, bar_qe = bars + 8; // Q full; Q free again (persistent blocks)
#define RING_K(r, st) (sRing + ((r) * STAGES + (st)) * 2 * TILE_BYTES)
#define RING_V(r, st) (RING_K(r, st) + TILE_BYTES)
#define BAR(r, st, kind) (bars + 8 * (2 + ((r) * STAGES + (st)) * 4 + (kind)))

  const int tid = threadIdx.x, wg = tid / 128, S = p.S;
  const bool causal = p.causal != 0;
  const int tiles_m = (S + BLOCK_M - 1) / BLOCK_M, total = tiles_m * p.B * p.H;
#if PERSIST
  const int first = blockIdx.x, step = gridDim.x; // the engine launched min(total, SMs) blocks
#else
  const int first = blockIdx.y * tiles_m + blockIdx.x, step = total;
#endif
  // Producer thread: Q of work tile w, and tile i of ring r (kind 0 K, 1 V) into stage u % STAGES.
  auto load_q = [&](const WorkTile &w) {
    bt_mbar_expect_tx(bar_q, QG * QG_BYTES);
    for (int g = 0; g < QG; g++)
      for (int cb = 0; cb < CB; cb++)
        bt_tma_load_3d(sQ + g * QG_BYTES + cb * (64 * 128), &p.tmap_q, 64 * cb, w.m0 + 64 * g, w.bh,
                       bar_q);
  };
  auto load_kv = [&](const WorkTile &w, int r, int i, int kind, int u) {
    const int st = u % STAGES;
    const unsigned full = BAR(r, st, FULL_K + kind);
    const unsigned dst = kind ? RING_V(r, st) : RING_K(r, st);
    bt_mbar_expect_tx(full, TILE_BYTES);
    for (int cb = 0; cb < CB; cb++)
      bt_tma_load_3d(dst + cb * (BLOCK_N * 128), kind ? &p.tmap_v : &p.tmap_k, 64 * cb,
                     (r * w.half + i) * BLOCK_N, w.bh, full);
  };

  if (tid == 0) {
    TRACE(0);
    bt_mbar_init(bar_q, 1);
    bt_mbar_init(bar_qe, 4 * NC); // every consumer warp reads Q
    for (int r = 0; r < KV_SPLIT; r++)
      for (int st = 0; st < STAGES; st++) {
        bt_mbar_init(BAR(r, st, FULL_K), 1); // the producer's arrive.expect_tx
        bt_mbar_init(BAR(r, st, FULL_V), 1);
        bt_mbar_init(BAR(r, st, EMPTY_K), 4 * QG); // one arrive per consumer warp of the ring
        bt_mbar_init(BAR(r, st, EMPTY_V), 4 * QG);
      }
    bt_mbar_fence_init();
    // The first work tile's Q and first K tile(s) go out now, not after the block-wide barrier
    // and the producer's setup: the cold DRAM round trip (~2400 cycles) starts ~500 earlier.
    bt_tmap_prefetch(&p.tmap_q);
    bt_tmap_prefetch(&p.tmap_k);
    if (first < total) {
      const WorkTile w = decode_tile(first, tiles_m, causal, S);
      load_q(w);
      for (int r = 0; r < KV_SPLIT; r++)
        if (w.count(r) > 0) load_kv(w, r, 0, 0, 0);
    }
  }
  __syncthreads();

  if (wg == 0) {
    // ---------------- producer warpgroup ----------------
#if NC >= 2
    bt_setmaxnreg_dec<REG_PRODUCER>();
#endif
    if (tid == 0) {
      bt_tmap_prefetch(&p.tmap_v);
      bt_tmap_prefetch(&p.tmap_o);
      TRACE(1);
      // When every block starts at once, all ask for their whole first tile together and the
      // slowest block's Q waits behind other blocks' V (Q's arrival spread 1.3 us over blocks,
      // 0.5 us with Q alone). V and later K tiles are needed a QK^T and a softmax after Q, so
      // non-persistent single-wave grids send them once Q is in (kernel notes, session 6).
      unsigned nsm;
      asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
      const bool one_wave = !PERSIST && gridDim.x * gridDim.y <= nsm;
      int used[KV_SPLIT]; // tiles each ring has carried so far: stage and phase continue
      for (int r = 0; r < KV_SPLIT; r++) used[r] = 0;
      int local = 0;
      for (int t = first; t < total; t += step, local++) {
        const WorkTile w = decode_tile(t, tiles_m, causal, S);
        if (local > 0) {
          bt_mbar_wait(bar_qe, (unsigned)((local - 1) & 1));
          load_q(w);
        } else if (one_wave) {
          bt_mbar_wait(bar_q, 0u); // the first Q has landed: now the rest of the tile's copies
        }
        for (int i = 0; i < w.half; i++) {
#pragma unroll
          for (int kind = 0; kind < 2; kind++) // all rings' K first: QK^T needs K before V
            for (int r = 0; r < KV_SPLIT; r++) {
              if (i >= w.count(r) || (local == 0 && i == 0 && kind == 0)) continue; // sent early
              const int u = used[r] + i, st = u % STAGES;
              // Before refilling a stage, wait until its last tile was released.
              if (u >= STAGES) bt_mbar_wait(BAR(r, st, EMPTY_K + kind), (unsigned)((u / STAGES - 1) & 1));
              load_kv(w, r, i, kind, u);
            }
        }
        for (int r = 0; r < KV_SPLIT; r++) used[r] += w.count(r);
      }
      TRACE(2);
    }
    return;
  }

  // ---------------- consumer warpgroups ----------------
#if NC >= 2
  bt_setmaxnreg_inc<REG_CONSUMER>();
#endif
  const int c = wg - 1, qg = c / KV_SPLIT, ring = c % KV_SPLIT;
  const int ltid = tid - 128 * wg, warp = ltid >> 5, lane = ltid & 31;
  const int g = lane >> 2, c4 = lane & 3;
  const unsigned myQ = sQ + qg * QG_BYTES, myO = sO + qg * QG_BYTES;
  const float sl2 = p.scale * 1.4426950408889634f;
  const float NEG_INF = __int_as_float(0xff800000);
#if TURNS
#if KV_SPLIT == 1
  if (c == NC - 1) bt_bar_arrive(BAR_SCHED + 0, 256); // warpgroup 0 issues first
#endif
  const int sched_me = BAR_SCHED + c, sched_next = BAR_SCHED + (c + 1) % NC;
#endif
  int used = 0, local = 0; // tiles this ring has carried; work tiles done

  for (int t = first; t < total; t += step, local++) {
    const WorkTile w = decode_tile(t, tiles_m, causal, S);
    const int q0 = w.m0 + 64 * qg;
    const int row_a = q0 + 16 * warp + g; // this thread's rows: row_a and row_a + 8
    const int t0 = ring * w.half, cnt = w.count(ring);
#if TURNS
    // The last warpgroup's last arrive would have no partner: the block is done after it.
    const bool final_tile = t + step >= total;
#if KV_SPLIT == 2
    // The two key halves take turns only when they hold as many tiles (a turn nobody gives
    // would hang); ragged or causal halves run unordered. KV_SPLIT=2 blocks carry one tile.
    const bool pp = w.count(0) == w.count(1);
    if (pp && c == NC - 1) bt_bar_arrive(BAR_SCHED + 0, 256); // ring 0 issues first
#else
    const bool pp = true;
#endif
#endif
    float o[OREGS];
#pragma unroll
    for (int i = 0; i < OREGS; i++) o[i] = 0.f;
    Rows rw = {NEG_INF, NEG_INF, 0.f, 0.f};

#define CTRACE(k) do { if (ltid == 0 && c < 3) TRACE(4 + 8 * c + (k)); } while (0)
    // Per-step hooks of a lone consumer (slots 12-27 are free when NC = 1): 4 per key tile.
#define STRACE(i, k) do { if (NC == 1 && ltid == 0 && (i) < 4) TRACE(12 + 4 * (i) + (k)); } while (0)
    CTRACE(0);
    if (cnt > 0) {
      bt_mbar_wait(bar_q, (unsigned)(local & 1));
      CTRACE(1);
      float s[SREGS];
      unsigned pa[BLOCK_N / 16][4];
      float al_a, al_b;
      // A tile needs masking if it reaches past S or (causal) past this warpgroup's first row.
      auto needs_mask = [&](int n0) { return n0 + BLOCK_N > S || (causal && n0 + BLOCK_N - 1 > q0); };
      // The softmax of the tile in s; with EXP_TURNS its exponentials wait for this
      // warpgroup's turn (last: this ring's last tile, whose final arrive may have no partner).
      auto softmax = [&](bool last) {
#if EXP_TURNS
        softmax_max(s, rw, sl2, al_a, al_b);
        if (pp) bt_bar_sync(sched_me, 256);
        softmax_exp(s, rw, sl2, al_a, al_b);
        if (pp && !(c == NC - 1 && last && final_tile)) bt_bar_arrive(sched_next, 256);
#else
        (void)last;
        softmax_tile(s, rw, sl2, al_a, al_b);
#endif
      };

      // Tile 0: S_0 alone.
      {
        const int u = used, st = u % STAGES;
        bt_mbar_wait(BAR(ring, st, FULL_K), (unsigned)((u / STAGES) & 1));
        CTRACE(2);
#if GEMM_TURNS
        if (pp) bt_bar_sync(sched_me, 256);
#endif
        issue_qk(s, myQ, RING_K(ring, st));
#if GEMM_TURNS
        if (pp && !(c == NC - 1 && cnt == 1 && final_tile)) bt_bar_arrive(sched_next, 256);
#endif
        bt_wgmma_wait<0>();
        bt_pin(s);
        if (lane == 0) {
          bt_mbar_arrive(BAR(ring, st, EMPTY_K));
          if (cnt == 1) bt_mbar_arrive(bar_qe); // this warp's last read of Q
        }
        if (needs_mask(t0 * BLOCK_N)) mask_tile(s, t0 * BLOCK_N, S, causal, row_a, c4);
        softmax(cnt == 1);
        pack_p(s, pa);
        CTRACE(3);
      }

      // Tile i: S_i = Q K_i^T and O += P_{i-1} V_{i-1} in flight while softmax(S_i) runs.
      for (int i = 1; i < cnt; i++) {
        const int u = used + i, st = u % STAGES, pst = (u - 1) % STAGES;
        bt_mbar_wait(BAR(ring, st, FULL_K), (unsigned)((u / STAGES) & 1));
        STRACE(i, 0);
#if GEMM_TURNS
        if (pp) bt_bar_sync(sched_me, 256);
#endif
        issue_qk(s, myQ, RING_K(ring, st));
        rescale_o(o, al_a, al_b); // to the max P_{i-1} was taken against
        bt_mbar_wait(BAR(ring, pst, FULL_V), (unsigned)(((u - 1) / STAGES) & 1));
        STRACE(i, 1);
        issue_pv(o, pa, RING_V(ring, pst));
#if GEMM_TURNS
        if (pp && !(c == NC - 1 && i == cnt - 1 && final_tile)) bt_bar_arrive(sched_next, 256);
#endif
        bt_wgmma_wait<1>(); // S_i is ready; P_{i-1} V_{i-1} may still run
        bt_pin(s);
        STRACE(i, 2);
        if (lane == 0) {
          bt_mbar_arrive(BAR(ring, st, EMPTY_K));
          if (i == cnt - 1) bt_mbar_arrive(bar_qe);
        }
        const int n0 = (t0 + i) * BLOCK_N;
        if (needs_mask(n0)) mask_tile(s, n0, S, causal, row_a, c4);
        softmax(i == cnt - 1);
        STRACE(i, 3);
        bt_wgmma_wait<0>(); // P_{i-1} V_{i-1} done: its registers and V stage are free
        bt_pin(o);
        bt_pin(s);
        if (lane == 0) bt_mbar_arrive(BAR(ring, pst, EMPTY_V));
        pack_p(s, pa);
      }

      // Last PV.
      const int lu = used + cnt - 1, lst = lu % STAGES;
      rescale_o(o, al_a, al_b);
      bt_mbar_wait(BAR(ring, lst, FULL_V), (unsigned)((lu / STAGES) & 1));
      CTRACE(4);
      issue_pv(o, pa, RING_V(ring, lst));
      bt_wgmma_wait<0>();
      bt_pin(o);
      CTRACE(5);
      if (lane == 0) bt_mbar_arrive(BAR(ring, lst, EMPTY_V));
    } else if (lane == 0) {
      bt_mbar_arrive(bar_qe); // no tile here (key split, early causal block): Q not needed
    }
    used += cnt;

#if KV_SPLIT == 2
    // ---- merge the two key halves: ring 1's consumer hands (O, m, l) over through ring 1's
    // stage memory, idle now (all its loads were consumed, all its wgmma reads are complete;
    // blocks are not persistent with KV_SPLIT=2, so no later tile refills it).
    {
      const unsigned xfer = RING_K(1, 0);
      if (ring == 1) {
#pragma unroll
        for (int i = 0; i < OREGS; i++)
          asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(xfer + (i * 128 + ltid) * 4), "f"(o[i]) : "memory");
        const float st4[4] = {rw.m_a, rw.m_b, rw.l_a, rw.l_b};
#pragma unroll
        for (int i = 0; i < 4; i++)
          asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(xfer + ((OREGS + i) * 128 + ltid) * 4), "f"(st4[i]) : "memory");
        bt_bar_arrive(BAR_MERGE, 256);
        continue;
      }
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
#endif

    // ---- epilogue: normalise, write fp16 O into the staging tile (swizzled, conflict-free:
    // the 8 rows of a store land in 8 different 16-byte chunks), then TMA-store it ----
    float l_a = rw.l_a, l_b = rw.l_b;
    l_a += __shfl_xor_sync(0xffffffffu, l_a, 1);
    l_a += __shfl_xor_sync(0xffffffffu, l_a, 2);
    l_b += __shfl_xor_sync(0xffffffffu, l_b, 1);
    l_b += __shfl_xor_sync(0xffffffffu, l_b, 2);
    const float inv_a = l_a > 0.f ? 1.f / l_a : 0.f, inv_b = l_b > 0.f ? 1.f / l_b : 0.f;
    const int r_a = 16 * warp + g; // row inside the group; r_a + 8 has the same swizzle
#if PERSIST
    bt_bar_sync(BAR_EPI + qg, 128); // the previous tile's store has read the staging tile
#endif
#pragma unroll
    for (int j = 0; j < OREGS / 4; j++) {
      const unsigned chunk = myO + (j >> 3) * (64 * 128) + ((((unsigned)j & 7) ^ (r_a & 7)) << 4) + 4 * c4;
      asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(chunk + r_a * 128),
                   "r"(bt_pack_half2(o[4 * j] * inv_a, o[4 * j + 1] * inv_a)) : "memory");
      asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(chunk + (r_a + 8) * 128),
                   "r"(bt_pack_half2(o[4 * j + 2] * inv_b, o[4 * j + 3] * inv_b)) : "memory");
    }
    bt_fence_proxy_async();
    bt_bar_sync(BAR_EPI + qg, 128);
    CTRACE(6);
    if (ltid == 0) {
      for (int cb = 0; cb < CB; cb++) bt_tma_store_3d(&p.tmap_o, myO + cb * (64 * 128), 64 * cb, q0, w.bh);
      bt_tma_store_commit_and_wait();
    }
    CTRACE(7);
#undef CTRACE
#undef STRACE
  }
#undef RING_K
#undef RING_V
#undef BAR
}
