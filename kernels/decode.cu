/* benchtop
name      decode
summary   split-KV flash-decoding: the query heads of one KV head together (K/V read once), a combine step
rung      11
builds_on mma
head_dims 64 128 256
arch      sm_80
# bf16 rounds P and O to 8 bits of mantissa: ~2e-3 relative L2 on standard-normal inputs
tolerance 2e-3 bf16 1e-2
dtypes    fp16 bf16
supports  gqa kv_cache
knob warps  WARPS    {4, 8}    : warps per block; each takes 16 keys of every 16*warps-key tile
knob stages STAGES   {2, 3}    : K/V tiles in flight (cp.async)
knob split  SPLIT_KV {auto=0, 1, 2, 4, 8, 16, 32} : key-range splits per KV head, merged by a combine step (auto: one wave of the blocks the SMs hold)
knob evict  EVICT_FIRST {0, 1} : 1: K and V loads marked L2 evict-first (read once: other work's lines in L2 go last)

require Sq <= 16 : decode: one to 16 queries per head (Sq <= 16); longer query blocks run on mma or fa3

let block_n = 16 * warps
# the query rows of one KV head: its Hq/Hkv query heads times Sq, 16 per block (grid z)
let rows    = Hq / Hkv * Sq
let blocks  = B * Hkv * cdiv(rows, 16)
let ktiles  = cdiv(Skv, block_n)
# the Q tile [16][D], stages of K and V tiles [block_n][D]; the warps' partial O (fp32) reuse the ring
let smem    = (16 * D + stages * 2 * block_n * D) * 2
# blocks one SM holds as its shared memory allows (1 KiB reserved a block) and 2048 threads
let per_sm  = max(1, min((smem_optin + 1024) / (smem + 1024), 2048 / (32 * warps)))
# auto: the splits that fill one wave of resident blocks, each split keeping >= 4 key tiles (a
# second, partial wave left SMs idle: 448 blocks in 264 slots ran at 82 % of the copy rate)
let auto_splits = max(1, min(sms * per_sm / blocks, cdiv(ktiles, 4), 64))
splits split == "auto" ? auto_splits : min(split, ktiles)
require smem <= smem_optin : decode: Q + stages*K/V tiles exceed this GPU's shared memory (fewer warps or stages)
refuse evict == 1 && D > 128 : decode: evict-first loads stop the kernel at D = 256 (an illegal instruction on an H200, not understood yet): evict=0 there

kernel attn_fwd grid(splits, B * Hkv, cdiv(rows, 16)) block(32 * warps) smem(smem)
kernel combine     grid(splits > 1 ? cdiv(B * Hq * Sq * D / 8, 128) : 0) block(128)
scratch o_f32 splits > 1 ? splits * B * Hq * Sq * D * 4 : 0
scratch lse   splits > 1 ? splits * B * Hq * Sq * 4 : 0

preset warps=4,stages=2
preset warps=4,stages=3
preset warps=8,stages=2
preset warps=8,stages=3,split=1,evict=1
*/
// Rung 11: decode. One (or a few, Sq <= 16) new queries per head against a long KV cache is a
// memory-bound problem: each key and value serves only the Hq/Hkv query heads that share it
// (times Sq), so the kernel's job is to stream K and V once, at the copy rate.
// Flash-decoding: grid x splits the keys of each KV head into `splits` ranges; a block takes the
// query rows of one KV head (its Hq/Hkv heads times Sq, 16 rows a block as one m16 tile, grid z
// for more) against one key range, so K and V are read once per KV head. Each warp takes 16 keys
// of every 16*warps-key tile: QK^T in HEAD_DIM/16 k-steps, PV in one, with its own online
// softmax; the warps' partials merge through shared memory at the end, and a `combine` kernel
// merges the splits by log-sum-exp (as mma's split-KV does), or the block writes O itself when
// there is one split. Tiles stream through a `stages`-deep cp.async ring, XOR-swizzled as in mma;
// each warp loads the keys it reads, so no block barrier holds the warps together in the loop.
// Fewer, deeper streams can beat filling every SM: at 8x32/8x1/8192x128 one block of 8 warps
// per KV head (64 blocks, no combine) was the fastest setting on an H200. `evict`: with K and V
// marked evict-first, the dirty lines a cold-L2 flush (or other work) left in L2 are not written
// back while K and V stream (-2.6 % there, -7.5 % at 4096 keys; +3.9 % at 32x32/8x1/8192x128).
// Causal is bottom-right aligned: query s sees keys 0 .. s + Skv - Sq.
// Expect in the metrics: DRAM throughput near the copy ceiling; tensor pipes nearly idle.
#include "attn_params.h"
#include "common.cuh"
#include "sm80.cuh"

#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
#ifndef WARPS
#define WARPS 4
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef EVICT_FIRST
#define EVICT_FIRST 0
#endif

#define NT (WARPS * 32)
#define BLOCK_N (16 * WARPS)     /* keys per tile: 16 per warp */
#define CPR (HEAD_DIM / 8)       /* 16-byte chunks per row */
#define DTILES (HEAD_DIM / 8)    /* n8 output tiles */
#define KSTEPS (HEAD_DIM / 16)   /* k16 steps of QK^T */
#define Q_IN_REGS (HEAD_DIM <= 128)

static_assert(HEAD_DIM % 64 == 0 && HEAD_DIM <= 256, "decode: HEAD_DIM must be 64, 128 or 256");
static_assert(STAGES >= 2 && STAGES <= 4, "decode: STAGES must be 2..4");

namespace {

#define NEG_INF __int_as_float(0xff800000)

#if EVICT_FIRST
// cp.async with an L2 policy that marks the lines it brings evict-first (sm_80+).
__device__ __forceinline__ unsigned long long policy_evict_first() {
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ void cp_async16_hint(unsigned smem_dst, const void *gmem_src, bool valid,
                                                unsigned long long policy) {
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(smem_dst),
               "l"(gmem_src), "r"(valid ? 16 : 0), "l"(policy)
               : "memory");
}
#endif

// Element offset of 16-byte chunk `chunk` of row `row` in a swizzled [rows][HEAD_DIM] tile.
__device__ __forceinline__ int swz(int row, int chunk) {
  return row * HEAD_DIM + (bt_swizzle(row, chunk) << 3);
}

// This warp's 16 rows (warp * 16 ..) of the tile of a [len, HEAD_DIM] head that starts at row0,
// into the swizzled tile: each warp loads only the keys it reads, so a stage is the warp's own
// and no block barrier orders the ring. Rows at or past len are zero-filled (cp.async of size 0
// from the head's first row, never read).
__device__ __forceinline__ void load_kv_rows(bt_elem *tile, const bt_elem *g, int row0, int len,
                                             int warp, int lane) {
  const unsigned dst = bt_smem_u32(tile);
#if EVICT_FIRST
  const unsigned long long policy = policy_evict_first();
#endif
#pragma unroll
  for (int i = lane; i < 16 * CPR; i += 32) {
    const int r = warp * 16 + i / CPR, c = i % CPR;
    const bool ok = row0 + r < len;
    const bt_elem *src = ok ? g + (size_t)(row0 + r) * HEAD_DIM + c * 8 : g;
#if EVICT_FIRST
    cp_async16_hint(dst + swz(r, c) * 2, src, ok, policy);
#else
    bt_cp_async16(dst + swz(r, c) * 2, src, ok);
#endif
  }
}

// The block's query rows: row r of the group is query s = r % Sq of head hg = r / Sq of the KV
// head's Hq/Hkv heads. Where it lives in Q and O ([B, Hq, Sq, D]), or -1 past the group.
struct Rows {
  int b, kvh, first, count; // count: rows of the group (Hq/Hkv * Sq)
};
__device__ __forceinline__ long long row_offset(const AttnParams &p, const Rows &rw, int r) {
  const int gr = rw.first + r;
  if (r >= 16 || gr >= rw.count) return -1;
  const int h = rw.kvh * (p.H / p.Hkv) + gr / p.S, s = gr % p.S;
  return ((long long)(rw.b * p.H + h) * p.S + s) * HEAD_DIM;
}

// Q rows of the group into a swizzled [16][HEAD_DIM] tile, zero past the group.
__device__ __forceinline__ void load_q(bt_elem *sQ, const AttnParams &p, const Rows &rw, int tid) {
  const bt_elem *Q = static_cast<const bt_elem *>(p.q);
  const unsigned dst = bt_smem_u32(sQ);
  for (int i = tid; i < 16 * CPR; i += NT) {
    const int r = i / CPR, c = i % CPR;
    const long long off = row_offset(p, rw, r);
    bt_cp_async16(dst + swz(r, c) * 2, off >= 0 ? Q + off + c * 8 : Q, off >= 0);
  }
}

// S = Q K^T for the 16 rows and this warp's 16 keys: s[0] keys 0-7, s[1] keys 8-15.
__device__ __forceinline__ void qk(float (&s)[2][4], const unsigned (&qf)[KSTEPS][4],
                                   unsigned q_addr, int q_x, unsigned k_addr, int k_x) {
#pragma unroll
  for (int j = 0; j < 2; j++) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
#pragma unroll
  for (int kk = 0; kk < KSTEPS; kk++) {
    unsigned a[4], b[4];
#if Q_IN_REGS
    (void)q_addr; (void)q_x;
    a[0] = qf[kk][0]; a[1] = qf[kk][1]; a[2] = qf[kk][2]; a[3] = qf[kk][3];
#else
    (void)qf;
    bt_ldsm_x4(a, q_addr + (((2 * kk) ^ q_x) << 4));
#endif
    bt_ldsm_x4(b, k_addr + (((2 * kk) ^ k_x) << 4));
    bt_mma_16816_x2(s[0], s[1], a, b);
  }
}

// Online softmax over this warp's 16 keys (rows g and g+8: h = 0, 1), in the log2 domain; s
// becomes P. diag[h]: the last key row h sees (past every key when not causal).
__device__ __forceinline__ void softmax(float (&s)[2][4], float (&o)[DTILES][4], float (&m)[2],
                                        float (&l)[2], int n0, int Skv, const int (&diag)[2],
                                        int c4, float sl2) {
#pragma unroll
  for (int h = 0; h < 2; h++) {
    float mx = NEG_INF;
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
      for (int e = 0; e < 2; e++) {
        const int key = n0 + 8 * j + 2 * c4 + e;
        float &x = s[j][2 * h + e];
        if (key >= Skv || key > diag[h]) x = NEG_INF;
        mx = fmaxf(mx, x);
      }
    mx = fmaxf(mx, __shfl_xor_sync(BT_FULL_MASK, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(BT_FULL_MASK, mx, 2));
    const float tm = mx * sl2;
    if (tm > m[h] + BT_RESCALE_SLACK) { // move the base (rarely): rescale O and l
      const float alpha = bt_rescale(m[h], tm);
      m[h] = tm;
      l[h] *= alpha;
#pragma unroll
      for (int dt = 0; dt < DTILES; dt++) {
        o[dt][2 * h] *= alpha;
        o[dt][2 * h + 1] *= alpha;
      }
    }
    const float base = bt_safe_base(m[h]);
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
      for (int e = 0; e < 2; e++) {
        float &x = s[j][2 * h + e];
        x = bt_ex2(fmaf(x, sl2, -base));
        l[h] += x; // quad-partial; reduced once at the end
      }
  }
}

// O += P V for this warp's 16 keys: P is one m16k16 A operand.
__device__ __forceinline__ void pv(float (&o)[DTILES][4], const float (&s)[2][4], unsigned v_addr,
                                   int v_x) {
  unsigned a[4];
  a[0] = bt_pack2(s[0][0], s[0][1]);
  a[1] = bt_pack2(s[0][2], s[0][3]);
  a[2] = bt_pack2(s[1][0], s[1][1]);
  a[3] = bt_pack2(s[1][2], s[1][3]);
#pragma unroll
  for (int dp = 0; dp < HEAD_DIM / 16; dp++) {
    unsigned b[4];
    bt_ldsm_x4_trans(b, v_addr + (((2 * dp) ^ v_x) << 4));
    bt_mma_16816_x2(o[2 * dp], o[2 * dp + 1], a, b);
  }
}

// The warps' partials merged through shared memory (the K/V ring, free now): each warp's base
// and sums in sML, its O (scaled to the common base) in its own fp32 slot, then every thread
// sums one (row, 8 columns) over the warps and writes O, or the split's partial and its lse.
__device__ __forceinline__ void merge_and_store(const AttnParams &p, const Rows &rw,
                                                const float (&o)[DTILES][4], const float (&m)[2],
                                                float (&l)[2], unsigned char *ring, float *sML,
                                                int warp, int lane) {
  const int g = lane >> 2, c4 = lane & 3;
  float *sO = reinterpret_cast<float *>(ring);
#pragma unroll
  for (int h = 0; h < 2; h++) {
    l[h] += __shfl_xor_sync(BT_FULL_MASK, l[h], 1);
    l[h] += __shfl_xor_sync(BT_FULL_MASK, l[h], 2);
    if (c4 == 0) {
      sML[(warp * 16 + g + 8 * h) * 2] = m[h];
      sML[(warp * 16 + g + 8 * h) * 2 + 1] = l[h];
    }
  }
  __syncthreads(); // every warp is done with the ring, and sML is complete
  float scale[2];
#pragma unroll
  for (int h = 0; h < 2; h++) {
    const int r = g + 8 * h;
    float M = NEG_INF;
    for (int w = 0; w < WARPS; w++) M = fmaxf(M, sML[(w * 16 + r) * 2]);
    scale[h] = m[h] == NEG_INF ? 0.f : bt_ex2(m[h] - M);
  }
  float *mine = sO + warp * 16 * HEAD_DIM;
#pragma unroll
  for (int dt = 0; dt < DTILES; dt++)
#pragma unroll
    for (int h = 0; h < 2; h++)
      *reinterpret_cast<float2 *>(mine + (g + 8 * h) * HEAD_DIM + dt * 8 + 2 * c4) =
          make_float2(o[dt][2 * h] * scale[h], o[dt][2 * h + 1] * scale[h]);
  __syncthreads();
  const bool split = gridDim.x > 1;
  for (int i = threadIdx.x; i < 16 * CPR; i += NT) {
    const int r = i / CPR, c = i % CPR;
    const long long off = row_offset(p, rw, r);
    if (off < 0) continue;
    float M = NEG_INF, L = 0.f;
    for (int w = 0; w < WARPS; w++) M = fmaxf(M, sML[(w * 16 + r) * 2]);
    for (int w = 0; w < WARPS; w++) {
      const float mw = sML[(w * 16 + r) * 2];
      if (mw != NEG_INF) L += sML[(w * 16 + r) * 2 + 1] * bt_ex2(mw - M);
    }
    float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int w = 0; w < WARPS; w++) {
      const float4 *src = reinterpret_cast<const float4 *>(sO + (w * 16 + r) * HEAD_DIM + c * 8);
      const float4 a = src[0], b = src[1];
      acc[0] += a.x; acc[1] += a.y; acc[2] += a.z; acc[3] += a.w;
      acc[4] += b.x; acc[5] += b.y; acc[6] += b.z; acc[7] += b.w;
    }
    const float inv = L > 0.f ? 1.f / L : 0.f;
    if (!split) {
      uint4 out;
      out.x = bt_pack2(acc[0] * inv, acc[1] * inv);
      out.y = bt_pack2(acc[2] * inv, acc[3] * inv);
      out.z = bt_pack2(acc[4] * inv, acc[5] * inv);
      out.w = bt_pack2(acc[6] * inv, acc[7] * inv);
      *reinterpret_cast<uint4 *>(static_cast<bt_elem *>(p.o) + off + c * 8) = out;
    } else {
      // Partials as mma's split-KV lays them out: [split][B*Hq*Sq] rows of HEAD_DIM, lse log2.
      const size_t prow = (size_t)blockIdx.x * ((size_t)p.B * p.H * p.S) + (size_t)(off / HEAD_DIM);
      float4 *dst = reinterpret_cast<float4 *>(p.o_f32 + prow * HEAD_DIM + c * 8);
      dst[0] = make_float4(acc[0] * inv, acc[1] * inv, acc[2] * inv, acc[3] * inv);
      dst[1] = make_float4(acc[4] * inv, acc[5] * inv, acc[6] * inv, acc[7] * inv);
      if (c == 0) p.lse[prow] = L > 0.f ? M + __log2f(L) : NEG_INF;
    }
  }
}

} // namespace

extern "C" __global__ void __launch_bounds__(NT) attn_fwd(const AttnParams p) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  bt_elem *sQ = reinterpret_cast<bt_elem *>(smem_raw);
  unsigned char *ring = smem_raw + 16 * HEAD_DIM * 2;
  bt_elem *sK = reinterpret_cast<bt_elem *>(ring);
  bt_elem *sV = sK + STAGES * BLOCK_N * HEAD_DIM;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, c4 = lane & 3;
  const int Skv = p.Skv;

  Rows rw;
  rw.b = blockIdx.y / p.Hkv;
  rw.kvh = blockIdx.y % p.Hkv;
  rw.first = blockIdx.z * 16;
  rw.count = (p.H / p.Hkv) * p.S;
  const size_t kv_head = (size_t)blockIdx.y * Skv * HEAD_DIM;
  const bt_elem *K = static_cast<const bt_elem *>(p.k) + kv_head;
  const bt_elem *V = static_cast<const bt_elem *>(p.v) + kv_head;

  // This split's key tiles.
  const int ktiles = (Skv + BLOCK_N - 1) / BLOCK_N;
  const int per = (ktiles + gridDim.x - 1) / gridDim.x;
  const int tile0 = blockIdx.x * per;
  const int n_tiles = max(0, min(per, ktiles - tile0));

  // The last key each of this thread's rows sees: its query s + Skv - Sq when causal.
  int diag[2];
#pragma unroll
  for (int h = 0; h < 2; h++) {
    const int gr = rw.first + g + 8 * h;
    diag[h] = p.causal ? gr % p.S + bt_causal_shift(p) : 0x3fffffff;
  }

  load_q(sQ, p, rw, tid);
  bt_cp_async_commit(); // Q alone: the block's barrier after it is the loop's only one
#pragma unroll
  for (int st = 0; st < STAGES - 1; st++) {
    if (st < n_tiles) {
      load_kv_rows(sK + st * BLOCK_N * HEAD_DIM, K, (tile0 + st) * BLOCK_N, Skv, warp, lane);
      load_kv_rows(sV + st * BLOCK_N * HEAD_DIM, V, (tile0 + st) * BLOCK_N, Skv, warp, lane);
    }
    bt_cp_async_commit();
  }

  // ldmatrix lane addresses (as in mma.cu): Q rows 0-15; this warp's 16 keys of a tile.
  const unsigned q_addr = bt_smem_u32(sQ + (lane & 15) * HEAD_DIM);
  const int q_x = (lane >> 4) ^ (lane & 7);
  const unsigned k_lane = bt_smem_u32(sK + (warp * 16 + (lane & 7) + ((lane >> 4) << 3)) * HEAD_DIM);
  const int k_x = ((lane >> 3) & 1) ^ (lane & 7);
  const unsigned v_lane = bt_smem_u32(sV + (warp * 16 + (lane & 7) + (((lane >> 3) & 1) << 3)) * HEAD_DIM);
  const int v_x = (lane >> 4) ^ (lane & 7);

  const float sl2 = p.scale * BT_LOG2E;
  float o[DTILES][4], m[2] = {NEG_INF, NEG_INF}, l[2] = {0.f, 0.f};
#pragma unroll
  for (int dt = 0; dt < DTILES; dt++) o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.f;
  unsigned qf[KSTEPS][4];

  int st_read = 0, st_write = STAGES - 1;
  for (int t = 0; t < n_tiles; t++) {
    bt_cp_async_wait<STAGES - 2>(); // Q and this warp's tile t have landed
    if (t == 0) __syncthreads();     // every thread's part of Q (n_tiles is the block's)
    else __syncwarp();               // the warp's rows of tile t, and tile t-1 read by all lanes
    const int tn = t + STAGES - 1;
    if (tn < n_tiles) {
      load_kv_rows(sK + st_write * BLOCK_N * HEAD_DIM, K, (tile0 + tn) * BLOCK_N, Skv, warp, lane);
      load_kv_rows(sV + st_write * BLOCK_N * HEAD_DIM, V, (tile0 + tn) * BLOCK_N, Skv, warp, lane);
    }
    bt_cp_async_commit();
    st_write = st_write == STAGES - 1 ? 0 : st_write + 1;
    const int st = st_read;
    st_read = st_read == STAGES - 1 ? 0 : st_read + 1;
#if Q_IN_REGS
    if (t == 0) {
#pragma unroll
      for (int kk = 0; kk < KSTEPS; kk++) bt_ldsm_x4(qf[kk], q_addr + (((2 * kk) ^ q_x) << 4));
    }
#endif
    const int n0 = (tile0 + t) * BLOCK_N + warp * 16;
    float s[2][4];
    qk(s, qf, q_addr, q_x, k_lane + st * (BLOCK_N * HEAD_DIM * 2), k_x);
    softmax(s, o, m, l, n0, Skv, diag, c4, sl2);
    pv(o, s, v_lane + st * (BLOCK_N * HEAD_DIM * 2), v_x);
  }
  bt_cp_async_wait<0>();
  __syncthreads(); // the Q tile's space now holds the warps' bases and sums
  merge_and_store(p, rw, o, m, l, ring, reinterpret_cast<float *>(smem_raw), warp, lane);
}

// Split-KV combine, one thread per (query row, 8 columns): O = sum_z 2^(lse_z - M) O_z /
// sum_z 2^(lse_z - M) over the splits that saw a key of that row (lse_z > -inf).
extern "C" __global__ void __launch_bounds__(128) combine(const AttnParams p) {
  const size_t rows = (size_t)p.B * p.H * p.S;
  const size_t i = (size_t)blockIdx.x * 128 + threadIdx.x;
  const size_t row = i / CPR;
  const int c = (int)(i % CPR), splits = p.num_splits;
  if (row >= rows || splits <= 1) return;
  float M = NEG_INF;
  for (int z = 0; z < splits; z++) M = fmaxf(M, p.lse[z * rows + row]);
  float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f}, wsum = 0.f;
  for (int z = 0; z < splits; z++) {
    const float lz = p.lse[z * rows + row];
    if (lz == NEG_INF) continue;
    const float w = bt_ex2(lz - M);
    wsum += w;
    const float4 *src = reinterpret_cast<const float4 *>(p.o_f32 + (z * rows + row) * HEAD_DIM + c * 8);
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
  *reinterpret_cast<uint4 *>(static_cast<bt_elem *>(p.o) + row * HEAD_DIM + c * 8) = out;
}
