/* CUPTI Range Profiler, target side: one user range around the engine's launch, user replay
 * (see profiler.h and cupti/README.md). The host side (metric lookup, config images,
 * evaluation) is in nvpw.c. libcuda is not linked: the two driver calls needed come through
 * common/driver.c. */
#include "cupti/profiler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include "common/driver.h"
#include "common/util.h"
#include "cupti/nvpw.h"
#include "cupti/profiler_private.h"

bool Cupti_denied(CUptiResult r) {
  return r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
         r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES;
}

/* False on success; else one line in err (the fix line when counters are restricted). */
bool Cupti_failed(CUptiResult r, const char *call, char *err, size_t errsize) {
  if (r == CUPTI_SUCCESS) return false;
  if (Cupti_denied(r)) {
    snprintf(err, errsize, "%s", PROFILER_DENIED_FIX);
    return true;
  }
  const char *s = NULL;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) s = "unknown CUPTI error";
  snprintf(err, errsize, "%s failed: %s (%d)", call, s, (int)r);
  return true;
}

int Profiler_deviceCount(char *err, size_t errsize) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    snprintf(err, errsize, "no CUDA device (cudaGetDeviceCount: %s)", cudaGetErrorString(e));
    (void)cudaGetLastError(); /* clear it so later runtime calls are not blamed */
    return 0;
  }
  if (n == 0) snprintf(err, errsize, "no CUDA device found");
  return n;
}

/* The device's primary context (created by the runtime if needed), as CUPTI wants it. */
static bool Profiler_context(int dev, CUcontext *ctx, CUdevice *cudev, char *err, size_t errsize) {
  cudaError_t e = cudaSetDevice(dev);
  if (e == cudaSuccess) e = cudaFree(0);
  if (e != cudaSuccess) {
    snprintf(err, errsize, "CUDA device %d: %s", dev, cudaGetErrorString(e));
    return false;
  }
  CUresult (*getCurrent)(CUcontext *) = NULL;
  CUresult (*getDevice)(CUdevice *) = NULL;
  if (!Driver_fn("cuCtxGetCurrent", &getCurrent, err, errsize) ||
      !Driver_fn("cuCtxGetDevice", &getDevice, err, errsize))
    return false;
  if (getCurrent(ctx) != CUDA_SUCCESS || !*ctx || getDevice(cudev) != CUDA_SUCCESS) {
    snprintf(err, errsize, "no current CUDA context on device %d", dev);
    return false;
  }
  return true;
}

static bool Profiler_cuptiInit(char *err, size_t errsize) {
  static bool done;
  if (done) return true;
  if (!Nvpw_load(err, errsize)) return false; /* before CUPTI opens it by its soname (nvpw.h) */
  SIZED_PARAMS(CUpti_Profiler_Initialize_Params, p);
  if (Cupti_failed(cuptiProfilerInitialize(&p), "cuptiProfilerInitialize", err, errsize))
    return false;
  done = true;
  return true;
}

/* Chip name and counter availability; *denied set (and true returned) when counters are
 * restricted, in which case *avail stays NULL. */
static bool Profiler_chipAndAvail(int dev, CUcontext ctx, char *chip, size_t chipsize,
                                  uint8_t **avail, bool *denied, char *err, size_t errsize) {
  *avail = NULL;
  *denied = false;
  SIZED_PARAMS(CUpti_Device_GetChipName_Params, cn);
  cn.deviceIndex = (size_t)dev;
  if (Cupti_failed(cuptiDeviceGetChipName(&cn), "cuptiDeviceGetChipName", err, errsize))
    return false;
  Util_strlcpy(chip, cn.pChipName ? cn.pChipName : "", chipsize);
  SIZED_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, ca);
  ca.ctx = ctx;
  CUptiResult r = cuptiProfilerGetCounterAvailability(&ca);
  if (Cupti_denied(r)) {
    *denied = true;
    return true;
  }
  if (Cupti_failed(r, "cuptiProfilerGetCounterAvailability (size)", err, errsize)) return false;
  *avail = Util_xcalloc(1, ca.counterAvailabilityImageSize ? ca.counterAvailabilityImageSize : 1);
  ca.pCounterAvailabilityImage = *avail;
  r = cuptiProfilerGetCounterAvailability(&ca);
  if (r != CUPTI_SUCCESS) {
    free(*avail);
    *avail = NULL;
    if (Cupti_denied(r)) {
      *denied = true;
      return true;
    }
    return !Cupti_failed(r, "cuptiProfilerGetCounterAvailability", err, errsize);
  }
  return true;
}

bool Profiler_deviceChip(int cuda_device, char *chip, size_t chipsize, unsigned char **avail,
                         char *err, size_t errsize) {
  CUcontext ctx = NULL;
  CUdevice cudev = 0;
  bool denied = false;
  if (!Profiler_context(cuda_device, &ctx, &cudev, err, errsize) ||
      !Profiler_cuptiInit(err, errsize) ||
      !Profiler_chipAndAvail(cuda_device, ctx, chip, chipsize, avail, &denied, err, errsize))
    return false;
  return true; /* denied: no availability image, the chip's full list is still shown */
}

static const char *Profiler_levelName(CUpti_Profiler_Support_Level l) {
  switch (l) {
  case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
  case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
  case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
  default: return "unknown";
  }
}

/* NULL when range profiling is supported (or the check itself is unavailable), else why not. */
static bool Profiler_supported(CUdevice cudev, char *err, size_t errsize) {
  SIZED_PARAMS(CUpti_Profiler_DeviceSupported_Params, ds);
  ds.cuDevice = cudev;
  ds.api = CUPTI_PROFILER_RANGE_PROFILING;
  if (cuptiProfilerDeviceSupported(&ds) != CUPTI_SUCCESS) return true; /* older drivers: try */
  if (ds.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return true;
  snprintf(err, errsize,
           "CUPTI range profiling is not supported on this device (architecture %s, vGPU %s, "
           "confidential compute %s, CMP %s, WSL %s, SLI %s)",
           Profiler_levelName(ds.architecture), Profiler_levelName(ds.vGpu),
           Profiler_levelName(ds.confidentialCompute), Profiler_levelName(ds.cmp),
           Profiler_levelName(ds.wsl), Profiler_levelName(ds.sli));
  return false;
}

Profiler *Profiler_new(int cuda_device, char *err, size_t errsize) {
  CUcontext ctx = NULL;
  CUdevice cudev = 0;
  if (!Profiler_context(cuda_device, &ctx, &cudev, err, errsize)) return NULL;
  if (!Profiler_cuptiInit(err, errsize)) {
    if (strcmp(err, PROFILER_DENIED_FIX) != 0) return NULL;
  } else if (!Profiler_supported(cudev, err, errsize)) {
    return NULL;
  }
  Profiler *p = Util_xcalloc(1, sizeof *p);
  p->device = cuda_device;
  p->ctx = ctx;
  if (!Profiler_chipAndAvail(cuda_device, ctx, p->chip, sizeof p->chip, &p->avail, &p->denied,
                             err, errsize)) {
    if (strcmp(err, PROFILER_DENIED_FIX) != 0) {
      Profiler_free(p);
      return NULL;
    }
    p->denied = true;
  }
  if (p->chip[0]) {
    p->host = NvpwHost_new(p->chip, p->avail, err, errsize);
    if (!p->host && !p->denied) {
      Profiler_free(p);
      return NULL;
    }
  }
  err[0] = '\0';
  return p;
}

const char *Profiler_chip(const Profiler *p) { return p->chip; }

void Profiler_lastTimes(const Profiler *p, ProfilerTimes *out) { *out = p->last; }

void Profiler_setPassHook(Profiler *p, bool (*hook)(void *user), void *user) {
  p->pass_hook = hook;
  p->pass_user = user;
}

void Profiler_setKeepEnabled(Profiler *p, bool keep) { p->keep_enabled = keep; }

bool Profiler_keepEnabledFor(bool keep) {
  const char *v = getenv(PROFILER_KEEP_ENABLED_ENV);
  return v && v[0] ? strcmp(v, "0") != 0 : keep;
}

void Profiler_free(Profiler *p) {
  if (!p) return;
  Profiler_disable(p);
  for (int i = 0; i < PROFILER_SETS; i++) MetricSet_clear(&p->sets[i]);
  NvpwEval_free(p->eval);
  NvpwHost_free(p->host);
  free(p->avail);
  free(p);
}
