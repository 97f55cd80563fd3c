/* The worker's GPU: context, loaded modules (cached per variant/knobs/D), device buffers, and
 * launching a variant's steps. Only the worker process includes this. */
#ifndef BENCHTOP_GPU_H
#define BENCHTOP_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime.h>

#include "bench/plan.h"
#include "kernels/attn_params.h"
#include "sessions/record.h"

/* A module's entry points: a variant's steps, or the engine's helpers (engine_util.cu: 5). */
#define GPU_MODULE_KERNELS (VARIANT_MAX_STEPS > 7 ? VARIANT_MAX_STEPS : 7) /* the engine util: 7 */

typedef struct GpuModule {
  char key[256];
  cudaLibrary_t lib;
  cudaKernel_t kernels[GPU_MODULE_KERNELS];
  BuildInfo build;
} GpuModule;

typedef struct GpuBuffers {
  void *q, *k, *v, *o;   /* fp16 */
  float *ref;            /* fp32 reference output */
  void *workspace;
  void *q8, *k8, *v8;
  float *scales;         /* 3 * B*H */
  float *partial_o, *partial_lse;
  void *flush;           /* >= 2x L2, only with --cold-l2 */
  size_t elems, kv_elems, workspace_bytes, partial_o_bytes, partial_lse_bytes, flush_bytes, nscales;
  unsigned long long *sums; /* the input checksums' device slots (bench/worker/measure_guard.c) */
  Shape shape;           /* inputs currently filled for this shape */
  uint64_t seed;
} GpuBuffers;

typedef struct Gpu {
  int device, cc;
  int ndevices; /* CUDA devices this process sees (said in hello: --devices all) */
  DeviceProps props;      /* what launch geometry and the heuristics read (kernels/device_props.h) */
  int max_threads_per_sm; /* for theoretical occupancy, read once at start */
  char arch[16];
  DeviceInfo info;
  cudaStream_t stream;
  GpuModule util, reference;
  GpuModule *modules;
  int nmodules;
  /* The launch plan of the last (variant, knobs, shape), so the timed loop never re-evaluates
   * the declaration. */
  LaunchPlan plan;
  const Variant *plan_variant;
  KnobValues plan_knobs;
  Shape plan_shape;
  GpuBuffers buf;
  void *cublas;          /* cublasHandle_t, created on first use */
  void *cudnn;           /* CudnnState * (bench/worker/cudnn.c), created on first use */
  void *profiler;        /* Profiler *, created on first use */
  char profiler_error[320];
  bool nvml_ok;
} Gpu;

/* Creates the context and loads the engine's helper kernels. False with one line in err when
 * there is no usable CUDA device (the worker reports "no GPU"). */
bool Gpu_init(Gpu *g, char *err, size_t errsize);
void Gpu_free(Gpu *g);

/* Compiles (through the JIT cache) and loads a variant for head dim D and dtype; cached per
 * key (variant, knobs, D, dtype, arch). */
GpuModule *Gpu_module(Gpu *g, const Variant *v, const KnobValues *kv, int D, ShapeDtype dtype,
                      char *err, size_t errsize);
/* Launches kernel k of a module with params; checks the launch. */
bool Gpu_launch(Gpu *g, cudaKernel_t k, const LaunchDims *d, const AttnParams *p, char *err,
                size_t errsize);
/* The declaration's launch of v at knobs kv and shape s on this device (cached for the last
 * one asked for). False with one line naming the declaration's file and line. */
bool Gpu_plan(Gpu *g, const Variant *v, const KnobValues *kv, const Shape *s,
              const LaunchPlan **out, char *err, size_t errsize);
/* The whole variant once (its steps in order: kernels and hooks) on g->stream. */
bool Gpu_runVariant(Gpu *g, const Variant *v, const KnobValues *kv, GpuModule *m,
                    const AttnParams *p, char *err, size_t errsize);
/* A named hook of a declaration (bench/worker/hooks.c). */
bool Gpu_runHook(Gpu *g, RegistryHook h, const AttnParams *p, char *err, size_t errsize);

/* A CUDA error that leaves the context unusable: the worker must report and exit. */
bool Gpu_isSticky(cudaError_t e);
/* "what: cudaErrorName (description)" */
void Gpu_errorText(cudaError_t e, const char *what, char *err, size_t errsize);

/* True when e is cudaSuccess; else one line in err ("what: name (description)"). Callers
 * return or release what they own themselves: no hidden return. */
bool Gpu_ok(cudaError_t e, const char *what, char *err, size_t errsize);

/* Per-entry pipeline (bench/worker/measure.c): refuse or compile, verify against the reference, time,
 * collect metrics. Returns false when the context died (sticky error): rec says why. */
bool Measure_entry(Gpu *g, const PlanEntry *e, Record *rec, volatile int *cancel,
                   void (*progress)(const char *phase, double launch_ms, void *user), void *user);

/* Writes a buffer twice the L2 size on g->stream (bench/worker/measure.c). */
bool Measure_flushL2(Gpu *g, char *err, size_t errsize);

/* Metrics glue (bench/worker/metrics.c): collect e->metrics for one run of the variant. */
void Metrics_collectForEntry(Gpu *g, const PlanEntry *e, GpuModule *m, const AttnParams *p,
                             Record *rec);

/* Measured fp16 tensor peak (cuBLAS HGEMM 8192^3), cached on disk per device. */
double Peak_fp16Tflops(Gpu *g);
/* The other ceilings of the floors (bench/worker/ceilings.c), cached on disk per device and driver:
 * device-to-device copy bandwidth (GB/s, read + write) and an empty kernel's time (us, by
 * kernel timestamps). NAN when they could not be measured. */
double Ceilings_bandwidthGBs(Gpu *g);
double Ceilings_launchUs(Gpu *g);

#endif
