/* cuBLAS, loaded with dlopen on first use: linking it made every benchtop command (show, diff,
 * the completions) pay cuBLASLt's start-up, about 0.7 s, for two GEMM calls only the cublas
 * rung and the peak measurement make. */
#pragma once
#include <cublas_v2.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench/worker/gpu.h"

typedef struct {
  cublasStatus_t (*create)(cublasHandle_t *);
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void *, const void *, cudaDataType, int, const void *, cudaDataType,
                            int, const void *, void *, cudaDataType, int, cublasComputeType_t,
                            cublasGemmAlgo_t);
  cublasStatus_t (*gemm_strided_batched_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                            int, int, const void *, const void *, cudaDataType, int,
                                            long long, const void *, cudaDataType, int, long long,
                                            const void *, void *, cudaDataType, int, long long, int,
                                            cublasComputeType_t, cublasGemmAlgo_t);
  const char *(*status_string)(cublasStatus_t);
} CublasApi;

/* The loaded API, or NULL with one line in why saying what failed and what to do. Loaded once
 * per process; a failure is remembered. */
const CublasApi *CublasApi_load(char *why, size_t whysize);

/* The loaded API with g's handle (g->cublas, created on first use) set on g's stream: what the
 * cublas rung and the peak measurement call through. NULL with one line in err. */
const CublasApi *CublasApi_forGpu(Gpu *g, char *err, size_t errsize);

/* true for success; else one line "WHAT: cuBLAS status N (NAME)" in err. */
bool CublasApi_check(const CublasApi *a, cublasStatus_t st, const char *what, char *err, size_t errsize);
