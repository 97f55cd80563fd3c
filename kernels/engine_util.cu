// Engine helpers, not a variant: fresh random inputs (normal, never zero), output poisoning,
// the L2 flush write, and the input checksum. Compiled once per worker.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common.cuh"

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Standard normal values (Box-Muller on a counter-based hash), like torch.randn; exact zeros
// are nudged away so an unwritten or zeroed output can never look right.
__device__ __forceinline__ float randn_at(unsigned long long i, unsigned long long seed) {
  unsigned long long h = splitmix64(seed ^ splitmix64(i));
  float u1 = ((h >> 40) + 1) * (1.0f / 16777217.0f);  // (0, 1]
  float u2 = ((h & 0xFFFFFF)) * (1.0f / 16777216.0f); // [0, 1)
  float r = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
  if (fabsf(r) < 1e-3f) r = r < 0 ? -1e-3f : 1e-3f;
  return r;
}

extern "C" __global__ void fill_randn_half(__half *x, unsigned long long n, unsigned long long seed) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    x[i] = __float2half_rn(randn_at(i, seed));
}

// The same values rounded to bf16 (the problem's dtype is bf16).
extern "C" __global__ void fill_randn_bf16(__nv_bfloat16 *x, unsigned long long n,
                                           unsigned long long seed) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    x[i] = __float2bfloat16_rn(randn_at(i, seed));
}

extern "C" __global__ void fill_u16(unsigned short *x, unsigned long long n, unsigned short v) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    x[i] = v;
}

// Writes every line of a buffer at least twice the L2 size, evicting inputs and outputs.
extern "C" __global__ void flush_l2(unsigned int *buf, unsigned long long n, unsigned int v) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    buf[i] = v + (unsigned int)i;
}

// An order-independent checksum of n 16-bit words (each hashed with its index, summed modulo
// 2^64) added to *out: the inputs before and after a kernel ran, so one that writes Q, K or V
// is named. *out is zeroed by the caller.
extern "C" __global__ void checksum_u16(const unsigned short *x, unsigned long long n,
                                        unsigned long long *out) {
  unsigned long long s = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    s += splitmix64(((unsigned long long)x[i] << 48) ^ i);
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

// A timed launch's output against the verified output of the same inputs: counts, in bad[0],
// the elements still holding the poison written before the launch (it skipped them) and, in
// bad[1], those far from the verified value or not finite (it computed something else). The
// margin is wide: a kernel whose result varies with the order of its atomics stays inside it.
__device__ __forceinline__ void check_output_as(const unsigned short *o, const unsigned short *good,
                                                unsigned long long n, unsigned short poison,
                                                unsigned int *bad, int bf16) {
  unsigned int skipped = 0, wrong = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    if (o[i] == poison) { skipped++; continue; }
    float x = bt_bits_to_float(o[i], bf16), y = bt_bits_to_float(good[i], bf16);
    if (!isfinite(x) || fabsf(x - y) > 0.05f * fabsf(y) + 0.02f) wrong++;
  }
  for (int off = 16; off > 0; off >>= 1) {
    skipped += __shfl_down_sync(0xffffffffu, skipped, off);
    wrong += __shfl_down_sync(0xffffffffu, wrong, off);
  }
  if ((threadIdx.x & 31) == 0 && (skipped | wrong)) {
    atomicAdd(&bad[0], skipped);
    atomicAdd(&bad[1], wrong);
  }
}

extern "C" __global__ void check_output(const unsigned short *o, const unsigned short *good,
                                        unsigned long long n, unsigned short poison,
                                        unsigned int *bad) {
  check_output_as(o, good, n, poison, bad, 0);
}

extern "C" __global__ void check_output_bf16(const unsigned short *o, const unsigned short *good,
                                             unsigned long long n, unsigned short poison,
                                             unsigned int *bad) {
  check_output_as(o, good, n, poison, bad, 1);
}
