/* benchtop
name      mma
summary   FlashAttention-2: mma.sync m16n8k16, ldmatrix, cp.async, softmax in registers, split-KV
rung      7
builds_on wmma
head_dims 64 96 128 256
arch      sm_80
tolerance 2e-3 bf16 1e-2
dtypes    fp16 bf16
supports  gqa kv_cache
knob block_m BLOCK_M  {64, 128, 32} : query rows per block
knob block_n BLOCK_N  {64, 32, 128} : key rows per K/V tile
knob warps   WARPS    {4, 8, 2}     : warps per block (each owns block_m/warps query rows)
knob stages  STAGES   {2, 3}        : K/V tiles in flight (cp.async)
# mma.cu compiles its split kernel unless SPLIT_KV == 1; the count itself is `splits` below.
# Default 1: auto (2 splits at 2x8x512x64) measured slower on an H200, 15.2 vs 12.5 us.
knob split   SPLIT_KV {1, 2, 4, 8, auto=0} : key-range splits per query block, merged by a combine step (auto: by shape, small grids)

let rows   = block_m / warps
# a shared-memory row: D=96 is laid out in 128-element rows (the swizzle needs 8 chunks a row)
let srow   = D == 96 ? 128 : D
let smem   = (block_m * srow + stages * 2 * block_n * srow) * 2
let ktiles = cdiv(Skv, block_n)
# split=auto doubles the splits (at most 8) while the grid stays within 8 warps per SM of this
# device (2 per scheduler hide the mma/softmax latency) and every split keeps >= 2 key tiles
let warps_total = cdiv(S, block_m) * B * H * warps
let auto_splits = warps_total * 8 <= 8 * sms && ktiles >= 16 ? 8 : \
                  warps_total * 4 <= 8 * sms && ktiles >= 8 ? 4 : \
                  warps_total * 2 <= 8 * sms && ktiles >= 4 ? 2 : 1
splits split == "auto" ? auto_splits : min(split, ktiles)

# What compiles without spills (NVRTC 13.0, sm_80/89/90): every setting with 16 or 32 rows per
# warp within the shared memory was compiled; these are the ones that spilled.
refuse block_m % warps != 0 || (rows != 16 && rows != 32) : mma needs block_m/warps = 16 or 32 query rows per warp
refuse rows == 32 && block_n > 64 : mma: 32 rows per warp fits the registers with block_n<=64
# split=1: the module then leaves out attn_split, which spills 20 bytes here on sm_90
refuse D == 128 && rows == 32 && block_n == 64 && (warps != 4 || stages != 2 || split != 1) : mma: D=128 with 32 rows per warp and block_n=64 fits the registers only as warps=4, stages=2, split=1
refuse D == 128 && rows == 32 && warps == 2 && stages == 3 : mma: D=128 with 2 warps of 32 rows spills with 3 stages (use stages=2)
refuse D == 128 && block_m == 64 && block_n == 32 && warps == 4 && stages == 2 : mma: D=128, block_m=64, block_n=32, 4 warps spills with 2 stages (use stages=3)
refuse D == 64 && block_m == 128 && block_n == 64 && warps == 8 && stages == 3 : mma: D=64, block_m=128, block_n=64, 8 warps spills with 3 stages on sm_90 (use stages=2)
refuse D == 96 && warps == 8 && block_n == 32 : mma: D=96 with 8 warps and block_n=32 spills (use block_n=64 or 4 warps)
# D=256: O alone is 128 registers a thread at 16 rows per warp
refuse D == 256 && (rows != 16 || block_n > 32) : mma: D=256 fits the registers with 16 rows per warp and block_n=32
# 99 KiB: the most one block may use on sm_86/sm_89; a setting must run on every supported GPU
refuse smem > 101376 : mma: Q tile + stages*K/V tiles exceed 99 KiB of shared memory (lower stages/block_n)

# attn_fwd runs unsplit shapes, attn_split split ones (an empty grid is not launched); combine
# merges the splits: 128 threads, one per (row, 8 halves of d)
kernel attn_fwd   grid(cdiv(S, block_m), B * H, splits > 1 ? 0 : 1)      block(32 * warps) smem(smem)
kernel attn_split grid(cdiv(S, block_m), B * H, splits > 1 ? splits : 0) block(32 * warps) smem(smem)
kernel combine    grid(splits > 1 ? cdiv(S, 128 / max(D / 8, 1)) : 0, B * H) block(128)
scratch o_f32 splits > 1 ? splits * B * H * S * D * 4 : 0
scratch lse   splits > 1 ? splits * B * H * S * 4 : 0

preset block_m=64,block_n=64,warps=4,stages=2
preset block_m=128,block_n=64,warps=8,stages=2
preset block_m=64,block_n=32,warps=4,stages=3
preset block_m=128,block_n=32,warps=8,stages=3
preset block_m=32,block_n=64,warps=2,stages=2
preset block_m=64,block_n=64,warps=4,stages=2,split=auto
# fastest at 2x8x512x64 under ncu (H200): fewer, longer key tiles
preset block_m=64,block_n=128,warps=4,stages=2
preset block_m=128,block_n=32,warps=4,stages=2
# FlashAttention-2's own tiling on sm_80/sm_90 at D=128
preset block_m=128,block_n=64,warps=4,stages=2,split=1
# D=256
preset block_m=64,block_n=32,warps=4,stages=2
*/
// Rung 7 of the ladder: mma — register-resident FlashAttention-2.
// Changes from wmma (rung 6): the WMMA black box is replaced by raw mma.sync m16n8k16 (inline
// PTX) whose fragment layout is known, so the score tile S = QK^T never leaves registers: the
// online softmax runs on the accumulators (exp2 with scale*log2(e) folded into one FMA, row
// max/sum via quad shuffles), P is repacked in registers as fp16 A-fragments and fed straight
// into the PV mma. Operands come from shared memory through ldmatrix (.x4; .trans for V), K/V
// tiles stream in through a STAGES-deep cp.async pipeline, and the tiles are XOR-swizzled in
// 16-byte chunks (chunk ^ row%8): no padding and no bank conflicts for cp.async writes,
// ldmatrix reads and the staged output. Causal blocks skip key tiles above the diagonal and are
// scheduled heaviest first. Knobs: BLOCK_M query rows per block, BLOCK_N keys per tile, WARPS
// (each owns BLOCK_M/WARPS = 16 or 32 query rows), STAGES (cp.async depth).
// Split-KV: with gridDim.z = splits > 1, block z walks only its share of the key tiles and
// writes a normalised fp32 partial O to p.o_f32[z][bh][S][D] and its log2-sum-exp2 to
// p.lse[z][bh][S] (log2 domain: lse2 = max*scale*log2e + log2(sum)); the `combine` step then
// merges the splits into fp16 O. With one split the registry gives `combine` an empty grid (the
// engine skips it) and the block writes fp16 O itself. Knob split (1|2|4|8|auto) only steers the
// declaration's grid; the kernel reads the split count from gridDim.z / p.num_splits; with split=1
// the split kernel's body is left out of the module.
// Two details let FlashAttention-2's own D=128 tiling (128x64, 4 warps) fit in registers: the O
// rescale runs only when a row's max rises by more than 2^8 over the base P is taken against
// (one warp vote per tile), and each thread's cp.async addresses are one base plus immediates.
// The body reads as its phases: key_range, load_prologue, then per key tile qk_tile, mask_tile,
// softmax_tile and pv_tile, and store_o (force-inlined: registers and spills are those of one
// long function).
// Expect in the metrics: far fewer instructions than wmma; tensor pipe utilisation the highest
// of the fp16 ladder; shared-memory bank conflicts ~0; occupancy bounded by registers
// (see `check-kernels`) and by dynamic shared memory (Q tile + STAGES K/V tiles).
#include "attn_params.h"
#include "common.cuh"
#include "sm80.cuh"
#include <cuda_fp16.h>

#ifndef HEAD_DIM
#define HEAD_DIM 64
#endif
#ifndef BLOCK_M
#define BLOCK_M 64
#endif
#ifndef BLOCK_N
#define BLOCK_N 64
#endif
#ifndef WARPS
#define WARPS 4
#endif
#ifndef STAGES
#define STAGES 2
#endif

#define NT (WARPS * 32)                /* threads per block */
#define WARP_ROWS (BLOCK_M / WARPS)    /* query rows owned by one warp */
#define MT (WARP_ROWS / 16)            /* m16 tiles per warp */
#define CPR (HEAD_DIM / 8)             /* 16-byte chunks per row in global memory */
/* Elements per row in shared memory: D=96's 12 chunks sit in 16-chunk rows, since the XOR
 * swizzle (chunk ^ row%8) moves a chunk anywhere within its 8-chunk group; the 4 spare slots
 * of a row are never written nor read. */
#define SROW (HEAD_DIM == 96 ? 128 : HEAD_DIM)
#define NTILES (BLOCK_N / 8)           /* n8 score tiles per warp row block */
#define DTILES (HEAD_DIM / 8)          /* n8 output tiles */
/* 2 m-tiles of Q, or D=256's 64 registers of it, would crowd out the accumulators */
#define Q_IN_REGS (MT == 1 && HEAD_DIM <= 128)

static_assert(HEAD_DIM == 64 || HEAD_DIM == 96 || HEAD_DIM == 128 || HEAD_DIM == 256,
              "mma: HEAD_DIM must be 64, 96, 128 or 256");
static_assert(WARP_ROWS == 16 || WARP_ROWS == 32, "mma: BLOCK_M/WARPS must be 16 or 32");
static_assert(BLOCK_N % 16 == 0, "mma: BLOCK_N must be a multiple of 16");
static_assert(NT % CPR != 0 || ((BLOCK_M * CPR) % NT == 0 && (BLOCK_N * CPR) % NT == 0),
              "mma: tile chunks must divide evenly among the threads");
static_assert(STAGES >= 2 && STAGES <= 4, "mma: STAGES must be 2..4");

#include "mma_phases.cuh"

// The whole attention body; SPLIT: this block owns one key range of gridDim.z and writes a
// partial. Two instantiations (attn_fwd, attn_split) so that the unsplit kernel keeps its own
// register allocation: one kernel with both epilogues needed ~30 more registers and spilled.
template <bool SPLIT> __device__ __forceinline__ void attn_body(const AttnParams &p) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  bt_elem *sQ = reinterpret_cast<bt_elem *>(smem_raw);
  bt_elem *sK = sQ + BLOCK_M * SROW;
  bt_elem *sV = sK + STAGES * BLOCK_N * SROW;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int S = p.S, Skv = p.Skv;
  const bool causal = p.causal != 0;
  const int m0 = query_block(p) * BLOCK_M;
  // Query head blockIdx.y reads key/value head bt_kv_bh (GQA: H / Hkv query heads share one).
  const size_t head = (size_t)blockIdx.y * S * HEAD_DIM;
  const size_t kv_head = (size_t)bt_kv_bh(p, blockIdx.y) * Skv * HEAD_DIM;
  const bt_elem *Q = static_cast<const bt_elem *>(p.q) + head;
  const bt_elem *K = static_cast<const bt_elem *>(p.k) + kv_head;
  const bt_elem *V = static_cast<const bt_elem *>(p.v) + kv_head;

  const int kv_end = bt_key_end(p, m0, BLOCK_M);
  const KeyRange kr = key_range<SPLIT>(Skv, kv_end);
  if (SPLIT && kr.n_tiles == 0) {
    // Nothing visible in this key range (causal, early query block): an empty partial.
    const float NEG = __int_as_float(0xff800000);
    for (int r = tid; r < BLOCK_M; r += NT)
      if (m0 + r < S) p.lse[((size_t)blockIdx.z * gridDim.y + blockIdx.y) * S + m0 + r] = NEG;
    return;
  }
  load_prologue(sQ, sK, sV, Q, K, V, m0, kr, S, Skv, tid);

  const float sl2 = p.scale * 1.4426950408889634f; // scores -> log2 domain
  const float NEG_INF = __int_as_float(0xff800000);
  // The last key the warp's first query row sees (its row + Skv - S when causal; past every key
  // otherwise, so that the causal tests below need no flag of their own).
  const int diag0 = causal ? m0 + warp * WARP_ROWS + bt_causal_shift(p) : 0x3fffffff;
  const int g = lane >> 2, c4 = lane & 3;  // mma fragment coordinates

  // The online-softmax state of this thread's rows (see softmax_tile).
  float o[MT][DTILES][4];
  float row_m[MT][2], row_l[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; mt++) {
#pragma unroll
    for (int dt = 0; dt < DTILES; dt++) o[mt][dt][0] = o[mt][dt][1] = o[mt][dt][2] = o[mt][dt][3] = 0.f;
    row_m[mt][0] = row_m[mt][1] = NEG_INF;
    row_l[mt][0] = row_l[mt][1] = 0.f;
  }
  unsigned qf[HEAD_DIM / 16][4]; // Q fragments, loaded once (Q_IN_REGS only)
  const Lanes ln = lane_addresses(sQ, sK, sV, warp, lane);

  // Main loop: wait for tile t, refill the stage tile t-1 used, then QK^T, mask, softmax, PV.
  int st_read = 0, st_write = STAGES - 1; // stage of tile t, stage of tile t+STAGES-1
  for (int t = 0; t < kr.n_tiles; t++) {
    bt_cp_async_wait<STAGES - 2>(); // this thread's copies of tile t have landed
    __syncthreads();                // everyone's have; and everyone is done with tile t-1's stage
    {
      const int tn = t + STAGES - 1; // refill the stage freed by tile t-1
      if (tn < kr.n_tiles) {
        load_tile<BLOCK_N>(sK + st_write * BLOCK_N * SROW, K, (kr.tile0 + tn) * BLOCK_N, Skv, tid);
        load_tile<BLOCK_N>(sV + st_write * BLOCK_N * SROW, V, (kr.tile0 + tn) * BLOCK_N, Skv, tid);
      }
      bt_cp_async_commit();
      st_write = st_write == STAGES - 1 ? 0 : st_write + 1;
    }
    const int st = st_read;
    st_read = st_read == STAGES - 1 ? 0 : st_read + 1;
#if Q_IN_REGS
    if (t == 0) {
#pragma unroll
      for (int kk = 0; kk < HEAD_DIM / 16; kk++) bt_ldsm_x4(qf[kk], ln.q_addr + (((2 * kk) ^ ln.q_x) << 4));
    }
#endif
    const int n0 = (kr.tile0 + t) * BLOCK_N;
    // Causal: every key of this tile lies after every query row of this warp.
    if (n0 > diag0 + WARP_ROWS - 1) continue;

    const unsigned k_addr = ln.k_lane + st * (BLOCK_N * SROW * 2);
    const unsigned v_addr = ln.v_lane + st * (BLOCK_N * SROW * 2);
    float s[MT][NTILES][4];
    qk_tile(s, qf, ln, k_addr);
    if (n0 + BLOCK_N > Skv || n0 + BLOCK_N - 1 > diag0) mask_tile(s, n0, Skv, diag0, g, c4);
    softmax_tile(s, o, row_m, row_l, sl2);
    pv_tile(o, s, ln, v_addr);
  }
  bt_cp_async_wait<0>();
  store_o<SPLIT>(o, row_m, row_l, p, sQ, warp, lane);
}

// 2-warp blocks: the default occupancy heuristic capped attn_fwd at 168 registers and spilled.
#if WARPS == 2
#define FWD_MIN_BLOCKS , 1
#else
#define FWD_MIN_BLOCKS
#endif
extern "C" __global__ void __launch_bounds__(NT FWD_MIN_BLOCKS) attn_fwd(const AttnParams p) {
  attn_body<false>(p);
}
#if defined(SPLIT_KV) && SPLIT_KV == 1
// split=1: the registry gives attn_split and combine empty grids, so the split body is not
// compiled at all; its own register allocation then cannot spill in a build that never runs it.
extern "C" __global__ void attn_split(const AttnParams p) { (void)p; }
#else
// (NT, 1): with the default occupancy heuristic ptxas capped some settings at 128/168
// registers and spilled a few bytes; one block per SM is all a split grid needs.
extern "C" __global__ void __launch_bounds__(NT, 1) attn_split(const AttnParams p) {
  attn_body<true>(p);
}
#endif

// Split-KV combine: one thread per (query row, 8-wide chunk of d), 128 threads per block.
// O = sum_z 2^(lse_z - M) O_z / sum_z 2^(lse_z - M), M = max_z lse_z; a split with
// lse = -inf saw no key of that row and is skipped (its partial O is never read).
#define COMBINE_THREADS 128
#define COMBINE_ROWS (COMBINE_THREADS / CPR)
extern "C" __global__ void __launch_bounds__(COMBINE_THREADS) combine(const AttnParams p) {
  const int splits = p.num_splits, S = p.S;
  const int row = blockIdx.x * COMBINE_ROWS + (int)threadIdx.x / CPR;
  const int c = (int)threadIdx.x % CPR;
  if (splits <= 1 || row >= S) return;
  const size_t bh = blockIdx.y, heads = gridDim.y;
  float M = __int_as_float(0xff800000);
  for (int z = 0; z < splits; z++) M = fmaxf(M, p.lse[(z * heads + bh) * S + row]);
  float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f}, wsum = 0.f;
  for (int z = 0; z < splits; z++) {
    const float lz = p.lse[(z * heads + bh) * S + row];
    if (lz == __int_as_float(0xff800000)) continue;
    const float w = bt_ex2(lz - M);
    wsum += w;
    const float4 *src =
        reinterpret_cast<const float4 *>(p.o_f32 + ((z * heads + bh) * S + row) * HEAD_DIM + c * 8);
    const float4 a = src[0], b = src[1];
    acc[0] += w * a.x; acc[1] += w * a.y; acc[2] += w * a.z; acc[3] += w * a.w;
    acc[4] += w * b.x; acc[5] += w * b.y; acc[6] += w * b.z; acc[7] += w * b.w;
  }
  const float inv = wsum > 0.f ? 1.f / wsum : 0.f;
  uint4 out;
  out.x = bt_pack2(acc[0] * inv, acc[1] * inv);
  out.y = bt_pack2(acc[2] * inv, acc[3] * inv);
  out.z = bt_pack2(acc[4] * inv, acc[5] * inv);
  out.w = bt_pack2(acc[6] * inv, acc[7] * inv);
  *reinterpret_cast<uint4 *>(static_cast<bt_elem *>(p.o) + (bh * S + row) * HEAD_DIM + c * 8) = out;
}
