/* GPU smoke test: create the context the way the worker does (no libcuda link), compile the
 * engine's helper kernels with NVRTC for this GPU, launch one, and read the result back. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bench/worker/gpu.h"
#include "gpu_common.h"
#include "kernels/ref_cpu.h"

int main(void) {
  Gpu g;
  GpuTest_open(&g, "gpu_smoke");
  printf("device: %s sm_%d, %d SMs, L2 %lld MiB, driver %d, runtime %d, NVRTC %d.%d, CUPTI %d\n",
         g.info.name, g.cc, g.info.sm_count, (long long)g.info.l2_bytes >> 20, g.info.driver_version,
         g.info.runtime_version, g.info.nvrtc_major, g.info.nvrtc_minor, g.info.cupti_version);
  const size_t n = 1 << 20;
  void *d = NULL;
  if (cudaMalloc(&d, n * 2) != cudaSuccess) {
    printf("FAIL gpu_smoke: cudaMalloc\n");
    return 1;
  }
  unsigned long long nn = n, seed = 42;
  void *args[] = {&d, &nn, &seed};
  cudaError_t e = cudaLaunchKernel((const void *)g.util.kernels[0], (dim3){256, 1, 1}, (dim3){256, 1, 1},
                                   args, 0, g.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(g.stream);
  uint16_t *h = malloc(n * 2);
  if (e == cudaSuccess) e = cudaMemcpy(h, d, n * 2, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    printf("FAIL gpu_smoke: launching the NVRTC-compiled fill kernel: %s\n", cudaGetErrorString(e));
    return 1;
  }
  double sum = 0, sq = 0;
  size_t zeros = 0;
  for (size_t i = 0; i < n; i++) {
    double x = RefCpu_halfToDouble(h[i]);
    sum += x;
    sq += x * x;
    zeros += x == 0.0;
  }
  double mean = sum / n, var = sq / n - mean * mean;
  printf("randn fill: mean %.4f var %.4f zeros %zu\n", mean, var, zeros);
  free(h);
  cudaFree(d);
  Gpu_free(&g);
  if (fabs(mean) > 0.01 || fabs(var - 1.0) > 0.02 || zeros) {
    printf("FAIL gpu_smoke: the fill is not a zero-free standard normal\n");
    return 1;
  }
  printf("PASS gpu_smoke\n");
  return 0;
}
