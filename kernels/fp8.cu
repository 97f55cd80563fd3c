/* benchtop
name      fp8
summary   E4M3 Q/K with per-head scales through mma.sync e4m3, fp32 softmax
rung      8
builds_on mma
head_dims 64 128
arch      sm_89
# E4M3 rounding gives ~3.7e-2 relative L2 on standard-normal inputs (see below)
tolerance 5e-2
# QK^T on fp8 tensor cores, PV in fp16: the floors count half the FLOPs at the fp8 rate
qk_fp8
# quantize: one block per head, grid.y 0 for Q and 1 for K. attn_fwd: fixed tiling, 64 query
# rows, 4 warps, 2 stages of 64 keys; shared memory Q8 [64][D] + 2 K8 [64][D] bytes + 2 V [64][D]
# fp16 = 7*64*D bytes
kernel quantize grid(B * H, 2) block(256)
kernel attn_fwd grid(cdiv(S, 64), B * H) block(128) smem(7 * 64 * D)
# [q8: B*H*S*D bytes][k8: B*H*S*D bytes][q_scale: B*H floats][k_scale: B*H floats]
scratch workspace 2 * B * H * S * D + 2 * B * H * 4
*/
// Rung 8 of the ladder: fp8 — E4M3 Q and K through mma.sync m16n8k32 (sm_89+).
// Changes from mma (rung 7): a `quantize` step first scans each (b, h) head of Q and of K for
// its absolute maximum and writes an E4M3 copy scaled by 448/amax (saturating), keeping
// scale = amax/448 to undo it. `attn_fwd` is then mma's FlashAttention-2 loop with QK^T done by
// mma.sync.m16n8k32.e4m3 (twice the fp16 tensor rate, half the Q/K bytes in shared memory and
// registers); the fp32 scores are dequantised for free by folding q_scale*k_scale into the
// softmax's exp2 multiplier. Softmax stays fp32; P and V stay fp16 for PV (m16n8k16).
// Why V stays fp16: an fp8 PV needs P in E4M3 too, and P's 3-bit mantissa (up to 6 % error per
// weight, not averaging out for peaked rows) would double the error below for half of the
// FLOPs: an fp8 PV fails the precision check at S=512 through exactly this accumulation.
// Accuracy, honestly: E4M3 rounds each Q and K element with ~2.6 % rms relative error. A score
// is a sum of D products, so its error is ~sqrt(2)*2.6 % = 3.7 % of the score's own spread
// (scale-free: per-head or per-row scales cannot reduce it, only subnormals would add to it).
// The output O = sum p v inherits that relative error: ~3.7e-2 relative L2 for standard-normal
// inputs, ~1.2e-2 for uniform(-1, 1) inputs (whose products have a third of the spread). The
// declared tolerance (5e-2) covers normal inputs with a margin; fp16 variants hold 2e-3.
// Expect in the metrics: quantize is memory-bound (reads Q and K twice, writes half); the
// attention kernel issues half the QK^T tensor instructions of mma and its error column reads
// ~1e-2..4e-2 where every other rung reads ~3e-4.
// Scratch: p.workspace, laid out [q8: N bytes][k8: N bytes][q_scale: B*H floats]
// [k_scale: B*H floats], N = B*H*S*D (the declaration's scratch); p.q8/k8/v8 and the p.*_scale
// pointers are not used.
#include "attn_params.h"
#include "common.cuh"
#include "sm80.cuh"
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#ifndef HEAD_DIM
#define HEAD_DIM 64
#endif
/* Fixed tiling (the declaration's launch uses the same numbers). */
#define BLOCK_M 64
#define BLOCK_N 64
#define WARPS 4
#define STAGES 2
#define NT (WARPS * 32)
#define CPR (HEAD_DIM / 8)   /* 16-byte chunks per fp16 row (V, O) */
#define CPR8 (HEAD_DIM / 16) /* 16-byte chunks per fp8 row (Q8, K8) */
#define NTILES (BLOCK_N / 8)
#define DTILES (HEAD_DIM / 8)
#define QUANT_THREADS 256
/* D=128 on sm_90 runs out of registers with Q held for the whole loop: re-read it per tile
 * (4 ldmatrix a tile, conflict-free) instead. */
#if HEAD_DIM == 64
#define FP8_Q_IN_REGS 1
#else
#define FP8_Q_IN_REGS 0
#endif

static_assert(HEAD_DIM == 64 || HEAD_DIM == 128, "fp8: HEAD_DIM must be 64 or 128");

namespace {

// fp16 tiles [rows][HEAD_DIM]: element offset of chunk `chunk` of `row` (chunk ^ row%8).
__device__ __forceinline__ int swz16(int row, int chunk) {
  return row * HEAD_DIM + (bt_swizzle(row, chunk) << 3);
}
// fp8 tiles [rows][HEAD_DIM] bytes. 128-byte rows (D=128) use chunk ^ row%8; 64-byte rows (D=64)
// put two rows in a 128-byte bank line, so XOR with (row/2)%4: 8 consecutive rows at one
// logical chunk still hit 8 distinct 16-byte bank groups.
__device__ __forceinline__ int sw8(int row) { return CPR8 == 8 ? (row & 7) : ((row >> 1) & 3); }
__device__ __forceinline__ int swz8(int row, int chunk) {
  return row * HEAD_DIM + ((chunk ^ sw8(row)) << 4);
}

// D += A(16x32 e4m3, row) * B(32x8 e4m3, col). Same register layout as the 16-bit shape with
// each 32-bit register holding 4 consecutive k instead of 2, so ldmatrix feeds it unchanged.
__device__ __forceinline__ void mma_16832_e4m3(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                               unsigned b1) {
#if __CUDA_ARCH__ >= 890
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  __trap(); // registry min_cc 89: never launched below sm_89
#endif
}

// ROWS rows of a head into a swizzled tile, rows >= S zero-filled: fp16 (V) or fp8 (Q8, K8)
// elements, one 16-byte chunk per copy.
template <int ROWS, typename T>
__device__ __forceinline__ void load_tile(T *tile, const T *g, int row0, int S, int tid) {
  constexpr int CHUNKS = HEAD_DIM * (int)sizeof(T) / 16, PER_CHUNK = 16 / (int)sizeof(T);
#pragma unroll
  for (int i = 0; i < ROWS * CHUNKS / NT; i++) {
    int idx = tid + i * NT;
    int r = idx / CHUNKS, c = idx % CHUNKS;
    bool ok = row0 + r < S;
    const int off = sizeof(T) == 1 ? swz8(r, c) : swz16(r, c);
    bt_cp_async16(bt_smem_u32(tile + off), g + (size_t)(ok ? row0 + r : 0) * HEAD_DIM + c * PER_CHUNK, ok);
  }
}

} // namespace

// Step 1. grid (B*H, 2): blockIdx.y 0 quantises Q, 1 quantises K, one (b, h) head per block.
extern "C" __global__ void __launch_bounds__(QUANT_THREADS) quantize(const AttnParams p) {
  __shared__ float warp_max[QUANT_THREADS / 32];
  const int bh = blockIdx.x, which = blockIdx.y, BH = p.B * p.H;
  const size_t n = (size_t)p.S * HEAD_DIM; // elements of one head
  const half *src = static_cast<const half *>(which ? p.k : p.q) + (size_t)bh * n;
  unsigned char *ws = static_cast<unsigned char *>(p.workspace);
  const size_t all = (size_t)BH * n;
  unsigned char *dst = ws + (which ? all : 0) + (size_t)bh * n;
  float *scales = reinterpret_cast<float *>(ws + 2 * all) + (which ? BH : 0);

  float amax = 0.f;
  for (size_t i = threadIdx.x; i < n / 8; i += QUANT_THREADS) {
    uint4 raw = reinterpret_cast<const uint4 *>(src)[i];
    const __half2 *h = reinterpret_cast<const __half2 *>(&raw);
#pragma unroll
    for (int j = 0; j < 4; j++) {
      float2 f = __half22float2(h[j]);
      amax = fmaxf(amax, fmaxf(fabsf(f.x), fabsf(f.y)));
    }
  }
#pragma unroll
  for (int o = 16; o; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = amax;
  __syncthreads();
  amax = warp_max[0];
#pragma unroll
  for (int w = 1; w < QUANT_THREADS / 32; w++) amax = fmaxf(amax, warp_max[w]);
  // An all-zero (or non-finite) head gets scale 1: its codes are 0 and nothing divides by 0.
  const float scale = (amax > 0.f && amax < 3.0e38f) ? amax / 448.f : 1.f;
  const float inv = 1.f / scale;
  if (threadIdx.x == 0) scales[bh] = scale;

  for (size_t i = threadIdx.x; i < n / 8; i += QUANT_THREADS) {
    uint4 raw = reinterpret_cast<const uint4 *>(src)[i];
    const __half2 *h = reinterpret_cast<const __half2 *>(&raw);
    unsigned short code[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
      float2 f = __half22float2(h[j]);
      f.x *= inv;
      f.y *= inv;
      code[j] = __nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, __NV_E4M3); // low byte = f.x
    }
    uint2 out;
    out.x = (unsigned)code[0] | ((unsigned)code[1] << 16);
    out.y = (unsigned)code[2] | ((unsigned)code[3] << 16);
    reinterpret_cast<uint2 *>(dst)[i] = out;
  }
}

// Step 2. grid (ceil(S/64), B*H), 128 threads; dynamic shared memory: Q8 [64][D] bytes,
// STAGES x K8 [64][D] bytes, STAGES x V [64][D] fp16.
extern "C" __global__ void __launch_bounds__(NT) attn_fwd(const AttnParams p) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  unsigned char *sQ8 = smem_raw;
  unsigned char *sK8 = sQ8 + BLOCK_M * HEAD_DIM;
  half *sV = reinterpret_cast<half *>(sK8 + STAGES * BLOCK_N * HEAD_DIM);

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int S = p.S, bh = blockIdx.y, BH = p.B * p.H;
  const bool causal = p.causal != 0;
  const int mblk = causal ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x;
  const int m0 = mblk * BLOCK_M;
  const size_t head = (size_t)bh * S * HEAD_DIM;
  const unsigned char *ws = static_cast<const unsigned char *>(p.workspace);
  const size_t all = (size_t)BH * S * HEAD_DIM;
  const unsigned char *Q8 = ws + head;
  const unsigned char *K8 = ws + all + head;
  const float *scales = reinterpret_cast<const float *>(ws + 2 * all);
  const half *V = static_cast<const half *>(p.v) + head;
  half *O = static_cast<half *>(p.o) + head;

  const int kv_end = causal ? min(S, m0 + BLOCK_M) : S;
  const int n_tiles = (kv_end + BLOCK_N - 1) / BLOCK_N;

  load_tile<BLOCK_M>(sQ8, Q8, m0, S, tid);
#pragma unroll
  for (int s = 0; s < STAGES - 1; s++) {
    if (s < n_tiles) {
      load_tile<BLOCK_N>(sK8 + s * BLOCK_N * HEAD_DIM, K8, s * BLOCK_N, S, tid);
      load_tile<BLOCK_N>(sV + s * BLOCK_N * HEAD_DIM, V, s * BLOCK_N, S, tid);
    }
    bt_cp_async_commit();
  }

  // Scores come out of the mma in units of q_scale*k_scale; fold that into the exp2 factor.
  const float sl2 = p.scale * 1.4426950408889634f * scales[bh] * scales[BH + bh];
  const float NEG_INF = __int_as_float(0xff800000);
  const int wrow0 = m0 + warp * 16;
  const int g = lane >> 2, c4 = lane & 3;

  float o[DTILES][4];
#pragma unroll
  for (int dt = 0; dt < DTILES; dt++) o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.f;
  float row_m[2] = {NEG_INF, NEG_INF}, row_l[2] = {0.f, 0.f};
  unsigned qf[HEAD_DIM / 32][4];

  // ldmatrix lanes (see mma.cu): fragment row blocks start at multiples of 16 rows, so the
  // swizzle term depends on the lane only and chunk 2k+x maps to (2k) ^ (x ^ swizzle).
  const unsigned q_addr = bt_smem_u32(sQ8 + (warp * 16 + (lane & 15)) * HEAD_DIM);
  const int q_x = (lane >> 4) ^ sw8(lane & 15);
  const int k_row = (lane & 7) + ((lane >> 4) << 3);
  const unsigned k_lane = bt_smem_u32(sK8 + k_row * HEAD_DIM);
  const int k_x = ((lane >> 3) & 1) ^ sw8(k_row);
  const unsigned v_lane = bt_smem_u32(sV + ((lane & 7) + (((lane >> 3) & 1) << 3)) * HEAD_DIM);
  const int v_x = (lane >> 4) ^ (lane & 7);

  int st_read = 0, st_write = STAGES - 1;
  for (int t = 0; t < n_tiles; t++) {
    bt_cp_async_wait<STAGES - 2>();
    __syncthreads();
    {
      const int tn = t + STAGES - 1;
      if (tn < n_tiles) {
        load_tile<BLOCK_N>(sK8 + st_write * BLOCK_N * HEAD_DIM, K8, tn * BLOCK_N, S, tid);
        load_tile<BLOCK_N>(sV + st_write * BLOCK_N * HEAD_DIM, V, tn * BLOCK_N, S, tid);
      }
      bt_cp_async_commit();
      st_write = st_write == STAGES - 1 ? 0 : st_write + 1;
    }
    const int st = st_read;
    st_read = st_read == STAGES - 1 ? 0 : st_read + 1;
#if FP8_Q_IN_REGS
    if (t == 0) {
#pragma unroll
      for (int kk = 0; kk < HEAD_DIM / 32; kk++) bt_ldsm_x4(qf[kk], q_addr + (((2 * kk) ^ q_x) << 4));
    }
#endif
    const int n0 = t * BLOCK_N;
    if (causal && n0 > wrow0 + 15) continue; // the whole tile is after this warp's rows

    const unsigned k_addr = k_lane + st * (BLOCK_N * HEAD_DIM);
    const unsigned v_addr = v_lane + st * (BLOCK_N * HEAD_DIM * 2);

    float s[NTILES][4];
#pragma unroll
    for (int j = 0; j < NTILES; j++) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < HEAD_DIM / 32; kk++) {
#if !FP8_Q_IN_REGS
      bt_ldsm_x4(qf[kk], q_addr + (((2 * kk) ^ q_x) << 4));
#endif
#pragma unroll
      for (int jp = 0; jp < NTILES / 2; jp++) {
        unsigned b[4];
        bt_ldsm_x4(b, k_addr + jp * (16 * HEAD_DIM) + (((2 * kk) ^ k_x) << 4));
        mma_16832_e4m3(s[2 * jp], qf[kk], b[0], b[1]);
        mma_16832_e4m3(s[2 * jp + 1], qf[kk], b[2], b[3]);
      }
    }

    if (n0 + BLOCK_N > S || (causal && n0 + BLOCK_N - 1 > wrow0)) {
#pragma unroll
      for (int j = 0; j < NTILES; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
          const int key = n0 + 8 * j + 2 * c4 + (e & 1);
          const int row = wrow0 + g + 8 * (e >> 1);
          if (key >= S || (causal && key > row)) s[j][e] = NEG_INF;
        }
    }

#pragma unroll
    for (int h = 0; h < 2; h++) {
      float mx = row_m[h];
#pragma unroll
      for (int j = 0; j < NTILES; j++) mx = fmaxf(mx, fmaxf(s[j][2 * h], s[j][2 * h + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float ms = mx == NEG_INF ? 0.f : mx * sl2;
      const float alpha = bt_ex2(row_m[h] * sl2 - ms);
      row_m[h] = mx;
      float rs = 0.f;
#pragma unroll
      for (int j = 0; j < NTILES; j++) {
        const float p0 = bt_ex2(fmaf(s[j][2 * h], sl2, -ms));
        const float p1 = bt_ex2(fmaf(s[j][2 * h + 1], sl2, -ms));
        s[j][2 * h] = p0;
        s[j][2 * h + 1] = p1;
        rs += p0 + p1;
      }
      row_l[h] = row_l[h] * alpha + rs;
#pragma unroll
      for (int dt = 0; dt < DTILES; dt++) {
        o[dt][2 * h] *= alpha;
        o[dt][2 * h + 1] *= alpha;
      }
    }

#pragma unroll
    for (int kk = 0; kk < BLOCK_N / 16; kk++) {
      unsigned a[4];
      a[0] = bt_pack_half2(s[2 * kk][0], s[2 * kk][1]);
      a[1] = bt_pack_half2(s[2 * kk][2], s[2 * kk][3]);
      a[2] = bt_pack_half2(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      a[3] = bt_pack_half2(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
      for (int dp = 0; dp < HEAD_DIM / 16; dp++) {
        unsigned b[4];
        bt_ldsm_x4_trans(b, v_addr + kk * (16 * HEAD_DIM * 2) + (((2 * dp) ^ v_x) << 4));
        bt_mma_16816_x2(o[2 * dp], o[2 * dp + 1], a, b);
      }
    }
  }
  bt_cp_async_wait<0>();
  __syncthreads(); // every warp is done with the V stages: stage 0 becomes the output tile

  half *sO = sV + warp * 16 * HEAD_DIM;
#pragma unroll
  for (int h = 0; h < 2; h++) {
    float l = row_l[h];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    const float inv = l > 0.f ? 1.f / l : 0.f;
    const int r = g + 8 * h;
#pragma unroll
    for (int dt = 0; dt < DTILES; dt++)
      *reinterpret_cast<__half2 *>(sO + swz16(r, dt) + 2 * c4) =
          __floats2half2_rn(o[dt][2 * h] * inv, o[dt][2 * h + 1] * inv);
  }
  __syncwarp();
#pragma unroll
  for (int i = lane; i < 16 * CPR; i += 32) {
    const int r = i / CPR, c = i % CPR;
    if (wrow0 + r < S)
      *reinterpret_cast<uint4 *>(O + (size_t)(wrow0 + r) * HEAD_DIM + c * 8) =
          *reinterpret_cast<const uint4 *>(sO + swz16(r, c));
  }
}
