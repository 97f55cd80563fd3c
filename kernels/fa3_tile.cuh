// The per-tile steps of fa3.cu (sm_90a): GEMM issue, masking and the online softmax of one
// consumer warpgroup's 64 rows. fa3.cu defines the tile macros (HEAD_DIM, BLOCK_N, SREGS, OREGS)
// and includes this after them; the schedule that orders these steps is in fa3_consumer.cuh.
#pragma once

#include "common.cuh"
#include "hopper.cuh"

namespace {

__device__ __forceinline__ void wgmma_qk(float (&s)[SREGS], unsigned long long da,
                                         unsigned long long db, int scale_d) {
#if BLOCK_N == 64
  bt_wgmma_ss_n64(s, da, db, scale_d);
#elif BLOCK_N == 128
  bt_wgmma_ss_n128(s, da, db, scale_d);
#else
  bt_wgmma_ss_n176(s, da, db, scale_d);
#endif
}
__device__ __forceinline__ void wgmma_pv(float (&o)[OREGS], const unsigned (&a)[4],
                                         unsigned long long db) {
#if HEAD_DIM == 64
  bt_wgmma_rs_n64(o, a, db);
#elif HEAD_DIM == 128
  bt_wgmma_rs_n128(o, a, db);
#else
  // D=256: two n128 halves; the second's accumulators continue the first's column order, and
  // its V columns start two 64-column blocks (LBO steps) further.
  bt_wgmma_rs_n128(*reinterpret_cast<float(*)[64]>(&o[0]), a, db);
  bt_wgmma_rs_n128(*reinterpret_cast<float(*)[64]>(&o[64]), a, db + ((2 * BLOCK_N * 128) >> 4));
#endif
}

// S = Q K^T for one warpgroup: 64 x BLOCK_N, HEAD_DIM/16 k-steps. K-major 128B-swizzled
// operands: a k-step is a 32-byte step inside the 128-byte row, 4 per 64-column block.
__device__ __forceinline__ void issue_qk(float (&s)[SREGS], unsigned q, unsigned k) {
  bt_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < HEAD_DIM / 16; kk++) {
    const unsigned koff = (kk & 3) * 32;
    wgmma_qk(s, bt_wgmma_desc(q + (kk >> 2) * (64 * 128) + koff, 16, 1024),
             bt_wgmma_desc(k + (kk >> 2) * (BLOCK_N * 128) + koff, 16, 1024), kk > 0);
  }
  bt_wgmma_commit();
}

// O += P V: P from registers (the S accumulator layout is the A-fragment layout), V MN-major:
// 16 keys = two 8-row groups of 1024 bytes per k-step; LBO = the next 64-column block of d.
__device__ __forceinline__ void issue_pv(float (&o)[OREGS], const unsigned (&pa)[BLOCK_N / 16][4],
                                         unsigned v) {
  bt_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < BLOCK_N / 16; kk++)
    wgmma_pv(o, pa[kk], bt_wgmma_desc(v + kk * 2048, BLOCK_N * 128, 1024));
  bt_wgmma_commit();
}

// Keys past Skv, and (causal) keys after the query row's last visible key, to -inf. diag_a: the
// last key row a sees (its row + Skv - S: bottom-right aligned). Rows a/b: s[4j+0,1], s[4j+2,3].
__device__ __forceinline__ void mask_tile(float (&s)[SREGS], int n0, int Skv, bool causal,
                                          int diag_a, int c4) {
  const float NEG_INF = __int_as_float(0xff800000);
#pragma unroll
  for (int j = 0; j < BLOCK_N / 8; j++)
#pragma unroll
    for (int e = 0; e < 4; e++) {
      const int key = n0 + 8 * j + 2 * c4 + (e & 1);
      const int diag = diag_a + 8 * (e >> 1);
      if (key >= Skv || (causal && key > diag)) s[4 * j + e] = NEG_INF;
    }
}

struct Rows { // online-softmax state of this thread's two query rows (a = g, b = g + 8)
  float m_a, m_b, l_a, l_b; // m: the base P is taken against, log2 domain (score * sl2)
};

// Online softmax of one tile in place (s becomes P, unnormalised), in two halves so that a
// schedule can put a turn between them (sched=exp: only the exponentials use the MUFU pipe).
// softmax_max returns through al_* the factors that rescale O (softmax_exp rescales l): exactly
// 1 unless the row's base moved. A row with no visible key yet keeps base -inf: 0 is used so
// that -inf - -inf never occurs, and bt_ex2(-inf) = 0 masks cleanly.
__device__ __forceinline__ void softmax_max(const float (&s)[SREGS], Rows &r, float sl2,
                                            float &al_a, float &al_b) {
  // Row max in four interleaved chains per row (depth BLOCK_N/32 + 2, not BLOCK_N/8): it is on
  // the critical path, and a full tree would hold BLOCK_N/4 more registers live.
  float ta[4], tb[4];
#pragma unroll
  for (int c = 0; c < 4; c++) {
    ta[c] = fmaxf(s[4 * c], s[4 * c + 1]);
    tb[c] = fmaxf(s[4 * c + 2], s[4 * c + 3]);
  }
#pragma unroll
  for (int j = 4; j < BLOCK_N / 8; j++) {
    ta[j & 3] = fmaxf(ta[j & 3], fmaxf(s[4 * j], s[4 * j + 1]));
    tb[j & 3] = fmaxf(tb[j & 3], fmaxf(s[4 * j + 2], s[4 * j + 3]));
  }
  float mx_a = fmaxf(fmaxf(ta[0], ta[1]), fmaxf(ta[2], ta[3]));
  float mx_b = fmaxf(fmaxf(tb[0], tb[1]), fmaxf(tb[2], tb[3]));
  mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 1));
  mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 2));
  mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 1));
  mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 2));
  const float tm_a = mx_a * sl2, tm_b = mx_b * sl2; // -inf: no visible key in this tile
  al_a = 1.f;
  al_b = 1.f;
  if (tm_a > r.m_a + BT_RESCALE_SLACK) {
    al_a = bt_ex2(r.m_a - tm_a); // 0 when the old base was -inf
    r.m_a = tm_a;
  }
  if (tm_b > r.m_b + BT_RESCALE_SLACK) {
    al_b = bt_ex2(r.m_b - tm_b);
    r.m_b = tm_b;
  }
}
#ifndef EXP_POLY_EVERY
#define EXP_POLY_EVERY 0 /* 0: every exponential on MUFU; n: every n-th group of 4 by poly_ex2 */
#endif
#if EXP_POLY_EVERY > 0
// 2^x on the FMA pipe (FlashAttention-4's trick): the MUFU pipe does 16 exponentials per clock
// per SM; part of them can go through a polynomial on the otherwise idle FMA and ALU pipes.
// x is rounded to j + f (f in [-0.5, 0.5]) by the 1.5 * 2^23 shift, 2^f is a degree-3 fit
// (relative error < 7.5e-5, well under fp16's 4.9e-4), and j goes into the exponent bits.
// x below -126 (masked keys: -inf) gives 2^-126, which is 0 once P is packed to fp16.
__device__ __forceinline__ float poly_ex2(float x) {
  x = fmaxf(x, -126.f);
  const float t = x + 12582912.f, f = x - (t - 12582912.f);
  const float p = fmaf(fmaf(fmaf(0.0551712229f, f, 0.242611004f), f, 0.693261035f), f, 0.999928083f);
  return __int_as_float(__float_as_int(p) + (__float_as_int(t) << 23));
}
#endif
// The exponential of group j (of four) of a tile: every EXP_POLY_EVERY-th by poly_ex2.
__device__ __forceinline__ float ex2_at(int j, float x) {
#if EXP_POLY_EVERY > 0
  if (j % EXP_POLY_EVERY == EXP_POLY_EVERY - 1) return poly_ex2(x);
#endif
  (void)j;
  return bt_ex2(x);
}
__device__ __forceinline__ void softmax_exp(float (&s)[SREGS], Rows &r, float sl2, float al_a,
                                            float al_b) {
  const float NEG_INF = __int_as_float(0xff800000);
  const float ms_a = r.m_a == NEG_INF ? 0.f : r.m_a;
  const float ms_b = r.m_b == NEG_INF ? 0.f : r.m_b;
  float rs_a = 0.f, rs_b = 0.f;
#pragma unroll
  for (int j = 0; j < BLOCK_N / 8; j++) {
    s[4 * j] = ex2_at(j, fmaf(s[4 * j], sl2, -ms_a));
    s[4 * j + 1] = ex2_at(j, fmaf(s[4 * j + 1], sl2, -ms_a));
    s[4 * j + 2] = ex2_at(j, fmaf(s[4 * j + 2], sl2, -ms_b));
    s[4 * j + 3] = ex2_at(j, fmaf(s[4 * j + 3], sl2, -ms_b));
    rs_a += s[4 * j] + s[4 * j + 1];
    rs_b += s[4 * j + 2] + s[4 * j + 3];
  }
  r.l_a = r.l_a * al_a + rs_a; // quad-partial; reduced once at the end
  r.l_b = r.l_b * al_b + rs_b;
}
__device__ __forceinline__ void softmax_tile(float (&s)[SREGS], Rows &r, float sl2, float &al_a,
                                             float &al_b) {
  softmax_max(s, r, sl2, al_a, al_b);
  softmax_exp(s, r, sl2, al_a, al_b);
}

__device__ __forceinline__ void pack_p(const float (&s)[SREGS], unsigned (&pa)[BLOCK_N / 16][4]) {
#pragma unroll
  for (int kk = 0; kk < BLOCK_N / 16; kk++) {
    pa[kk][0] = bt_pack2(s[8 * kk], s[8 * kk + 1]);
    pa[kk][1] = bt_pack2(s[8 * kk + 2], s[8 * kk + 3]);
    pa[kk][2] = bt_pack2(s[8 * kk + 4], s[8 * kk + 5]);
    pa[kk][3] = bt_pack2(s[8 * kk + 6], s[8 * kk + 7]);
  }
}

// One vote per warp: the multiplies run only when a row of this warp moved its base.
__device__ __forceinline__ void rescale_o(float (&o)[OREGS], float al_a, float al_b) {
  if (!__any_sync(0xffffffffu, al_a != 1.f || al_b != 1.f)) return;
#pragma unroll
  for (int j = 0; j < OREGS / 4; j++) {
    o[4 * j] *= al_a;
    o[4 * j + 1] *= al_a;
    o[4 * j + 2] *= al_b;
    o[4 * j + 3] *= al_b;
  }
}

} // namespace
