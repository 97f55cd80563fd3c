// CK(call): a CUDA runtime call the research programs cannot go on without; on failure one
// line naming the program's source, the call and CUDA's reason, and exit 1.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s: %s failed: %s\n", __FILE__, #x, cudaGetErrorString(e_));          \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)
