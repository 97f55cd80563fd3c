/* The unfused baseline, as PyTorch's math backend does it: cuBLAS strided-batched GEMM for
 * S = scale * Q K^T (fp16 in, fp32 out), a row softmax kernel writing fp16 P, GEMM O = P V.
 * cuBLAS is column-major: a row-major [S, D] matrix is a column-major [D, S] one, so
 * row-major S = Q K^T is computed as column-major S^T = K Q^T, and O^T = V^T P^T. */
#include <cublas_v2.h>
#include <stdio.h>

#include "bench/gpu.h"

static bool Cublas_check(cublasStatus_t st, const char *what, char *err, size_t errsize) {
  if (st == CUBLAS_STATUS_SUCCESS) return true;
  snprintf(err, errsize, "%s: cuBLAS status %d (%s)", what, (int)st, cublasGetStatusString(st));
  return false;
}

bool Gpu_runCublas(Gpu *g, GpuModule *m, const Variant *v, const KnobValues *kv,
                   const AttnParams *p, char *err, size_t errsize) {
  if (!g->cublas) {
    cublasHandle_t h;
    if (!Cublas_check(cublasCreate(&h), "creating the cuBLAS handle", err, errsize)) return false;
    g->cublas = h;
  }
  cublasHandle_t h = g->cublas;
  if (!Cublas_check(cublasSetStream(h, g->stream), "setting the cuBLAS stream", err, errsize))
    return false;
  const int S = p->S, D = p->D, batch = p->B * p->H;
  const long long sd = (long long)S * D, ss = (long long)S * S;
  float *scores = p->workspace;
  void *probs = (char *)p->workspace + (size_t)batch * (size_t)ss * sizeof(float);
  float alpha = p->scale, beta = 0.0f, one = 1.0f;
  if (!Cublas_check(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, S, S, D, &alpha,
                                              p->k, CUDA_R_16F, D, sd, p->q, CUDA_R_16F, D, sd,
                                              &beta, scores, CUDA_R_32F, S, ss, batch,
                                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                    "cuBLAS GEMM Q K^T", err, errsize))
    return false;
  Shape s = {p->B, p->H, p->S, p->D, p->causal != 0};
  LaunchDims d;
  v->steps[0].dims(&s, kv, &g->props, &d);
  if (!Gpu_launch(g, m->kernels[0], &d, p, err, errsize)) return false;
  return Cublas_check(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, D, S, S, &one,
                                                 p->v, CUDA_R_16F, D, sd, probs, CUDA_R_16F, S, ss,
                                                 &beta, p->o, CUDA_R_16F, D, sd, batch,
                                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                      "cuBLAS GEMM P V", err, errsize);
}
