/* The fp16 tensor peak that TFLOP/s is compared with: measured, not taken from a datasheet.
 * cuBLAS HGEMM 8192^3 (fp32 accumulation, as PyTorch's), median of 20 after warm-up, on fresh
 * random data. Cached per device name and driver so the measurement runs once per machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/cublas_api.h"
#include "bench/worker/gpu.h"
#include "bench/stats.h"
#include "common/util.h"

static double Peak_measure(Gpu *g) {
  const int n = 8192;
  const size_t elems = (size_t)n * n;
  void *a = NULL, *b = NULL, *c = NULL;
  double result = NAN;
  char why[256];
  const CublasApi *api = CublasApi_forGpu(g, why, sizeof why);
  if (!api) { /* to the worker log; the peak stays unknown (n/a), nothing else is lost */
    fprintf(stderr, "peak: %s: the fp16 peak is n/a on this run\n", why);
    return NAN;
  }
  cublasHandle_t h = g->cublas;
  if (cudaMalloc(&a, elems * 2) != cudaSuccess || cudaMalloc(&b, elems * 2) != cudaSuccess ||
      cudaMalloc(&c, elems * 2) != cudaSuccess)
    goto out;
  {
    /* Random operands through the engine's fill kernel (util kernel 0). */
    unsigned long long nn = elems, seed = 12345;
    void *pa[] = {&a, &nn, &seed};
    void *pb[] = {&b, &nn, &seed};
    const char *what = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    if (cudaLaunchKernel((const void *)g->util.kernels[0], (dim3){4096, 1, 1}, (dim3){256, 1, 1},
                         pa, 0, g->stream) != cudaSuccess)
      what = "the fill kernel";
    seed = 777;
    if (!what && cudaLaunchKernel((const void *)g->util.kernels[0], (dim3){4096, 1, 1},
                                  (dim3){256, 1, 1}, pb, 0, g->stream) != cudaSuccess)
      what = "the fill kernel";
    if (!what && (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess))
      what = "cudaEventCreate";
    if (what) { /* to the worker log; the peak stays unknown (n/a), nothing else is lost */
      fprintf(stderr, "peak: %s failed: the fp16 peak is n/a on this run\n", what);
      if (e0) cudaEventDestroy(e0);
      if (e1) cudaEventDestroy(e1);
      goto out;
    }
    float alpha = 1.0f / 64, beta = 0.0f;
    double ms[20];
    int got = 0;
    for (int i = 0; i < 25; i++) {
      if (cudaEventRecord(e0, g->stream) != cudaSuccess) break;
      if (api->gemm_ex(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, CUDA_R_16F, n, b,
                       CUDA_R_16F, n, &beta, c, CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
        break;
      float t = 0;
      if (cudaEventRecord(e1, g->stream) != cudaSuccess) break;
      if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&t, e0, e1) != cudaSuccess)
        break;
      if (i >= 5) ms[got++] = t;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (got == 20) {
      Timing t;
      Stats_compute(ms, got, &t);
      result = 2.0 * n * (double)n * n / (t.p50 * 1e-3) / 1e12;
    }
  }
out:
  if (a) cudaFree(a);
  if (b) cudaFree(b);
  if (c) cudaFree(c);
  (void)cudaGetLastError(); /* a failed call above must not fail the next entry's check */
  return result;
}

double Peak_fp16Tflops(Gpu *g) {
  if (!isnan(g->info.peak_tflops) && g->info.peak_tflops > 0) return g->info.peak_tflops;
  char dir[4096], path[4300];
  bool cached = Util_cacheDir(dir, sizeof dir);
  char key[160];
  snprintf(key, sizeof key, "%s|%d", g->info.name, g->info.driver_version);
  snprintf(path, sizeof path, "%s/peak-%016llx.txt", dir,
           (unsigned long long)Util_hash64(key, strlen(key), 0));
  char *text = cached ? Util_readFile(path, NULL, 4096) : NULL;
  double v = text ? strtod(text, NULL) : NAN;
  free(text);
  if (!(v > 0)) {
    v = Peak_measure(g);
    if (v > 0 && cached && Util_mkdirs(dir)) {
      char line[64], err[256];
      int n = snprintf(line, sizeof line, "%.3f\n", v);
      Util_writeFileAtomic(path, line, (size_t)n, err, sizeof err);
    }
  }
  g->info.peak_tflops = v;
  return v;
}
