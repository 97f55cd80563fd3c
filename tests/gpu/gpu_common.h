/* Shared by the GPU tests: skip (exit 77, one line) when there is no CUDA device; fail (exit 1,
 * one line) when there is one and the engine cannot open it. */
#ifndef BENCHTOP_GPU_TEST_COMMON_H
#define BENCHTOP_GPU_TEST_COMMON_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/worker/gpu.h"

static inline void GpuTest_requireDevice(const char *test) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    printf("SKIP %s: no CUDA device (%s)\n", test, e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    exit(77);
  }
}

/* The engine's context on the device, as the worker opens it. */
static inline void GpuTest_open(Gpu *g, const char *test) {
  GpuTest_requireDevice(test);
  char err[512];
  if (!Gpu_init(g, err, sizeof err)) {
    printf("FAIL %s: %s\n", test, err);
    exit(1);
  }
}

#endif
