// exp2 throughput per SM on the GPU at hand (the softmax's bound at the small shapes): ex2.approx.f32 against
// ex2.approx.f16x2 (two exponentials per lane per instruction), one block of 4 warps per SM,
// 8 independent chains per thread. Prints exponentials per clock per SM.
//   nvcc -O2 -arch=sm_90 research/ex2_rate.cu -o ex2_rate && ./ex2_rate
#include <cuda_fp16.h>

#include "cuda_check.cuh"

#define ITERS 4096

// The two instructions measured, each with the lane type it works on: a chain starts from
// x (and y, the f16x2's second half), steps by one instruction and ends as a float to sum.
struct Ex2F32 {
  typedef float Lane;
  static constexpr int per_lane = 1;
  static constexpr const char *name = "ex2.approx.ftz.f32";
  __device__ static Lane start(float x, float) { return x; }
  __device__ static void step(Lane &v) { asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(v)); }
  __device__ static float value(Lane v) { return v; }
};

struct Ex2F16x2 {
  typedef unsigned Lane;
  static constexpr int per_lane = 2;
  static constexpr const char *name = "ex2.approx.f16x2";
  __device__ static Lane start(float x, float y) {
    __half2 h = __floats2half2_rn(x, y);
    return *reinterpret_cast<unsigned *>(&h);
  }
  __device__ static void step(Lane &v) { asm volatile("ex2.approx.f16x2 %0, %0;" : "+r"(v)); }
  __device__ static float value(Lane v) { return __low2float(*reinterpret_cast<__half2 *>(&v)); }
};

template <class Ex2>
__global__ void rate(float *out, long long *clk, float seed) {
  typename Ex2::Lane v[8];
  for (int i = 0; i < 8; i++) v[i] = Ex2::start(-0.001f * (threadIdx.x + i) * seed, -0.002f * seed);
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < ITERS; it++)
#pragma unroll
    for (int i = 0; i < 8; i++) Ex2::step(v[i]);
  __syncthreads();
  long long t1 = clock64();
  float s = 0.f;
  for (int i = 0; i < 8; i++) s += Ex2::value(v[i]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) clk[blockIdx.x] = t1 - t0;
}

// Three launches (the last one counts), then block 0's cycles.
template <class Ex2>
static void report(int sms, float *out, long long *clk) {
  for (int rep = 0; rep < 3; rep++) {
    rate<Ex2><<<sms, 128>>>(out, clk, 1.f);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }
  long long h[1024];
  CK(cudaMemcpy(h, clk, sms * sizeof(long long), cudaMemcpyDeviceToHost));
  double cyc = (double)h[0];
  double exps = 128.0 * ITERS * 8 * Ex2::per_lane;
  printf("%s: %.0f cycles, %.2f exponentials per clock per SM\n", Ex2::name, cyc, exps / cyc);
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *out;
  long long *clk;
  CK(cudaMalloc(&out, sms * 128 * sizeof(float)));
  CK(cudaMalloc(&clk, sms * sizeof(long long)));
  report<Ex2F32>(sms, out, clk);
  report<Ex2F16x2>(sms, out, clk);
  return 0;
}
