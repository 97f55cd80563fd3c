/* benchtop
name      fa3
summary   Hopper FlashAttention-3 style: wgmma, TMA tensor maps + mbarriers, warp-specialised, intra-warpgroup overlap, ping-pong
rung      10
builds_on mma
head_dims 64 128 256
arch      sm_90a
tolerance 2e-3 bf16 1e-2
dtypes    fp16 bf16
supports  gqa kv_cache
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
# D=256: O alone is 128 registers a thread
refuse D == 256 && (block_n > 64 || consumers > 2 || kv_split == 2) : fa3: D=256 fits the registers with block_n=64, at most 2 consumer warpgroups and kv_split=1
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
# D=256 (and a small-tile choice at 64 and 128)
preset block_m=128,block_n=64,stages=2,kv_split=1,sched=pingpong,persist=0
*/
// Hopper variant: fa3 — FlashAttention-3-style forward pass, sm_90a only.
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
//    the registers instead was 0.5 us slower at 2x8x512x64.
//  - The first work tile's Q and first K tile(s) are requested right after the mbarrier init,
//    before the block-wide barrier: the cold DRAM round trip is the longest wait of a small grid.
//  - PERSIST=1: the engine launches one block per SM; each walks work tiles (bh, query block),
//    and the producer loads the next tile's Q and K/V while this one's PV and epilogue finish
//    (O is staged apart from Q for that; the rings' stages and phases carry on across tiles).
// Causal: blocks run heaviest first; key tiles past the block's last row are never loaded; the
// diagonal tile is masked. Not done: clusters/multicast, a dynamic tile scheduler, FP8.
// The code reads as its phases: here start_block and produce (the producer thread's loads); in
// fa3_consumer.cuh consume, per work tile the main loop (tile_first, tile_next, tile_last_pv
// over fa3_tile.cuh's GEMM issue, masking and softmax), merge_halves (KV_SPLIT=2) and store_o
// (the epilogue). All force-inlined: registers and spills are those of one long function.
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

static_assert(HEAD_DIM == 64 || HEAD_DIM == 128 || HEAD_DIM == 256, "fa3: HEAD_DIM must be 64, 128 or 256");
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

// Shared memory (32-bit addresses), 1024-byte aligned for the 128B-swizzle tiles (the registry
// adds 1024 bytes of slack): Q [QG][QG_BYTES], the key rings [KV_SPLIT][STAGES][K|V], with
// PERSIST a separate O staging tile (else O is staged over Q), then the mbarriers: Q full, Q
// free again (persistent blocks), and four per (ring, stage).
struct Smem {
  unsigned q, ring, o, bars;
  __device__ unsigned ring_k(int r, int st) const { return ring + (r * STAGES + st) * 2 * TILE_BYTES; }
  __device__ unsigned ring_v(int r, int st) const { return ring_k(r, st) + TILE_BYTES; }
  __device__ unsigned bar(int r, int st, int kind) const {
    return bars + 8 * (2 + (r * STAGES + st) * 4 + kind);
  }
  __device__ unsigned bar_q() const { return bars; }
  __device__ unsigned bar_qe() const { return bars + 8; }
};
__device__ __forceinline__ Smem smem_layout(const unsigned char *raw) {
  Smem sm;
  sm.q = (bt_smem_u32(raw) + 1023u) & ~1023u;
  sm.ring = sm.q + QG * QG_BYTES;
  sm.o = PERSIST ? sm.ring + KV_SPLIT * STAGES * 2 * TILE_BYTES : sm.q;
  sm.bars = sm.ring + KV_SPLIT * STAGES * 2 * TILE_BYTES + (PERSIST ? QG * QG_BYTES : 0);
  return sm;
}

// Work tile t of the logical grid (x fastest: query blocks of one head run together, so their
// K/V stay in L2; level: heads fastest); causal blocks heaviest first. Key ring r walks key tiles
// [r * half, r * half + count(r)); the producer and the consumers derive it the same way here.
struct WorkTile {
  int bh, m0, n_tiles, half;
  __device__ int count(int r) const { return max(0, min(half, n_tiles - r * half)); }
};
__device__ __forceinline__ WorkTile decode_tile(int t, int tiles_m, int bhs, bool level, bool causal,
                                                int Skv, int shift) {
  WorkTile w;
  w.bh = level ? t % bhs : t / tiles_m;
  const int x = level ? t / bhs : t % tiles_m;
  w.m0 = (causal ? tiles_m - 1 - x : x) * BLOCK_M;
  // Keys past the last one the block's last row sees (row + Skv - S when causal): never loaded.
  const int kv_end = causal ? min(Skv, w.m0 + BLOCK_M + shift) : Skv;
  w.n_tiles = (kv_end + BLOCK_N - 1) / BLOCK_N;
  w.half = (w.n_tiles + KV_SPLIT - 1) / KV_SPLIT;
  return w;
}

// The work tiles of this block: first, first + step, ... below total.
struct Walk {
  int tiles_m, total, first, step;
  bool causal, level;
  int S, Skv, shift; // query and key lengths; shift = Skv - S, the causal diagonal's offset
  __device__ WorkTile tile(int t) const { return decode_tile(t, tiles_m, total / tiles_m, level, causal, Skv, shift); }
};
__device__ __forceinline__ Walk block_walk(const AttnParams &p) {
  Walk k;
  k.S = p.S;
  k.Skv = p.Skv;
  k.shift = bt_causal_shift(p);
  k.causal = p.causal != 0;
  k.tiles_m = (k.S + BLOCK_M - 1) / BLOCK_M;
  k.total = k.tiles_m * p.B * p.H;
  // Persistent blocks: the engine launched min(total, SMs) of them, each walks every step-th.
  k.first = PERSIST ? (int)blockIdx.x : (int)(blockIdx.y * k.tiles_m + blockIdx.x);
  k.step = PERSIST ? (int)gridDim.x : k.total;
  // Causal and persistent, with >= 3 tiles a block or >= 16 query blocks a head (work from 1 to
  // 16+ key tiles): the heaviest query block of every head first, then the next (longest first
  // over the whole grid; a block's stride otherwise mixes heavy and light tiles by accident).
  // Otherwise, or blocks the hardware orders: head by head.
  k.level = PERSIST && k.causal && (k.total >= 3 * (int)gridDim.x || k.tiles_m >= 16);
  return k;
}

// ---- loads: the producer thread's TMA copies ------------------------------------------------

// Q of work tile w.
__device__ __forceinline__ void load_q(const Smem &sm, const AttnParams &p, const WorkTile &w) {
  bt_mbar_expect_tx(sm.bar_q(), QG * QG_BYTES);
  for (int g = 0; g < QG; g++)
    for (int cb = 0; cb < CB; cb++)
      bt_tma_load_3d(sm.q + g * QG_BYTES + cb * (64 * 128), &p.tmap_q, 64 * cb, w.m0 + 64 * g, w.bh,
                     sm.bar_q());
}
// Key tile i of ring r (kind 0 K, 1 V) of work tile w into stage u % STAGES, from the K/V head
// of the tile's query head (GQA: the K/V maps are [B*Hkv][Skv][D]).
__device__ __forceinline__ void load_kv(const Smem &sm, const AttnParams &p, const WorkTile &w,
                                        int r, int i, int kind, int u) {
  const int st = u % STAGES;
  const unsigned full = sm.bar(r, st, FULL_K + kind);
  const unsigned dst = kind ? sm.ring_v(r, st) : sm.ring_k(r, st);
  bt_mbar_expect_tx(full, TILE_BYTES);
  for (int cb = 0; cb < CB; cb++)
    bt_tma_load_3d(dst + cb * (BLOCK_N * 128), kind ? &p.tmap_v : &p.tmap_k, 64 * cb,
                   (r * w.half + i) * BLOCK_N, bt_kv_bh(p, w.bh), full);
}

// Thread 0 at entry: the mbarriers, then the first work tile's Q and first K tile(s) at once,
// not after the block-wide barrier and the producer's setup: the cold DRAM round trip (~2400
// cycles) starts ~500 earlier.
__device__ __forceinline__ void start_block(const Smem &sm, const AttnParams &p, const Walk &k) {
  TRACE(0);
  bt_mbar_init(sm.bar_q(), 1);
  bt_mbar_init(sm.bar_qe(), 4 * NC); // every consumer warp reads Q
  for (int r = 0; r < KV_SPLIT; r++)
    for (int st = 0; st < STAGES; st++) {
      bt_mbar_init(sm.bar(r, st, FULL_K), 1); // the producer's arrive.expect_tx
      bt_mbar_init(sm.bar(r, st, FULL_V), 1);
      bt_mbar_init(sm.bar(r, st, EMPTY_K), 4 * QG); // one arrive per consumer warp of the ring
      bt_mbar_init(sm.bar(r, st, EMPTY_V), 4 * QG);
    }
  bt_mbar_fence_init();
  bt_tmap_prefetch(&p.tmap_q);
  bt_tmap_prefetch(&p.tmap_k);
  if (k.first < k.total) {
    const WorkTile w = k.tile(k.first);
    load_q(sm, p, w);
    for (int r = 0; r < KV_SPLIT; r++)
      if (w.count(r) > 0) load_kv(sm, p, w, r, 0, 0, 0);
  }
}

// The producer thread's loop over its block's work tiles: Q (after the consumers released the
// previous one), then every ring's K and V tiles, each stage refilled once its last tile was
// released.
__device__ __forceinline__ void produce(const Smem &sm, const AttnParams &p, const Walk &k) {
  bt_tmap_prefetch(&p.tmap_v);
  bt_tmap_prefetch(&p.tmap_o);
  TRACE(1);
  // When every block starts at once, all ask for their whole first tile together and the
  // slowest block's Q waits behind other blocks' V (Q's arrival spread 1.3 us over blocks,
  // 0.5 us with Q alone). V and later K tiles are needed a QK^T and a softmax after Q, so
  // non-persistent single-wave grids send them once Q is in.
  unsigned nsm;
  asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  const bool one_wave = !PERSIST && gridDim.x * gridDim.y <= nsm;
  int used[KV_SPLIT]; // tiles each ring has carried so far: stage and phase continue
  for (int r = 0; r < KV_SPLIT; r++) used[r] = 0;
  int local = 0;
  for (int t = k.first; t < k.total; t += k.step, local++) {
    const WorkTile w = k.tile(t);
    if (local > 0) {
      bt_mbar_wait(sm.bar_qe(), (unsigned)((local - 1) & 1));
      load_q(sm, p, w);
    } else if (one_wave) {
      bt_mbar_wait(sm.bar_q(), 0u); // the first Q has landed: now the rest of the tile's copies
    }
    for (int i = 0; i < w.half; i++) {
#pragma unroll
      for (int kind = 0; kind < 2; kind++) // all rings' K first: QK^T needs K before V
        for (int r = 0; r < KV_SPLIT; r++) {
          if (i >= w.count(r) || (local == 0 && i == 0 && kind == 0)) continue; // sent early
          const int u = used[r] + i, st = u % STAGES;
          // Before refilling a stage, wait until its last tile was released.
          if (u >= STAGES) bt_mbar_wait(sm.bar(r, st, EMPTY_K + kind), (unsigned)((u / STAGES - 1) & 1));
          load_kv(sm, p, w, r, i, kind, u);
        }
    }
    for (int r = 0; r < KV_SPLIT; r++) used[r] += w.count(r);
  }
  TRACE(2);
}

#include "fa3_consumer.cuh"

// One block: thread 0 sets up and starts the first loads, then the producer warpgroup gives its
// registers to the consumers and one of its threads walks the loads while the consumers attend.
extern "C" __global__ void __launch_bounds__(NTHREADS, 1)
attn_fwd(const __grid_constant__ AttnParams p) {
  extern __shared__ unsigned char smem_raw[];
  const Smem sm = smem_layout(smem_raw);
  const int tid = threadIdx.x, wg = tid / 128;
  const Walk k = block_walk(p);
  if (tid == 0) start_block(sm, p, k);
  __syncthreads();

  if (wg == 0) {
    if (NC >= 2) bt_setmaxnreg_dec<REG_PRODUCER>();
    if (tid == 0) produce(sm, p, k);
    return;
  }
  if (NC >= 2) bt_setmaxnreg_inc<REG_CONSUMER>();
  consume(sm, p, k, consumer_of(sm, p, tid, wg));
}
