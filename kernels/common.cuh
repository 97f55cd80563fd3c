// Device helpers shared by the attention kernels (NVRTC in-memory header, next to
// attn_params.h). Plain CUDA C for every architecture: index math, guarded 16-byte tile loads
// and the online-softmax pieces every rung uses the same way. The sm_80 instructions (cp.async,
// ldmatrix, mma.sync) are in sm80.cuh, the Hopper ones in hopper.cuh.
#pragma once

#include <cuda_fp16.h>
#if BT_BF16
#include <cuda_bf16.h>
#endif

#include "attn_params.h"

#ifndef HEAD_DIM
#define HEAD_DIM 64
#endif

// NVRTC has no <math.h>; the IEEE bit pattern is exact.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

#define BT_LOG2E 1.4426950408889634f
#define BT_FULL_MASK 0xffffffffu

// Element offset of row `row` of head `bh` in a [B, H, S, D] tensor.
__device__ __forceinline__ size_t bt_row_offset(int bh, int S, int row, int D) {
  return ((size_t)bh * (size_t)S + (size_t)row) * (size_t)D;
}

__device__ __forceinline__ int bt_min(int a, int b) { return a < b ? a : b; }

// Causal is aligned bottom-right: query i sees keys 0 .. i + (Skv - S) (0 when Skv == S).
__device__ __forceinline__ int bt_causal_shift(const AttnParams &p) { return p.Skv - p.S; }

// Keys a query tile [q0, q0 + rows) must visit: all Skv, or up to its last row's last key when
// causal.
__device__ __forceinline__ int bt_key_end(const AttnParams &p, int q0, int rows) {
  return p.causal ? bt_min(p.Skv, q0 + rows + bt_causal_shift(p)) : p.Skv;
}

// True when query row `qi` may attend to key `kj` (inside Skv, and not in its future if causal).
__device__ __forceinline__ bool bt_visible(const AttnParams &p, int qi, int kj) {
  return kj < p.Skv && (!p.causal || kj <= qi + bt_causal_shift(p));
}

// The key/value head query head `h` reads: Hq / Hkv query heads share one (GQA; MQA: Hkv = 1).
__device__ __forceinline__ int bt_kv_head(const AttnParams &p, int h) { return h / (p.H / p.Hkv); }
// The [B*Hkv] index of the K/V head of flat query head bh = b * H + h.
__device__ __forceinline__ int bt_kv_bh(const AttnParams &p, int bh) {
  return (bh / p.H) * p.Hkv + bt_kv_head(p, bh % p.H);
}

// The element type the kernel was compiled for (`dtypes fp16 bf16` builds bf16 with
// -DBT_BF16=1): storage, and two floats packed into one register of two elements (the A operand
// of an MMA, a 4-byte store).
#if BT_BF16
typedef __nv_bfloat16 bt_elem;
__device__ __forceinline__ float bt_to_float(bt_elem x) { return __bfloat162float(x); }
__device__ __forceinline__ bt_elem bt_from_float(float x) { return __float2bfloat16_rn(x); }
__device__ __forceinline__ unsigned bt_pack2(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<unsigned *>(&h);
}
#else
typedef __half bt_elem;
__device__ __forceinline__ float bt_to_float(bt_elem x) { return __half2float(x); }
__device__ __forceinline__ bt_elem bt_from_float(float x) { return __float2half_rn(x); }
__device__ __forceinline__ unsigned bt_pack2(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<unsigned *>(&h);
}
#endif
// 16 bits of either dtype as a float, the dtype known at run time (the reference, the engine).
__device__ __forceinline__ float bt_bits_to_float(unsigned short b, int bf16) {
  return bf16 ? __uint_as_float((unsigned)b << 16) : __half2float(__ushort_as_half(b));
}

// New running max for online softmax, and the factor that rescales the old sums. A row that
// has seen only masked keys keeps m = -inf: use 0 as the exponent base then, so that
// exp2(-inf - base) = 0 and never -inf - (-inf) = NaN.
__device__ __forceinline__ float bt_safe_base(float m) { return m == -INFINITY ? 0.f : m; }
__device__ __forceinline__ float bt_rescale(float m_old, float m_new) {
  return m_old == -INFINITY ? 0.f : exp2f(m_old - m_new);
}

// log2 of the largest unnormalised P in the mma.sync/wgmma kernels: a row's base (the max P is
// taken against) moves only when a score exceeds it by this much (FlashAttention-4's
// conditional rescaling), so P <= 2^8 = 256, far inside fp16's range, and O is rescaled
// rarely; exact in the result, since O and the row sum share the base.
#define BT_RESCALE_SLACK 8.f

// exp2 on the MUFU pipe (approximate, flush-to-zero): the one transcendental of the softmax in
// the mma.sync/wgmma kernels, which take scores to the log2 domain with one FMA first.
__device__ __forceinline__ float bt_ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}
// Two floats -> one register of two fp16 (round to nearest): an MMA A-operand fragment.
__device__ __forceinline__ unsigned bt_pack_half2(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<unsigned *>(&h);
}

__device__ __forceinline__ float bt_warp_max(float x) {
  for (int o = 16; o > 0; o >>= 1) x = fmaxf(x, __shfl_xor_sync(BT_FULL_MASK, x, o));
  return x;
}
__device__ __forceinline__ float bt_warp_sum(float x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(BT_FULL_MASK, x, o);
  return x;
}

// 8 halves (16 bytes) <-> floats.
__device__ __forceinline__ void bt_unpack8(const uint4 &u, float *f) {
  const __half2 *h = reinterpret_cast<const __half2 *>(&u);
#pragma unroll
  for (int i = 0; i < 4; i++) {
    float2 t = __half22float2(h[i]);
    f[2 * i] = t.x;
    f[2 * i + 1] = t.y;
  }
}

// One 16-byte chunk of a [rows, D] tile from global memory, zero beyond S (so that masked
// keys multiply zeros, never uninitialised shared memory that may hold NaN bit patterns).
__device__ __forceinline__ uint4 bt_load_chunk(const __half *base, int bh, int S, int row,
                                              int col, int D) {
  if (row >= S) return make_uint4(0u, 0u, 0u, 0u);
  return *reinterpret_cast<const uint4 *>(base + bt_row_offset(bh, S, row, D) + col);
}

// XOR swizzle of 16-byte chunks: chunk c of row r lives at chunk c ^ (r % 8). Within every
// 128-byte span the 8 rows a quarter-warp touches land in 8 different bank groups.
__device__ __forceinline__ int bt_swizzle(int row, int chunk) { return chunk ^ (row & 7); }

// N = 2 or 4 consecutive halves from shared memory in one vector load (4 or 8 bytes), as fp32.
template <int N> __device__ __forceinline__ void bt_load_halves(const __half *src, float *dst) {
  static_assert(N == 2 || N == 4, "2 or 4 halves");
  if constexpr (N == 2) {
    const float2 t = __half22float2(*reinterpret_cast<const __half2 *>(src));
    dst[0] = t.x;
    dst[1] = t.y;
  } else {
    const uint2 u = *reinterpret_cast<const uint2 *>(src);
    const float2 a = __half22float2(*reinterpret_cast<const __half2 *>(&u.x));
    const float2 b = __half22float2(*reinterpret_cast<const __half2 *>(&u.y));
    dst[0] = a.x;
    dst[1] = a.y;
    dst[2] = b.x;
    dst[3] = b.y;
  }
}
