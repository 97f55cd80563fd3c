/* The device ceilings the floors are computed from (sessions/floors.h), measured here once per
 * device and driver and cached, never taken from a spec sheet:
 *   bandwidth  a device-to-device copy of 2 x 512 MiB (or a quarter of free memory), median of
 *              20 after 3 warm-up copies, read + write bytes counted, as a PyTorch copy is;
 *   launch     an empty kernel (the fill kernel asked for 0 elements, 1 block of 32 threads),
 *              median of 200 by kernel timestamps, the clock records are timed by.
 * The fp16 tensor rate is bench/worker/peak.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/gpu.h"
#include "bench/stats.h"
#include "common/util.h"
#include "cupti/kernel_clock.h"

#define CEIL_COPY_BYTES (512u << 20)
#define CEIL_LAUNCHES 200

static double Ceilings_median(double *v, int n) {
  Timing t;
  Stats_compute(v, n, &t);
  return t.p50;
}

static double Ceilings_measureBandwidth(Gpu *g) {
  size_t free_b = 0, total_b = 0, bytes = CEIL_COPY_BYTES;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return NAN;
  if (bytes > free_b / 4) bytes = free_b / 4 & ~(size_t)255;
  if (bytes < (1u << 20)) return NAN;
  void *src = NULL, *dst = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  double result = NAN, ms[20];
  int got = 0;
  if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess ||
      cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess ||
      cudaMemsetAsync(src, 1, bytes, g->stream) != cudaSuccess)
    goto out;
  for (int i = 0; i < 23; i++) {
    float t = 0;
    if (cudaEventRecord(e0, g->stream) != cudaSuccess ||
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g->stream) != cudaSuccess ||
        cudaEventRecord(e1, g->stream) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess ||
        cudaEventElapsedTime(&t, e0, e1) != cudaSuccess)
      goto out;
    if (i >= 3) ms[got++] = t;
  }
  double med = Ceilings_median(ms, got);
  if (med > 0) result = 2.0 * (double)bytes / (med * 1e-3) / 1e9;
out:
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (src) cudaFree(src);
  if (dst) cudaFree(dst);
  cudaGetLastError(); /* a failed measurement leaves no error behind for the records */
  return result;
}

static double Ceilings_measureLaunch(Gpu *g) {
  char err[200];
  if (!g->buf.o || !KernelClock_begin(err, sizeof err)) return NAN;
  void *ptr = g->buf.o;
  unsigned long long n = 0;
  unsigned short v = 0;
  void *args[] = {&ptr, &n, &v};
  int launched = 0;
  for (; launched < CEIL_LAUNCHES; launched++) {
    KernelClock_mark((uint64_t)launched + 1);
    cudaError_t e = cudaLaunchKernel((const void *)g->util.kernels[1], (dim3){1, 1, 1},
                                     (dim3){32, 1, 1}, args, 0, g->stream);
    KernelClock_unmark();
    if (e != cudaSuccess) break;
  }
  bool synced = cudaStreamSynchronize(g->stream) == cudaSuccess;
  double *us = Util_xmalloc(sizeof(double) * (size_t)(launched > 0 ? launched : 1));
  bool ok = KernelClock_end(launched, us, err, sizeof err) && synced && launched > 0;
  double result = ok ? Ceilings_median(us, launched) : NAN;
  free(us);
  cudaGetLastError();
  return result;
}

/* A ceiling from the cache file of this device and driver, else measured and cached. */
static double Ceilings_cached(Gpu *g, const char *what, double (*measure)(Gpu *)) {
  char dir[4096], path[4300], key[200];
  Util_cacheDir(dir, sizeof dir);
  snprintf(key, sizeof key, "%s|%d|%s", g->info.name, g->info.driver_version, what);
  snprintf(path, sizeof path, "%s/ceiling-%016llx.txt", dir,
           (unsigned long long)Util_hash64(key, strlen(key), 0));
  char *text = Util_readFile(path, NULL, 4096);
  double v = text ? strtod(text, NULL) : NAN;
  free(text);
  if (v > 0 && isfinite(v)) return v;
  v = measure(g);
  if (v > 0 && Util_mkdirs(dir)) {
    char line[64], err[256];
    int n = snprintf(line, sizeof line, "%.6g\n", v);
    Util_writeFileAtomic(path, line, (size_t)n, err, sizeof err);
  }
  return v;
}

/* One try per worker (one device): a measurement that failed is not repeated every record. */
static bool Ceilings_triedBandwidth, Ceilings_triedLaunch;

double Ceilings_bandwidthGBs(Gpu *g) {
  if (!(g->info.peak_gbs > 0) && !Ceilings_triedBandwidth) {
    Ceilings_triedBandwidth = true;
    g->info.peak_gbs = Ceilings_cached(g, "copy-bandwidth", Ceilings_measureBandwidth);
  }
  return g->info.peak_gbs;
}

double Ceilings_launchUs(Gpu *g) {
  if (!(g->info.launch_us > 0) && !Ceilings_triedLaunch) {
    Ceilings_triedLaunch = true;
    g->info.launch_us = Ceilings_cached(g, "empty-kernel", Ceilings_measureLaunch);
  }
  return g->info.launch_us;
}
