// Hopper variant (issue 8): fa3 — FlashAttention-3-style forward pass, sm_90a only.
// What it does:
//  - Step `relayout` copies K and V once per launch into p.workspace as ready-made shared-memory
//    images: per (b, h) and key tile of BLOCK_N rows, [D/64 column blocks][BLOCK_N rows][128 B]
//    with the 16-byte chunks XOR-swizzled (chunk ^ row%8): the wgmma 128-byte-swizzle layout.
//    Rows past S are zero (the last tile is padded). This lets every K or V tile arrive in ONE
//    1-D bulk copy. Cost: one extra read+write of K and V (~3-8 % of the attention time at the
//    large shapes, more at small ones).
//  - Step `attn_fwd`: 3 warpgroups per block (384 threads), 128 query rows, BLOCK_N = 128 keys
//    per tile, 2 stages. Warpgroup 0 is the producer: setmaxnreg.dec to 24 registers, one thread
//    issues cp.async.bulk (TMA engine, non-tensor) for the K and V tiles, completing on a `full`
//    mbarrier (expect_tx bytes) and waiting on an `empty` mbarrier before refilling a stage.
//    Warpgroups 1-2 are consumers (setmaxnreg.inc to 240), 64 query rows each: Q is loaded with
//    ordinary loads into the same swizzled layout (fence.proxy.async before wgmma reads it);
//    S = Q K^T by wgmma m64n128k16 with both operands from shared memory (K-major descriptors,
//    128B swizzle); online softmax on the accumulators (exp2, quad shuffles); P stays in
//    registers as the A operand of O += P V (wgmma m64nDk16, V as MN-major B, 128B swizzle);
//    after each tile's wgmma.wait_group 0 every consumer warp arrives on the stage's `empty`.
// What it does NOT do (yet): no tensor-map TMA (cp.async.bulk.tensor) and no TMA store of O
// (the relayout step replaces the tensor map's swizzling); no overlap of softmax with the next
// QK^T (FA3's intra-warpgroup pipelining) and no ping-pong scheduling between the consumer
// warpgroups; no clusters/multicast; no persistent scheduler; causal blocks compute the masked
// tile of a warpgroup whose rows all precede it instead of skipping it. O is written from the
// accumulators with 4-byte stores (a quad writes 16 contiguous bytes).
// Written without a GPU: descriptors follow the PTX ISA canonical layouts (K-major SW128:
// LBO unused, SBO = 1024 B; MN-major SW128: LBO = stride between 64-column blocks, SBO = 1024 B).
#include "attn_params.h"
#include <cuda_fp16.h>

#ifndef HEAD_DIM
#define HEAD_DIM 64
#endif
#define BLOCK_M 128 /* 2 consumer warpgroups x 64 rows */
#define BLOCK_N 128
#define STAGES 2
#define NTHREADS 384
#define CPR (HEAD_DIM / 8)                 /* 16-byte chunks per row */
#define CB (HEAD_DIM / 64)                 /* 64-column (128-byte) blocks per row */
#define TILE_BYTES (BLOCK_N * HEAD_DIM * 2) /* one K or V tile image */
#define QWG_BYTES (64 * HEAD_DIM * 2)       /* one consumer warpgroup's Q rows */
#define NT8 (BLOCK_N / 8)                   /* n8 column groups of S */
#define OREGS (HEAD_DIM / 2)                /* O accumulators per thread */

static_assert(HEAD_DIM == 64 || HEAD_DIM == 128, "fa3: HEAD_DIM must be 64 or 128");

namespace {

__device__ __forceinline__ unsigned smem_u32(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

// Byte offset of 16-byte chunk c of row r inside a swizzled [CB][rows][128 B] image.
__device__ __forceinline__ unsigned img_off(int rows, int r, int c) {
  return (unsigned)((c >> 3) * rows * 128 + r * 128 + (((c & 7) ^ (r & 7)) << 4));
}

// wgmma shared-memory matrix descriptor, 128-byte swizzle (layout type 1 in bits 62-63).
__device__ __forceinline__ unsigned long long make_desc(unsigned addr, unsigned lbo, unsigned sbo) {
  return (unsigned long long)((addr & 0x3FFFF) >> 4) |
         ((unsigned long long)((lbo >> 4) & 0x3FFF) << 16) |
         ((unsigned long long)((sbo >> 4) & 0x3FFF) << 32) | (1ull << 62);
}

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Returns once the phase with this parity has completed.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile("{\n.reg .pred done;\n"
               "WAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT;\n}\n" ::"r"(bar), "r"(parity)
               : "memory");
}
// Bulk copy (TMA engine, no tensor map) global -> shared, completing `bytes` on the mbarrier.
__device__ __forceinline__ void bulk_g2s(unsigned dst, const void *src, unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
               ::"r"(dst), "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
// Keeps the compiler from moving accumulator reads/writes across wgmma issue and wait.
template <int N> __device__ __forceinline__ void pin(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; i++) asm volatile("" : "+f"(d[i])::"memory");
}

__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<unsigned *>(&h);
}

// D[64 x 128] (scale_d ? D : 0) + A[64 x 16] (smem desc, K-major) * B[16 x 128] (smem desc,
// K-major), fp16 in, fp32 accumulate.
__device__ __forceinline__ void wgmma_ss_n128(float (&d)[64], unsigned long long da,
                                              unsigned long long db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "r"(scale_d));
}
#if HEAD_DIM == 64
// D[64 x 64] += A[64 x 16] (registers) * B[16 x 64] (smem desc, MN-major: imm-trans-b 1).
__device__ __forceinline__ void wgmma_rs_n64(float (&d)[32], const unsigned (&a)[4],
                                              unsigned long long db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}
#else
// D[64 x 128] += A[64 x 16] (registers) * B[16 x 128] (smem desc, MN-major: imm-trans-b 1).
__device__ __forceinline__ void wgmma_rs_n128(float (&d)[64], const unsigned (&a)[4],
                                              unsigned long long db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, {%64,%65,%66,%67}, %68, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}

#endif
} // namespace

// K and V -> swizzled tile images in p.workspace: [2 (K, V)][B*H][ntiles][TILE_BYTES].
// One thread per 16-byte chunk; grid (ceil(B*H*ntiles*BLOCK_N*CPR / 256), 2).
extern "C" __global__ void __launch_bounds__(256) relayout(const AttnParams p) {
  const int S = p.S, ntiles = (S + BLOCK_N - 1) / BLOCK_N;
  const size_t per_head = (size_t)ntiles * BLOCK_N * CPR;
  const size_t total = (size_t)p.B * p.H * per_head;
  const size_t i = (size_t)blockIdx.x * 256 + threadIdx.x;
  if (i >= total) return;
  const size_t bh = i / per_head;
  const int rem = (int)(i % per_head), row = rem / CPR, c = rem % CPR;
  const half *src = static_cast<const half *>(blockIdx.y ? p.v : p.k);
  uint4 val = make_uint4(0u, 0u, 0u, 0u);
  if (row < S) val = *reinterpret_cast<const uint4 *>(src + (bh * S + row) * HEAD_DIM + c * 8);
  unsigned char *dst = static_cast<unsigned char *>(p.workspace) +
                       (size_t)blockIdx.y * p.B * p.H * ntiles * TILE_BYTES +
                       (bh * ntiles + row / BLOCK_N) * TILE_BYTES;
  *reinterpret_cast<uint4 *>(dst + img_off(BLOCK_N, row % BLOCK_N, c)) = val;
}

extern "C" __global__ void __launch_bounds__(NTHREADS, 1) attn_fwd(const AttnParams p) {
  extern __shared__ unsigned char smem_raw[];
  // 1024-byte alignment for the 128B-swizzle images (the registry adds 1024 bytes of slack).
  const unsigned base = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const unsigned sQ = base;                              // [2 WG][QWG_BYTES]
  const unsigned sK = sQ + 2 * QWG_BYTES;                // [STAGES][TILE_BYTES]
  const unsigned sV = sK + STAGES * TILE_BYTES;          // [STAGES][TILE_BYTES]
  const unsigned bar_full = sV + STAGES * TILE_BYTES;    // STAGES x 8 bytes
  const unsigned bar_empty = bar_full + STAGES * 8;      // STAGES x 8 bytes

  const int tid = threadIdx.x, wg = tid / 128, S = p.S;
  const bool causal = p.causal != 0;
  const int mblk = causal ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x;
  const int m0 = mblk * BLOCK_M;
  const int kv_end = causal ? min(S, m0 + BLOCK_M) : S;
  const int n_tiles = (kv_end + BLOCK_N - 1) / BLOCK_N;
  const int ntiles_all = (S + BLOCK_N - 1) / BLOCK_N;

  if (tid == 0) {
    for (int s = 0; s < STAGES; s++) {
      mbar_init(bar_full + 8 * s, 1);  // the producer's arrive.expect_tx
      mbar_init(bar_empty + 8 * s, 8); // one arrive per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    // ---------------- producer warpgroup ----------------
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n" ::: "memory");
    if (tid == 0) {
      const size_t head = (size_t)blockIdx.y * ntiles_all * TILE_BYTES;
      const unsigned char *gK = static_cast<const unsigned char *>(p.workspace) + head;
      const unsigned char *gV = gK + (size_t)p.B * p.H * ntiles_all * TILE_BYTES;
      for (int t = 0; t < n_tiles; t++) {
        const int st = t % STAGES;
        // Before refilling a stage, wait until all 8 consumer warps released its last use.
        if (t >= STAGES) mbar_wait(bar_empty + 8 * st, (unsigned)((t / STAGES - 1) & 1));
        mbar_expect_tx(bar_full + 8 * st, 2 * TILE_BYTES);
        bulk_g2s(sK + st * TILE_BYTES, gK + (size_t)t * TILE_BYTES, TILE_BYTES, bar_full + 8 * st);
        bulk_g2s(sV + st * TILE_BYTES, gV + (size_t)t * TILE_BYTES, TILE_BYTES, bar_full + 8 * st);
      }
    }
    return;
  }

  // ---------------- consumer warpgroups ----------------
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n" ::: "memory");
  const int cw = wg - 1;                 // consumer warpgroup 0/1: rows m0 + 64*cw ...
  const int ltid = tid - 128 * wg;       // thread within the warpgroup
  const int warp = ltid >> 5, lane = ltid & 31;
  const int g = lane >> 2, c4 = lane & 3;
  const unsigned myQ = sQ + cw * QWG_BYTES;
  const int q0 = m0 + 64 * cw;
  const size_t head = (size_t)blockIdx.y * S * HEAD_DIM;

  // Q rows -> swizzled image with ordinary loads/stores (zero past S).
  {
    const half *Q = static_cast<const half *>(p.q) + head;
#pragma unroll
    for (int i = 0; i < 64 * CPR / 128; i++) {
      const int idx = ltid + 128 * i, r = idx / CPR, c = idx % CPR;
      uint4 val = make_uint4(0u, 0u, 0u, 0u);
      if (q0 + r < S) val = *reinterpret_cast<const uint4 *>(Q + (size_t)(q0 + r) * HEAD_DIM + c * 8);
      asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"r"(myQ + img_off(64, r, c)),
                   "r"(val.x), "r"(val.y), "r"(val.z), "r"(val.w)
                   : "memory");
    }
    // Generic-proxy writes must be visible to the async proxy (wgmma) of the whole warpgroup.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    if (cw == 0) asm volatile("bar.sync 1, 128;\n" ::: "memory"); // named barrier per warpgroup
    else asm volatile("bar.sync 2, 128;\n" ::: "memory");
  }

  const float sl2 = p.scale * 1.4426950408889634f;
  const float NEG_INF = __int_as_float(0xff800000);
  const int row_a = q0 + 16 * warp + g, row_b = row_a + 8; // this thread's two query rows
  float o[OREGS];
#pragma unroll
  for (int i = 0; i < OREGS; i++) o[i] = 0.f;
  float m_a = NEG_INF, m_b = NEG_INF, l_a = 0.f, l_b = 0.f;

  for (int t = 0; t < n_tiles; t++) {
    const int st = t % STAGES;
    mbar_wait(bar_full + 8 * st, (unsigned)((t / STAGES) & 1));
    const unsigned kt = sK + st * TILE_BYTES, vt = sV + st * TILE_BYTES;

    // ---- S = Q K^T: 64 x 128 per warpgroup, D/16 k-steps ----
    float s[64];
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < HEAD_DIM / 16; kk++) {
      // k-step kk: column block kk/4, 32-byte step (kk%4) inside the 128-byte swizzled row.
      const unsigned koff = (kk & 3) * 32;
      const unsigned long long da = make_desc(myQ + (kk >> 2) * (64 * 128) + koff, 16, 1024);
      const unsigned long long db = make_desc(kt + (kk >> 2) * (BLOCK_N * 128) + koff, 16, 1024);
      wgmma_ss_n128(s, da, db, kk > 0);
    }
    wgmma_commit();
    wgmma_wait0();
    pin(s);

    // ---- mask: keys past S, and (causal) keys after the query ----
    const int n0 = t * BLOCK_N;
    if (n0 + BLOCK_N > S || (causal && n0 + BLOCK_N - 1 > q0)) {
#pragma unroll
      for (int j = 0; j < NT8; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
          const int key = n0 + 8 * j + 2 * c4 + (e & 1);
          const int row = (e >> 1) ? row_b : row_a;
          if (key >= S || (causal && key > row)) s[4 * j + e] = NEG_INF;
        }
    }

    // ---- online softmax (rows a: s[4j+0,1], b: s[4j+2,3]) ----
    float mx_a = m_a, mx_b = m_b;
#pragma unroll
    for (int j = 0; j < NT8; j++) {
      mx_a = fmaxf(mx_a, fmaxf(s[4 * j], s[4 * j + 1]));
      mx_b = fmaxf(mx_b, fmaxf(s[4 * j + 2], s[4 * j + 3]));
    }
    mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 1));
    mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 2));
    mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 1));
    mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 2));
    // A row with no visible key yet keeps max -inf: base 0 so that -inf - -inf never occurs.
    const float ms_a = mx_a == NEG_INF ? 0.f : mx_a * sl2;
    const float ms_b = mx_b == NEG_INF ? 0.f : mx_b * sl2;
    const float al_a = ex2(m_a * sl2 - ms_a), al_b = ex2(m_b * sl2 - ms_b);
    m_a = mx_a;
    m_b = mx_b;
    float rs_a = 0.f, rs_b = 0.f;
#pragma unroll
    for (int j = 0; j < NT8; j++) {
      s[4 * j] = ex2(fmaf(s[4 * j], sl2, -ms_a));
      s[4 * j + 1] = ex2(fmaf(s[4 * j + 1], sl2, -ms_a));
      s[4 * j + 2] = ex2(fmaf(s[4 * j + 2], sl2, -ms_b));
      s[4 * j + 3] = ex2(fmaf(s[4 * j + 3], sl2, -ms_b));
      rs_a += s[4 * j] + s[4 * j + 1];
      rs_b += s[4 * j + 2] + s[4 * j + 3];
    }
    l_a = l_a * al_a + rs_a; // quad-partial; reduced once at the end
    l_b = l_b * al_b + rs_b;
#pragma unroll
    for (int j = 0; j < OREGS / 4; j++) {
      o[4 * j] *= al_a;
      o[4 * j + 1] *= al_a;
      o[4 * j + 2] *= al_b;
      o[4 * j + 3] *= al_b;
    }

    // ---- O += P V: P from registers (the S layout is the A-fragment layout), V MN-major ----
    unsigned pa[BLOCK_N / 16][4]; // packed before the fence: no register writes between wgmmas
#pragma unroll
    for (int kk = 0; kk < BLOCK_N / 16; kk++) {
      pa[kk][0] = pack_half2(s[8 * kk], s[8 * kk + 1]);
      pa[kk][1] = pack_half2(s[8 * kk + 2], s[8 * kk + 3]);
      pa[kk][2] = pack_half2(s[8 * kk + 4], s[8 * kk + 5]);
      pa[kk][3] = pack_half2(s[8 * kk + 6], s[8 * kk + 7]);
    }
    pin(o);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BLOCK_N / 16; kk++) {
      // keys 16kk..16kk+15 = two 8-row groups of 1024 bytes; LBO: next 64-column block of d.
      const unsigned long long db = make_desc(vt + kk * 2048, BLOCK_N * 128, 1024);
#if HEAD_DIM == 64
      wgmma_rs_n64(o, pa[kk], db, 1);
#else
      wgmma_rs_n128(o, pa[kk], db, 1);
#endif
    }
    wgmma_commit();
    wgmma_wait0();
    pin(o);
    // This warp's wgmma reads of the stage are complete: release it to the producer.
    __syncwarp();
    if (lane == 0) mbar_arrive(bar_empty + 8 * st);
  }

  // ---- epilogue: normalise and store fp16 rows straight from the accumulators ----
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 1);
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 2);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 1);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 2);
  const float inv_a = l_a > 0.f ? 1.f / l_a : 0.f, inv_b = l_b > 0.f ? 1.f / l_b : 0.f;
  half *O = static_cast<half *>(p.o) + head;
#pragma unroll
  for (int j = 0; j < OREGS / 4; j++) {
    const int col = 8 * j + 2 * c4;
    if (row_a < S)
      *reinterpret_cast<__half2 *>(O + (size_t)row_a * HEAD_DIM + col) =
          __floats2half2_rn(o[4 * j] * inv_a, o[4 * j + 1] * inv_a);
    if (row_b < S)
      *reinterpret_cast<__half2 *>(O + (size_t)row_b * HEAD_DIM + col) =
          __floats2half2_rn(o[4 * j + 2] * inv_b, o[4 * j + 3] * inv_b);
  }
}
