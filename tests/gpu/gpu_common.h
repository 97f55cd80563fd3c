/* Shared by the GPU tests: skip (exit 77, one line) when there is no CUDA device. */
#ifndef BENCHTOP_GPU_TEST_COMMON_H
#define BENCHTOP_GPU_TEST_COMMON_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

static inline void GpuTest_requireDevice(const char *test) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    printf("SKIP %s: no CUDA device (%s)\n", test, e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    exit(77);
  }
}

#endif
