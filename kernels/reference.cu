// The fp32 reference every variant is checked against (itself checked against the float64 CPU
// implementation in ref_cpu.c). Written to be obviously correct, not fast: runtime D (up to
// 256), runtime shape (query heads over key/value heads, query and key lengths), causal flag
// (bottom-right aligned) and dtype, exact two-pass softmax (pass 1: row max; pass 2: exp, sum
// and weighted V), fp32 with fmaf and expf throughout, no tensor cores, no fast math.
//
// A block owns REF_ROWS query rows of one query head and walks the keys of its key/value head
// in tiles of REF_KEYS staged in shared memory (the 16-bit elements as stored, fp16 or bf16:
// the conversion to fp32 is exact). Warp w computes the scores of rows
// w and w + 8 against key `lane` of the tile; then every thread accumulates REF_ROWS * D / 256
// output elements (row, dim) over the tile's keys. Output: p.o_f32, fp32 [B, H, S, D].
#include "attn_params.h"
#include "common.cuh"

#define REF_ROWS 16
#define REF_KEYS 32
#define REF_MAX_D 256
#define REF_THREADS 256
#define REF_ACC (REF_ROWS * REF_MAX_D / REF_THREADS)

static_assert(REF_THREADS / 32 * 2 == REF_ROWS, "each warp scores two query rows");
static_assert(REF_KEYS == 32, "one key per lane");

// Scores of query rows r0 = warp and r1 = warp + 8 against key `lane` of the staged K tile,
// already multiplied by the softmax scale (as the CPU reference does: dot, then scale).
__device__ __forceinline__ void ref_scores(const unsigned short (*q_s)[REF_MAX_D],
                                           const unsigned short (*k_s)[REF_MAX_D + 2], int D,
                                           int warp, int lane, float scale, int bf16, float *s0,
                                           float *s1) {
  float d0 = 0.f, d1 = 0.f;
  for (int d = 0; d < D; d++) {
    const float kv = bt_bits_to_float(k_s[lane][d], bf16);
    d0 = fmaf(bt_bits_to_float(q_s[warp][d], bf16), kv, d0);
    d1 = fmaf(bt_bits_to_float(q_s[warp + 8][d], bf16), kv, d1);
  }
  *s0 = d0 * scale;
  *s1 = d1 * scale;
}

// Rows [k0, k0 + REF_KEYS) of a [S, D] head into shared memory, zero past S (0 is +0 in both
// dtypes).
__device__ __forceinline__ void ref_load_tile(unsigned short (*dst)[REF_MAX_D + 2],
                                              const unsigned short *src, int bh, int S, int D,
                                              int k0, int tid) {
  for (int e = tid; e < REF_KEYS * D; e += REF_THREADS) {
    const int r = e / D, d = e % D;
    dst[r][d] = (k0 + r < S) ? src[bt_row_offset(bh, S, k0 + r, D) + d] : (unsigned short)0;
  }
}

extern "C" __global__ void __launch_bounds__(REF_THREADS, 1) ref_attn(const AttnParams p) {
  __shared__ unsigned short q_s[REF_ROWS][REF_MAX_D];
  // +2 elements per row: key rows read by different lanes fall in different banks.
  __shared__ unsigned short k_s[REF_KEYS][REF_MAX_D + 2];
  __shared__ unsigned short v_s[REF_KEYS][REF_MAX_D + 2];
  __shared__ float p_s[REF_ROWS][REF_KEYS];
  __shared__ float l_s[REF_ROWS];

  const int S = p.S, Skv = p.Skv, D = p.D, bf16 = p.dtype == 1;
  // The host refuses these; never read out of bounds.
  if (D < 1 || D > REF_MAX_D || p.Hkv < 1 || p.H % p.Hkv != 0 || Skv < 1) return;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int bh = blockIdx.y, bkv = bt_kv_bh(p, bh);
  const int q0 = blockIdx.x * REF_ROWS;
  const unsigned short *Q = static_cast<const unsigned short *>(p.q);
  const unsigned short *K = static_cast<const unsigned short *>(p.k);
  const unsigned short *V = static_cast<const unsigned short *>(p.v);

  for (int e = tid; e < REF_ROWS * D; e += REF_THREADS) {
    const int r = e / D, d = e % D;
    q_s[r][d] = (q0 + r < S) ? Q[bt_row_offset(bh, S, q0 + r, D) + d] : (unsigned short)0;
  }
  const int row0 = q0 + warp, row1 = q0 + warp + 8;
  const int kend = bt_key_end(p, q0, REF_ROWS);

  // Pass 1: the exact row maximum over visible keys.
  float m0 = -INFINITY, m1 = -INFINITY;
  for (int k0 = 0; k0 < kend; k0 += REF_KEYS) {
    __syncthreads(); // everyone is done with the previous K tile (and Q is stored)
    ref_load_tile(k_s, K, bkv, Skv, D, k0, tid);
    __syncthreads();
    float s0, s1;
    ref_scores(q_s, k_s, D, warp, lane, p.scale, bf16, &s0, &s1);
    const int j = k0 + lane;
    if (bt_visible(p, row0, j)) m0 = fmaxf(m0, s0);
    if (bt_visible(p, row1, j)) m1 = fmaxf(m1, s1);
  }
  m0 = bt_warp_max(m0);
  m1 = bt_warp_max(m1);

  // Pass 2: p = exp(s - max), row sums, and sum of p * V.
  float acc[REF_ACC];
#pragma unroll
  for (int u = 0; u < REF_ACC; u++) acc[u] = 0.f;
  float l0 = 0.f, l1 = 0.f;
  for (int k0 = 0; k0 < kend; k0 += REF_KEYS) {
    __syncthreads(); // previous K, V and p_s fully consumed
    ref_load_tile(k_s, K, bkv, Skv, D, k0, tid);
    ref_load_tile(v_s, V, bkv, Skv, D, k0, tid);
    __syncthreads();
    float s0, s1;
    ref_scores(q_s, k_s, D, warp, lane, p.scale, bf16, &s0, &s1);
    const int j = k0 + lane;
    // Rows past S are never written; give them p = 0 so that nothing is computed from them.
    const float p0 = (row0 < S && bt_visible(p, row0, j)) ? expf(s0 - m0) : 0.f;
    const float p1 = (row1 < S && bt_visible(p, row1, j)) ? expf(s1 - m1) : 0.f;
    p_s[warp][lane] = p0;
    p_s[warp + 8][lane] = p1;
    l0 += p0;
    l1 += p1;
    __syncthreads();
#pragma unroll
    for (int u = 0; u < REF_ACC; u++) {
      const int e = tid + u * REF_THREADS;
      if (e < REF_ROWS * D) {
        const int r = e / D, d = e % D;
        // Blocked summation: the tile's 32 terms from zero, then one add into the running
        // sum, keeps the rounding error near sqrt(32) + sqrt(S / 32) ulps instead of sqrt(S).
        float t = 0.f;
        for (int c = 0; c < REF_KEYS; c++) t = fmaf(p_s[r][c], bt_bits_to_float(v_s[c][d], bf16), t);
        acc[u] += t;
      }
    }
  }
  l0 = bt_warp_sum(l0);
  l1 = bt_warp_sum(l1);
  if (lane == 0) {
    l_s[warp] = l0;
    l_s[warp + 8] = l1;
  }
  __syncthreads();

  float *O = p.o_f32;
#pragma unroll
  for (int u = 0; u < REF_ACC; u++) {
    const int e = tid + u * REF_THREADS;
    if (e < REF_ROWS * D) {
      const int r = e / D, d = e % D;
      // A valid row sees at least key 0; its maximum contributes exp(0) = 1, so l >= 1.
      if (q0 + r < S) O[bt_row_offset(bh, S, q0 + r, D) + d] = acc[u] / l_s[r];
    }
  }
}
