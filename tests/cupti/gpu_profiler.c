/* GPU test (suite 'gpu'): the CUPTI range profiler on two tiny NVRTC-compiled kernels.
 *   bank_conflict: 32-way shared-memory bank conflicts on every load and store, no tensor core
 *   wmma_gemm:     a WMMA 16x16x16 half GEMM (tensor cores), no shared memory
 * Checks: conflicts > 0 only where expected, tensor pipe > 0 only for the GEMM, pass count,
 * a bogus name is n/a while the rest are valid, the simulated restricted-counters path gives
 * the fix line, a failing launch does not break later collections. Prints ms per collection
 * after the first (goal <= 100 ms; printed, not asserted). Exit 77 without a CUDA device. */
#include <cuda_runtime.h>
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "sessions/catalog.h"
#include "cupti/profiler.h"
#include "kernels/jit.h"

#define BK_THREADS 256
#define BK_BLOCKS 256
#define BK_ITERS 8
#define GM 512 /* GEMM M = N = K */

static const char kSource[] =
    "#include <mma.h>\n"
    "#include <cuda_fp16.h>\n"
    "#define BK_THREADS 256\n"
    "#define BK_ITERS 8\n"
    "#define GM 512\n"
    "// Row stride 32 floats: every lane of a warp hits the same bank, 32-way, on STS and LDS.\n"
    "extern \"C\" __global__ void __launch_bounds__(BK_THREADS) bank_conflict(const float *in, float *out) {\n"
    "  __shared__ float s[BK_THREADS * 32];\n"
    "  volatile float *vs = s;\n"
    "  const int t = threadIdx.x;\n"
    "  const float v = in[blockIdx.x * BK_THREADS + t];\n"
    "  for (int j = 0; j < 32; ++j) vs[t * 32 + j] = v + (float)j;\n"
    "  __syncthreads();\n"
    "  float acc = 0.0f;\n"
    "  for (int it = 0; it < BK_ITERS; ++it)\n"
    "    for (int j = 0; j < 32; ++j) acc += vs[((t + it) & (BK_THREADS - 1)) * 32 + j];\n"
    "  out[blockIdx.x * BK_THREADS + t] = acc;\n"
    "}\n"
    "// C (row-major) = A (row-major) * B (col-major), one 16x16 tile per warp.\n"
    "extern \"C\" __global__ void wmma_gemm(const half *A, const half *B, float *C) {\n"
    "  using namespace nvcuda;\n"
    "  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;\n"
    "  const int tm = warp / (GM / 16), tn = warp % (GM / 16);\n"
    "  if (tm >= GM / 16) return;\n"
    "  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;\n"
    "  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;\n"
    "  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;\n"
    "  wmma::fill_fragment(c, 0.0f);\n"
    "  for (int k = 0; k < GM; k += 16) {\n"
    "    wmma::load_matrix_sync(a, A + (size_t)tm * 16 * GM + k, GM);\n"
    "    wmma::load_matrix_sync(b, B + (size_t)tn * 16 * GM + k, GM);\n"
    "    wmma::mma_sync(c, a, b, c);\n"
    "  }\n"
    "  wmma::store_matrix_sync(C + (size_t)tm * 16 * GM + tn * 16, c, GM, wmma::mem_row_major);\n"
    "}\n";

static int failures;
#define CHECK(cond, ...)                                     \
  do {                                                       \
    if (!(cond)) {                                           \
      failures++;                                            \
      printf("FAIL line %d: %s: ", __LINE__, #cond);         \
      printf(__VA_ARGS__);                                   \
      printf("\n");                                          \
    } else {                                                 \
      printf("ok   %s\n", #cond);                            \
    }                                                        \
  } while (0)

#define CUDA_OR_DIE(call)                                                                     \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      printf("FATAL %s: %s\n", #call, cudaGetErrorString(e_));                               \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

typedef struct Launch {
  cudaKernel_t kernel;
  dim3 grid, block;
  void *args[3];
  int calls;
  bool fail; /* simulate a launch error */
} Launch;

static bool Launch_run(void *user) {
  Launch *l = user;
  l->calls++;
  if (l->fail) return false;
  cudaError_t e = cudaLaunchKernel((const void *)l->kernel, l->grid, l->block, l->args, 0, 0);
  if (e != cudaSuccess) printf("     launch: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess;
}

static const char *g_names[32];
static int g_n;

static int name_index(const char *name) {
  for (int i = 0; i < g_n; i++)
    if (strcmp(g_names[i], name) == 0) return i;
  return -1;
}

/* One collection, every metric printed. Returns the value array through out. */
static bool collect(Profiler *p, const char *what, Launch *l, Metric *out, int *passes) {
  char err[400] = "";
  l->calls = 0;
  double t0 = Util_nowMs();
  bool ok = Profiler_collect(p, g_names, g_n, Launch_run, l, out, passes, err, sizeof err);
  double ms = Util_nowMs() - t0;
  ProfilerTimes t;
  Profiler_lastTimes(p, &t);
  printf("---- %s: collect=%s passes=%d launch calls=%d wall %.1f ms (prepare %.1f, setup %.1f, "
         "passes %.1f, decode+eval %.1f)%s%s\n", what, ok ? "true" : "false", *passes, l->calls,
         ms, t.prepare_ms, t.setup_ms, t.passes_ms, t.decode_ms, err[0] ? " err: " : "", err);
  for (int i = 0; i < g_n; i++) {
    if (isnan(out[i].value))
      printf("     %-74s n/a: %s\n", out[i].name, out[i].reason);
    else
      printf("     %-74s %14.6g %s\n", out[i].name, out[i].value, out[i].unit);
  }
  return ok;
}

static double value(const Metric *m, const char *name) {
  int i = name_index(name);
  return i < 0 ? NAN : m[i].value;
}

/* A crash inside CUPTI or NVPW prints the stack (addresses resolve with addr2line on the
 * machine that built the test). */
static void GpuTest_onCrash(int sig) {
  void *frames[64];
  int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDOUT_FILENO);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* The tensor pipe's counters, read for both kernels. */
static const char *const tpct = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";
static const char *const tinst = "sm__inst_executed_pipe_tensor_op_hmma.sum";

/* The kernels' device buffers: the launches' arguments point into this. */
typedef struct Buffers {
  float *in, *out, *c;
  void *a, *b;
} Buffers;

static void Buffers_init(Buffers *d, Launch *bank, Launch *gemm) {
  const size_t nb = (size_t)BK_BLOCKS * BK_THREADS, ne = (size_t)GM * GM;
  CUDA_OR_DIE(cudaMalloc((void **)&d->in, nb * sizeof *d->in));
  CUDA_OR_DIE(cudaMalloc((void **)&d->out, nb * sizeof *d->out));
  CUDA_OR_DIE(cudaMalloc(&d->a, ne * 2));
  CUDA_OR_DIE(cudaMalloc(&d->b, ne * 2));
  CUDA_OR_DIE(cudaMalloc((void **)&d->c, ne * sizeof *d->c));
  CUDA_OR_DIE(cudaMemset(d->in, 0x3c, nb * sizeof *d->in));
  CUDA_OR_DIE(cudaMemset(d->a, 0x3c, ne * 2)); /* 0x3c3c: a half near 1.06 */
  CUDA_OR_DIE(cudaMemset(d->b, 0x3c, ne * 2));
  bank->grid = (dim3){BK_BLOCKS, 1, 1};
  bank->block = (dim3){BK_THREADS, 1, 1};
  bank->args[0] = &d->in;
  bank->args[1] = &d->out;
  gemm->grid = (dim3){(GM / 16) * (GM / 16) * 32 / 128, 1, 1};
  gemm->block = (dim3){128, 1, 1};
  gemm->args[0] = &d->a;
  gemm->args[1] = &d->b;
  gemm->args[2] = &d->c;
}

/* The first collection of each kernel: each says what it does (conflicts, the tensor pipe).
 * Returns bank_conflict's shared load conflicts. */
static double check_first(const Metric *mb, const Metric *mg) {
  const double ldb = value(mb, CATALOG_SMEM_LD_CONFLICTS), stb = value(mb, CATALOG_SMEM_ST_CONFLICTS);
  const double ldg = value(mg, CATALOG_SMEM_LD_CONFLICTS);
  CHECK(ldb > 0 && stb > 0, "bank_conflict has load and store conflicts (%g, %g)", ldb, stb);
  CHECK(ldg == 0, "wmma_gemm has no shared load conflicts (%g)", ldg);
  /* Not exactly 0: ptxas moves constants with HFMA2.MMA, which issues on the tensor pipe and is
   * counted there (ncu agrees, on an H200). Idle = a small fraction of the MMA kernel's. */
  CHECK(value(mb, tpct) < 1.0 && value(mb, tinst) < value(mg, tinst) / 10,
        "bank_conflict: tensor pipe near idle (%g %%, %g inst)", value(mb, tpct), value(mb, tinst));
  CHECK(value(mg, tpct) > 0 && value(mg, tinst) > 0, "wmma_gemm: tensor pipe busy (%g %%, %g inst)",
        value(mg, tpct), value(mg, tinst));
  const double warps = (double)BK_BLOCKS * BK_THREADS / 32.0;
  printf("info bank_conflict ld conflicts %.0f (expect ~%.0f for 31 extra wavefronts per LDS), "
         "st %.0f (expect ~%.0f), ld ways %.2f, st ways %.2f\n", ldb, warps * BK_ITERS * 32 * 31,
         stb, warps * 32 * 31, Catalog_sharedWays(ldb, value(mb, CATALOG_SMEM_LD_WAVEFRONTS)),
         Catalog_sharedWays(stb, value(mb, CATALOG_SMEM_ST_WAVEFRONTS)));
  printf("info wmma_gemm hmma inst %.0f (expect ~%.0f at 2 HMMA.16816 per wmma::mma_sync)\n",
         value(mg, tinst), (double)(GM / 16) * (GM / 16) * (GM / 16) * 2);
  return ldb;
}

/* Repeated collection after the first, with the profiler enabled and disabled each time and
 * kept enabled; and whether an enabled profiler slows plain launches. */
static void time_repeated(Profiler *p, Launch *gemm, const Metric *mg) {
  Metric tmp[32];
  int pt = 0;
  for (int mode = 0; mode < 2; mode++) {
    if (mode == 1) setenv(PROFILER_KEEP_ENABLED_ENV, "1", 1);
    double sum = 0, lo = 1e30, hi = 0;
    const int reps = 10;
    bool all = true;
    for (int r = 0; r < reps; r++) {
      char e2[400];
      double s0 = Util_nowMs();
      all &= Profiler_collect(p, g_names, g_n, Launch_run, gemm, tmp, &pt, e2, sizeof e2);
      double ms = Util_nowMs() - s0;
      sum += ms;
      lo = ms < lo ? ms : lo;
      hi = ms > hi ? ms : hi;
      if (r == reps - 1) CHECK(fabs(value(tmp, tinst) - value(mg, tinst)) <= 0.01 * value(mg, tinst),
                               "repeatable tensor inst count (%g vs %g)", value(tmp, tinst), value(mg, tinst));
    }
    ProfilerTimes t;
    Profiler_lastTimes(p, &t);
    printf("TIMING %s: %.1f ms per collection (min %.1f, max %.1f) over %d, %d passes; last: "
           "setup %.1f, passes %.1f, decode+eval %.1f -> goal <= 100 ms %s\n",
           mode ? "kept enabled" : "enable/disable each time", sum / reps, lo, hi, reps, pt,
           t.setup_ms, t.passes_ms, t.decode_ms, sum / reps <= 100 ? "MET" : "MISSED");
    CHECK(all, "repeated collections succeed (%s)", mode ? "kept enabled" : "default");
    if (mode == 1) { /* does an enabled profiler slow plain launches? */
      cudaEvent_t e0, e1;
      float ms_on = 0, ms_off = 0;
      CUDA_OR_DIE(cudaEventCreate(&e0));
      CUDA_OR_DIE(cudaEventCreate(&e1));
      for (int k = 0; k < 2; k++) {
        if (k == 1) { /* a collection without the switch disables the profiler */
          unsetenv(PROFILER_KEEP_ENABLED_ENV);
          char e2[400];
          Profiler_collect(p, g_names, g_n, Launch_run, gemm, tmp, &pt, e2, sizeof e2);
        }
        CUDA_OR_DIE(cudaEventRecord(e0, 0));
        for (int r = 0; r < 20; r++) Launch_run(gemm);
        CUDA_OR_DIE(cudaEventRecord(e1, 0));
        CUDA_OR_DIE(cudaEventSynchronize(e1));
        CUDA_OR_DIE(cudaEventElapsedTime(k ? &ms_off : &ms_on, e0, e1));
      }
      printf("TIMING plain wmma_gemm launch: %.1f us with the profiler enabled, %.1f us disabled\n",
             ms_on * 1e3 / 20, ms_off * 1e3 / 20);
    }
  }

}

/* What fails: a launch mid-collection, restricted counters, unknown names, no names. */
static void check_failures(Profiler *p, Launch *bank, Launch *gemm, double ldb) {
  /* A launch that fails mid-collection costs that collection only. */
  Metric tmp[32];
  int pt = 0;
  gemm->fail = true;
  bool okf = collect(p, "failing launch", gemm, tmp, &pt);
  gemm->fail = false;
  CHECK(!okf && isnan(tmp[0].value) && strstr(tmp[0].reason, "launch failed"),
        "failed launch reported: '%s'", tmp[0].reason);
  CHECK(collect(p, "after the failure", bank, tmp, &pt) &&
            fabs(value(tmp, CATALOG_SMEM_LD_CONFLICTS) - ldb) <= 0.01 * ldb,
        "collection works again after a failed launch");

  /* Restricted counters, simulated. */
  setenv(PROFILER_SIMULATE_DENIED_ENV, "1", 1);
  bool okd = collect(p, "simulated restricted counters", bank, tmp, &pt);
  unsetenv(PROFILER_SIMULATE_DENIED_ENV);
  bool all_fix = true;
  for (int i = 0; i < g_n; i++)
    all_fix &= isnan(tmp[i].value) && strcmp(tmp[i].reason, PROFILER_DENIED_FIX) == 0;
  CHECK(!okd && all_fix && pt == 0 && bank->calls == 0, "every metric n/a with the fix line, no launch");

  /* A set with only bad names and the empty set. */
  const char *only_bad[] = {"nope__nothing.sum", "not a name"};
  char e3[400];
  CHECK(Profiler_collect(p, only_bad, 2, Launch_run, bank, tmp, &pt, e3, sizeof e3) && pt == 0 &&
            isnan(tmp[0].value) && isnan(tmp[1].value) && tmp[0].reason[0] && tmp[1].reason[0],
        "only bad names: each n/a (%s | %s), nothing launched", tmp[0].reason, tmp[1].reason);
  CHECK(Profiler_collect(p, NULL, 0, Launch_run, bank, tmp, &pt, e3, sizeof e3) && pt == 0,
        "no metrics: nothing to do");
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  signal(SIGSEGV, GpuTest_onCrash);
  signal(SIGABRT, GpuTest_onCrash);
  char err[1024];
  if (Profiler_deviceCount(err, sizeof err) <= 0) {
    printf("SKIP cupti_gpu_profiler: %s\n", err);
    return 77;
  }
  struct cudaDeviceProp prop;
  CUDA_OR_DIE(cudaSetDevice(0));
  CUDA_OR_DIE(cudaGetDeviceProperties(&prop, 0));
  int cc = prop.major * 10 + prop.minor, drv = 0, rt = 0;
  CUDA_OR_DIE(cudaDriverGetVersion(&drv));
  CUDA_OR_DIE(cudaRuntimeGetVersion(&rt));
  printf("device 0: %s sm_%d, %d SMs, driver %d, runtime %d\n", prop.name, cc,
         prop.multiProcessorCount, drv, rt);

  char arch[16];
  Jit_archFor(cc, false, arch, sizeof arch);
  JitOutput jo;
  double t0 = Util_nowMs();
  if (!Jit_compileSource("cupti_test_kernels.cu", kSource, NULL, 0, "bank_conflict", arch, false,
                         &jo, err, sizeof err)) {
    printf("FATAL NVRTC: %s\n%s\n", err, jo.log ? jo.log : "");
    return 1;
  }
  printf("NVRTC %s: %zu-byte cubin in %.0f ms\n", arch, jo.cubin_size, Util_nowMs() - t0);
  cudaLibrary_t lib;
  CUDA_OR_DIE(cudaLibraryLoadData(&lib, jo.cubin, NULL, NULL, 0, NULL, NULL, 0));
  Launch bank = {0}, gemm = {0};
  CUDA_OR_DIE(cudaLibraryGetKernel(&bank.kernel, lib, "bank_conflict"));
  CUDA_OR_DIE(cudaLibraryGetKernel(&gemm.kernel, lib, "wmma_gemm"));

  Buffers bufs;
  Buffers_init(&bufs, &bank, &gemm);
  CHECK(Launch_run(&bank) && Launch_run(&gemm) && cudaDeviceSynchronize() == cudaSuccess,
        "unprofiled warm-up launches");

  t0 = Util_nowMs();
  Profiler *p = Profiler_new(0, err, sizeof err);
  if (!p) {
    printf("FATAL Profiler_new: %s\n", err);
    return 1;
  }
  printf("Profiler_new: chip %s in %.1f ms\n", Profiler_chip(p), Util_nowMs() - t0);

  for (int i = 0; i < Catalog_headlineCount; i++) g_names[g_n++] = Catalog_headline[i].name;
  g_names[g_n++] = "sm__bogus_metric_name.sum";
  g_names[g_n++] = "sm__cycles_elapsed.avg";
  Metric mb[32], mg[32];
  int pb = 0, pg = 0;

  bool okb = collect(p, "bank_conflict (first collection: includes setup)", &bank, mb, &pb);
  bool okg = collect(p, "wmma_gemm", &gemm, mg, &pg);
  CHECK(okb && okg, "both collections succeed");
  CHECK(pb >= 1 && pb == pg && bank.calls == pb, "passes reported (%d, %d), one launch per pass "
        "(%d calls)", pb, pg, bank.calls);
  for (int i = 0; i < Catalog_headlineCount; i++)
    CHECK(!isnan(mb[i].value) && !isnan(mg[i].value) && mb[i].unit[0], "%s valid: %s / %s",
          g_names[i], mb[i].reason, mg[i].reason);
  int bogus = name_index("sm__bogus_metric_name.sum");
  CHECK(isnan(mb[bogus].value) && strstr(mb[bogus].reason, "unknown metric"), "bogus n/a: '%s'",
        mb[bogus].reason);
  CHECK(!isnan(value(mb, "sm__cycles_elapsed.avg")), "a non-headline metric is collected too");

  const double ldb = check_first(mb, mg);
  time_repeated(p, &gemm, mg);
  check_failures(p, &bank, &gemm, ldb);

  Profiler_free(p);
  Jit_free(&jo);
  printf("SUMMARY cupti_gpu_profiler: %s (%d failure(s)), chip passes %d\n",
         failures ? "FAILED" : "passed", failures, pb);
  return failures ? 1 : 0;
}
