// exp2 throughput per SM on the GPU at hand (the softmax's bound at the small shapes): ex2.approx.f32 against
// ex2.approx.f16x2 (two exponentials per lane per instruction), one block of 4 warps per SM,
// 8 independent chains per thread. Prints exponentials per clock per SM.
//   nvcc -O2 -arch=sm_90 research/ex2_rate.cu -o ex2_rate && ./ex2_rate
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "ex2_rate: %s failed: %s\n", #x, cudaGetErrorString(e_));              \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

#define ITERS 4096

__global__ void rate_f32(float *out, long long *clk, float seed) {
  float v[8];
  for (int i = 0; i < 8; i++) v[i] = -0.001f * (threadIdx.x + i) * seed;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < ITERS; it++)
#pragma unroll
    for (int i = 0; i < 8; i++) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(v[i]));
  __syncthreads();
  long long t1 = clock64();
  float s = 0.f;
  for (int i = 0; i < 8; i++) s += v[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) clk[blockIdx.x] = t1 - t0;
}

__global__ void rate_f16x2(float *out, long long *clk, float seed) {
  unsigned v[8];
  for (int i = 0; i < 8; i++) {
    __half2 h = __floats2half2_rn(-0.001f * (threadIdx.x + i) * seed, -0.002f * seed);
    v[i] = *reinterpret_cast<unsigned *>(&h);
  }
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < ITERS; it++)
#pragma unroll
    for (int i = 0; i < 8; i++) asm volatile("ex2.approx.f16x2 %0, %0;" : "+r"(v[i]));
  __syncthreads();
  long long t1 = clock64();
  float s = 0.f;
  for (int i = 0; i < 8; i++) s += __low2float(*reinterpret_cast<__half2 *>(&v[i]));
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) clk[blockIdx.x] = t1 - t0;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *out;
  long long *clk, h[1024];
  CK(cudaMalloc(&out, sms * 128 * sizeof(float)));
  CK(cudaMalloc(&clk, sms * sizeof(long long)));
  for (int k = 0; k < 2; k++) {
    for (int rep = 0; rep < 3; rep++) {
      if (k == 0) rate_f32<<<sms, 128>>>(out, clk, 1.f);
      else rate_f16x2<<<sms, 128>>>(out, clk, 1.f);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
    }
    CK(cudaMemcpy(h, clk, sms * sizeof(long long), cudaMemcpyDeviceToHost));
    double cyc = (double)h[0];
    double exps = 128.0 * ITERS * 8 * (k == 0 ? 1 : 2);
    printf("%s: %.0f cycles, %.2f exponentials per clock per SM\n", k == 0 ? "ex2.approx.ftz.f32" : "ex2.approx.f16x2",
           cyc, exps / cyc);
  }
  return 0;
}
