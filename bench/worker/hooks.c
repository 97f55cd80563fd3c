/* The named hooks a declaration may list among its steps (`hook NAME`): what cannot be data.
 * cublas_qk and cublas_pv are the unfused baseline's GEMMs, as PyTorch's math backend does
 * it: cuBLAS strided-batched GEMM for S = scale * Q K^T (fp16 in, fp32 out) into the
 * workspace, then (after the declaration's softmax kernel wrote fp16 P beside it) O = P V.
 * cuBLAS is column-major: a row-major [S, D] matrix is a column-major [D, S] one, so
 * row-major S = Q K^T is computed as column-major S^T = K Q^T, and O^T = V^T P^T. */
#include <stdio.h>

#include "bench/worker/cublas_api.h"
#include "bench/worker/gpu.h"

bool Gpu_runHook(Gpu *g, RegistryHook hook, const AttnParams *p, char *err, size_t errsize) {
  if (hook != HOOK_CUBLAS_QK && hook != HOOK_CUBLAS_PV) {
    snprintf(err, errsize, "unknown hook %d", (int)hook);
    return false;
  }
  const CublasApi *a = CublasApi_forGpu(g, err, errsize);
  if (!a) return false;
  cublasHandle_t h = g->cublas;
  const int S = p->S, D = p->D, batch = p->B * p->H;
  const long long sd = (long long)S * D, ss = (long long)S * S;
  float *scores = p->workspace;
  void *probs = (char *)p->workspace + (size_t)batch * (size_t)ss * sizeof(float);
  float alpha = p->scale, beta = 0.0f, one = 1.0f;
  if (hook == HOOK_CUBLAS_QK)
    return CublasApi_check(a, a->gemm_strided_batched_ex(h, CUBLAS_OP_T, CUBLAS_OP_N, S, S, D, &alpha,
                                                         p->k, CUDA_R_16F, D, sd, p->q, CUDA_R_16F, D,
                                                         sd, &beta, scores, CUDA_R_32F, S, ss, batch,
                                                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                           "cuBLAS GEMM Q K^T", err, errsize);
  return CublasApi_check(a, a->gemm_strided_batched_ex(h, CUBLAS_OP_N, CUBLAS_OP_N, D, S, S, &one,
                                                       p->v, CUDA_R_16F, D, sd, probs, CUDA_R_16F, S, ss,
                                                       &beta, p->o, CUDA_R_16F, D, sd, batch,
                                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                         "cuBLAS GEMM P V", err, errsize);
}
