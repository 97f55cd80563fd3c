/* The fp32 GPU reference against the float64 CPU implementation on small shapes, ragged and
 * causal ones included, and every kind of the wider problem (GQA, MQA, decode, chunked prefill
 * with bottom-right causal, bf16): relative L2 error <= 1e-6. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bench/worker/gpu.h"
#include "common/util.h"
#include "gpu_common.h"
#include "kernels/ref_cpu.h"
#include "kernels/reference.h"

static uint64_t Test_rng = 0x9E3779B97F4A7C15ull;
static double Test_normal(void) {
  Test_rng ^= Test_rng << 13; Test_rng ^= Test_rng >> 7; Test_rng ^= Test_rng << 17;
  double u1 = ((Test_rng >> 11) + 1) * (1.0 / 9007199254740993.0);
  Test_rng ^= Test_rng << 13; Test_rng ^= Test_rng >> 7; Test_rng ^= Test_rng << 17;
  double u2 = (Test_rng >> 11) * (1.0 / 9007199254740992.0);
  return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

int main(void) {
  Gpu g;
  GpuTest_open(&g, "gpu_reference");
  char err[512];
  const char *shapes[] = {"1x1x1x64", "1x2x37x64", "2x2x128x128:causal", "1x1x300x64:causal",
                          "1x3x257x128", "1x1x64x256:causal",
                          "2x8/2x64x64", "1x4/1x33x128:causal", "2x8/2x1/300x128",
                          "1x4/4x3/200x64:causal", "1x6/2x40/301x64:causal:bf16",
                          "2x4x100x128:bf16", "1x2/1x16/256x256:causal:bf16", "1x2x5/70x32"};
  int failures = 0;
  Test_rng ^= (uint64_t)Util_nowMs();
  printf("seed %llu\n", (unsigned long long)Test_rng);
  for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
    Shape s;
    if (!Shape_parse(shapes[t], &s, err, sizeof err)) {
      printf("FAIL %s\n", err);
      failures++;
      continue;
    }
    size_t n = Shape_elems(&s), nkv = Shape_kvElems(&s);
    uint16_t *q = malloc(n * 2), *k = malloc(nkv * 2), *v = malloc(nkv * 2);
    for (size_t i = 0; i < n; i++) q[i] = RefCpu_floatToElem(s.dtype, (float)Test_normal());
    for (size_t i = 0; i < nkv; i++) {
      k[i] = RefCpu_floatToElem(s.dtype, (float)Test_normal());
      v[i] = RefCpu_floatToElem(s.dtype, (float)Test_normal());
    }
    double *want = malloc(n * sizeof(double));
    RefCpu_attention(&s, q, k, v, want);
    void *dq, *dk, *dv;
    float *dout;
    cudaMalloc(&dq, n * 2); cudaMalloc(&dk, nkv * 2); cudaMalloc(&dv, nkv * 2);
    cudaMalloc((void **)&dout, n * 4);
    cudaMemcpy(dq, q, n * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dk, k, nkv * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, v, nkv * 2, cudaMemcpyHostToDevice);
    cudaMemset(dout, 0xFF, n * 4);
    AttnParams p;
    memset(&p, 0, sizeof p);
    p.q = dq; p.k = dk; p.v = dv; p.o_f32 = dout;
    p.B = s.B; p.H = s.H; p.S = s.S; p.D = s.D; p.causal = s.causal;
    p.Hkv = Shape_hkv(&s); p.Skv = Shape_skv(&s); p.dtype = (int)s.dtype;
    p.scale = (float)(1.0 / sqrt((double)s.D));
    LaunchDims d;
    Reference_dims(&s, &d);
    float *got = malloc(n * 4);
    bool ok = Gpu_launch(&g, g.reference.kernels[0], &d, &p, err, sizeof err);
    cudaError_t e = cudaStreamSynchronize(g.stream);
    if (e == cudaSuccess) e = cudaMemcpy(got, dout, n * 4, cudaMemcpyDeviceToHost);
    double num = 0, den = 0;
    size_t bad = 0;
    for (size_t i = 0; ok && e == cudaSuccess && i < n; i++) {
      if (!isfinite(got[i])) bad++;
      num += (got[i] - want[i]) * (got[i] - want[i]);
      den += want[i] * want[i];
    }
    double rel = sqrt(num / den);
    bool pass = ok && e == cudaSuccess && bad == 0 && rel <= 1e-6;
    printf("%s %-28s rel L2 %.3e  non-finite %zu%s%s\n", pass ? "ok  " : "FAIL", shapes[t], rel, bad,
           ok ? "" : " launch: ", ok ? "" : err);
    failures += !pass;
    cudaFree(dq); cudaFree(dk); cudaFree(dv); cudaFree(dout);
    free(q); free(k); free(v); free(want); free(got);
  }
  Gpu_free(&g);
  printf("%s gpu_reference\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
