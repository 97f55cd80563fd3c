#include "bench/worker/gpu.h"

#include <cupti.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/buffers.h"
#include "bench/worker/cudnn.h"
#include "bench/worker/nvml.h"
#include "common/util.h"
#include "kernels/jit.h"

/* cudaLibraryLoadData and cudaLibraryGetKernel arrived in the CUDA 12.8 runtime (meson.build
 * refuses older toolkits; this says the same to a build that bypasses it). */
#if CUDART_VERSION < 12080
#error "benchtop needs CUDA >= 12.8 (cudaLibraryLoadData, cudaLibraryGetKernel): docs/cuda-versions.md"
#endif

void Gpu_errorText(cudaError_t e, const char *what, char *err, size_t errsize) {
  snprintf(err, errsize, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

bool Gpu_ok(cudaError_t e, const char *what, char *err, size_t errsize) {
  if (e == cudaSuccess) return true;
  Gpu_errorText(e, what, err, errsize);
  return false;
}

bool Gpu_isSticky(cudaError_t e) {
  switch (e) {
  case cudaErrorIllegalAddress: case cudaErrorLaunchFailure: case cudaErrorAssert:
  case cudaErrorHardwareStackError: case cudaErrorIllegalInstruction:
  case cudaErrorMisalignedAddress: case cudaErrorInvalidAddressSpace: case cudaErrorInvalidPc:
  case cudaErrorLaunchTimeout: case cudaErrorECCUncorrectable: case cudaErrorUnknown:
  case cudaErrorContextIsDestroyed: case cudaErrorDevicesUnavailable:
    return true;
  default:
    return false;
  }
}

/* Compile a source with NVRTC for this GPU and load it; entries[] resolved into m->kernels. */
static bool Gpu_loadSource(Gpu *g, GpuModule *m, const char *name, const char *const *defines,
                           int ndefines, const char *const *entries, int nentries, char *err,
                           size_t errsize) {
  char *src = Jit_loadSource(name, err, errsize);
  if (!src) return false;
  JitOutput out;
  bool ok = Jit_compileSource(name, src, defines, ndefines, entries[nentries - 1], g->arch, true,
                              &out, err, errsize);
  free(src);
  if (!ok) {
    Jit_free(&out);
    return false;
  }
  m->build = out.build;
  cudaError_t e = cudaLibraryLoadData(&m->lib, out.cubin, NULL, NULL, 0, NULL, NULL, 0);
  Jit_free(&out);
  if (!Gpu_ok(e, "loading the NVRTC cubin (cudaLibraryLoadData)", err, errsize)) return false;
  for (int i = 0; i < nentries; i++) {
    char what[128];
    snprintf(what, sizeof what, "finding kernel %s in %s", entries[i], name);
    if (!Gpu_ok(cudaLibraryGetKernel(&m->kernels[i], m->lib, entries[i]), what, err, errsize)) {
      cudaLibraryUnload(m->lib);
      m->lib = NULL;
      return false;
    }
  }
  return true;
}

bool Gpu_init(Gpu *g, char *err, size_t errsize) {
  memset(g, 0, sizeof *g);
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorInsufficientDriver) { /* the runtime is newer than the driver's major */
    int drv = 0;
    cudaDriverGetVersion(&drv);
    snprintf(err, errsize, "no CUDA GPU: the NVIDIA driver supports CUDA %d.%d, this build's runtime "
             "is CUDA %d.%d: install a driver of CUDA %d.0 or newer (R%s or newer)",
             drv / 1000, drv % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10,
             CUDART_VERSION / 1000, CUDART_VERSION >= 13000 ? "580" : "525");
    return false;
  }
  if (e != cudaSuccess || n == 0) {
    snprintf(err, errsize, "no CUDA GPU: %s; benchtop run needs an NVIDIA GPU and its driver",
             e != cudaSuccess ? cudaGetErrorString(e) : "no device found");
    return false;
  }
  const char *env = getenv("BENCHTOP_DEVICE");
  g->device = env ? atoi(env) : 0;
  if (g->device < 0 || g->device >= n) {
    snprintf(err, errsize, "BENCHTOP_DEVICE=%d but this machine has %d CUDA device(s)", g->device, n);
    return false;
  }
  if (!Gpu_ok(cudaSetDevice(g->device), "selecting the CUDA device", err, errsize))
    return false;
  if (!Gpu_ok(cudaFree(NULL), "creating the CUDA context", err, errsize)) return false;
  struct cudaDeviceProp prop;
  if (!Gpu_ok(cudaGetDeviceProperties(&prop, g->device), "reading device properties", err,
              errsize))
    return false;
  DeviceInfo *d = &g->info;
  d->index = g->device;
  g->ndevices = n;
  Util_strlcpy(d->name, prop.name, sizeof d->name);
  d->cc_major = prop.major;
  d->cc_minor = prop.minor;
  d->sm_count = prop.multiProcessorCount;
  d->l2_bytes = prop.l2CacheSize;
  d->mem_bytes = (int64_t)prop.totalGlobalMem;
  /* As nvidia-smi writes it: what tells two GPUs of one kind apart in a multi-GPU session. */
  const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
  snprintf(d->uuid, sizeof d->uuid,
           "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
           u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  cudaDriverGetVersion(&d->driver_version);
  cudaRuntimeGetVersion(&d->runtime_version);
  if (d->driver_version > 0 && d->driver_version < d->runtime_version)
    fprintf(stderr, "benchtop worker: the driver supports CUDA %d.%d, the runtime is %d.%d: "
            "running under minor-version compatibility (docs/cuda-versions.md)\n",
            d->driver_version / 1000, d->driver_version % 1000 / 10,
            d->runtime_version / 1000, d->runtime_version % 1000 / 10);
  Jit_nvrtcVersion(&d->nvrtc_major, &d->nvrtc_minor);
  uint32_t cv = 0;
  d->cupti_version = cuptiGetVersion(&cv) == CUPTI_SUCCESS ? (int)cv : -1;
  d->peak_tflops = NAN;
  g->cc = prop.major * 10 + prop.minor;
  g->props = (DeviceProps){.cc = g->cc, .sm_count = prop.multiProcessorCount,
                           .l2_bytes = prop.l2CacheSize,
                           .smem_optin = (int)prop.sharedMemPerBlockOptin,
                           .max_threads = prop.maxThreadsPerBlock};
  for (int i = 0; i < 3; i++) {
    g->props.max_block[i] = prop.maxThreadsDim[i];
    g->props.max_grid[i] = prop.maxGridSize[i];
  }
  g->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  /* NVRTC may be older than the driver and the GPU: compile for the newest architecture it
   * knows (a same-major cubin, or PTX the driver finishes), and say so once. */
  char note[200];
  if (!Jit_targetFor(g->cc, false, g->arch, sizeof g->arch, note, sizeof note)) {
    snprintf(err, errsize, "%s; install a CUDA toolkit that supports this GPU", note);
    return false;
  }
  if (note[0]) fprintf(stderr, "benchtop worker: %s\n", note);
  if (!Gpu_ok(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), "creating a stream",
              err, errsize))
    return false;

  char pci[32], why[200];
  if (cudaDeviceGetPCIBusId(pci, sizeof pci, g->device) == cudaSuccess)
    g->nvml_ok = Nvml_open(pci, why, sizeof why);

  static const char *const util_entries[] = {"fill_randn_half", "fill_u16", "flush_l2",
                                             "checksum_u16", "check_output", "fill_randn_bf16",
                                             "check_output_bf16"};
  if (!Gpu_loadSource(g, &g->util, "engine_util.cu", NULL, 0, util_entries, 7, err, errsize))
    return false;
  static const char *const ref_entries[] = {"ref_attn"};
  if (!Gpu_loadSource(g, &g->reference, "reference.cu", NULL, 0, ref_entries, 1, err, errsize))
    return false;
  return true;
}

GpuModule *Gpu_module(Gpu *g, const Variant *v, const KnobValues *kv, int D, ShapeDtype dtype,
                      char *err, size_t errsize) {
  char knobs[KNOB_TEXT_MAX], key[256], arch[16];
  Registry_formatKnobs(v, kv, knobs, sizeof knobs);
  char note[200];
  if (!Jit_targetFor(g->cc, v->arch_specific, arch, sizeof arch, note, sizeof note)) {
    snprintf(err, errsize, "%s", note);
    return NULL;
  }
  snprintf(key, sizeof key, "%s|%s|%d|%d|%s", v->name, knobs, D, (int)dtype, arch);
  for (int i = 0; i < g->nmodules; i++)
    if (strcmp(g->modules[i].key, key) == 0) {
      g->modules[i].build.cache_hit = true;
      g->modules[i].build.compile_ms = 0;
      return &g->modules[i];
    }
  JitOutput out;
  if (!Jit_compileVariantFor(v, kv, D, dtype, arch, true, &out, err, errsize)) {
    Jit_free(&out);
    return NULL;
  }
  GpuModule m;
  memset(&m, 0, sizeof m);
  Util_strlcpy(m.key, key, sizeof m.key);
  m.build = out.build;
  cudaError_t e = cudaLibraryLoadData(&m.lib, out.cubin, NULL, NULL, 0, NULL, NULL, 0);
  Jit_free(&out);
  if (e != cudaSuccess) {
    Gpu_errorText(e, "loading the variant's cubin (cudaLibraryLoadData)", err, errsize);
    return NULL;
  }
  for (int i = 0; i < v->nsteps; i++) {
    if (v->steps[i].hook != HOOK_NONE) continue;
    e = cudaLibraryGetKernel(&m.kernels[i], m.lib, v->steps[i].entry);
    if (e != cudaSuccess) {
      char what[128];
      snprintf(what, sizeof what, "finding kernel %s in %s", v->steps[i].entry, v->source);
      Gpu_errorText(e, what, err, errsize);
      cudaLibraryUnload(m.lib);
      return NULL;
    }
  }
  g->modules = Util_xrealloc(g->modules, sizeof(GpuModule) * (size_t)(g->nmodules + 1));
  g->modules[g->nmodules] = m;
  return &g->modules[g->nmodules++];
}

bool Gpu_launch(Gpu *g, cudaKernel_t k, const LaunchDims *d, const AttnParams *p, char *err,
                size_t errsize) {
  if (d->smem > 48 * 1024 &&
      !Gpu_ok(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)d->smem),
              "allowing the kernel's dynamic shared memory (cudaFuncSetAttribute)", err, errsize))
    return false;
  dim3 grid = {d->grid[0], d->grid[1], d->grid[2]};
  if (d->persistent) { /* one block per SM at most; the kernel walks the rest */
    unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    grid = (dim3){DeviceProps_persistentBlocks(&g->props, blocks), 1, 1};
  }
  dim3 block = {d->block[0], d->block[1], d->block[2]};
  AttnParams copy = *p;
  void *args[] = {&copy};
  return Gpu_ok(cudaLaunchKernel((const void *)k, grid, block, args, d->smem, g->stream),
                "launching the kernel", err, errsize);
}

bool Gpu_plan(Gpu *g, const Variant *v, const KnobValues *kv, const Shape *s,
              const LaunchPlan **out, char *err, size_t errsize) {
  if (g->plan_variant != v || !Shape_equal(&g->plan_shape, s) ||
      memcmp(&g->plan_knobs, kv, sizeof *kv) != 0) {
    g->plan_variant = NULL;
    if (!Registry_plan(v, s, kv, &g->props, &g->plan, err, errsize)) return false;
    g->plan_variant = v;
    g->plan_knobs = *kv;
    g->plan_shape = *s;
  }
  *out = &g->plan;
  return true;
}

bool Gpu_runVariant(Gpu *g, const Variant *v, const KnobValues *kv, GpuModule *m,
                    const AttnParams *p, char *err, size_t errsize) {
  Shape s = {p->B, p->H, p->S, p->D, p->causal != 0, p->Hkv, p->Skv, (ShapeDtype)p->dtype};
  const LaunchPlan *plan;
  if (!Gpu_plan(g, v, kv, &s, &plan, err, errsize)) return false;
  for (int i = 0; i < v->nsteps; i++) {
    if (v->steps[i].hook == HOOK_CUDNN_SDPA) { /* needs the knobs: its engine */
      if (!Cudnn_run(g, v, kv, p, err, errsize)) return false;
      continue;
    }
    if (v->steps[i].hook != HOOK_NONE) {
      if (!Gpu_runHook(g, v->steps[i].hook, p, err, errsize)) return false;
      continue;
    }
    if (plan->skip[i]) continue; /* a grid with a zero: the step is not needed here */
    if (!Gpu_launch(g, m->kernels[i], &plan->dims[i], p, err, errsize)) return false;
  }
  return true;
}

void Gpu_free(Gpu *g) {
  Cudnn_free(g);
  Buffers_free(&g->buf);
  for (int i = 0; i < g->nmodules; i++) cudaLibraryUnload(g->modules[i].lib);
  free(g->modules);
  if (g->util.lib) cudaLibraryUnload(g->util.lib);
  if (g->reference.lib) cudaLibraryUnload(g->reference.lib);
  if (g->stream) cudaStreamDestroy(g->stream);
  if (g->nvml_ok) Nvml_close();
  memset(g, 0, sizeof *g);
}
