/* Host side of metric collection through libnvperf_host's C API (see nvpw.h). */
#include "cupti/nvpw.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nvperf_cuda_host.h>
#include <nvperf_host.h>

#include "common/util.h"
#include "cupti/nvpw_private.h"

const char *Nvpw_statusName(int status) {
  static const char *const names[] = {
      "SUCCESS", "ERROR", "INTERNAL_ERROR", "NOT_INITIALIZED", "NOT_LOADED",
      "FUNCTION_NOT_FOUND", "NOT_SUPPORTED", "NOT_IMPLEMENTED", "INVALID_ARGUMENT",
      "INVALID_METRIC_ID", "DRIVER_NOT_LOADED", "OUT_OF_MEMORY", "INVALID_THREAD_STATE",
      "FAILED_CONTEXT_ALLOC", "UNSUPPORTED_GPU", "INSUFFICIENT_DRIVER_VERSION",
      "OBJECT_NOT_REGISTERED", "INSUFFICIENT_PRIVILEGE", "INVALID_CONTEXT_STATE",
      "INVALID_OBJECT_STATE", "RESOURCE_UNAVAILABLE", "DRIVER_LOADED_TOO_LATE",
      "INSUFFICIENT_SPACE", "OBJECT_MISMATCH", "VIRTUALIZED_DEVICE_NOT_SUPPORTED",
      "PROFILING_NOT_ALLOWED"};
  if (status >= 0 && status < (int)(sizeof names / sizeof names[0])) return names[status];
  return "unknown NVPA status";
}

bool Nvpw_statusDenied(int status) {
  return status == NVPA_STATUS_INSUFFICIENT_PRIVILEGE ||
         status == NVPA_STATUS_PROFILING_NOT_ALLOWED;
}

NvpwApi nvpw;

/* Global, as a linked library is: CUPTI may look its functions up by name. A failure is
 * remembered. */
bool Nvpw_load(char *err, size_t errsize) {
  static int state; /* 0 not tried, 1 loaded, -1 failed */
  static char why[256];
  if (state == 0) {
    void *lib = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_GLOBAL);
    state = lib ? 1 : -1;
    if (!lib) {
      const char *e = dlerror();
      snprintf(why, sizeof why, "cannot load libnvperf_host.so (%s): put the CUDA toolkit's lib64 "
               "folder on LD_LIBRARY_PATH", e ? e : "not found");
    }
    /* POSIX allows converting dlsym's void * to a function pointer; ISO C does not say. */
#define NVPW_API_SYM(name)                                                                     \
    if (state == 1 && !(*(void **)&nvpw.name = dlsym(lib, #name))) {                           \
      snprintf(why, sizeof why, "libnvperf_host.so lacks %s: not the CUDA toolkit's library", #name); \
      state = -1;                                                                              \
    }
    NVPW_API(NVPW_API_SYM)
#undef NVPW_API_SYM
  }
  if (state == 1) return true;
  snprintf(err, errsize, "%s", why);
  return false;
}

static bool Nvpw_init(char *err, size_t errsize) {
  static bool done;
  if (done) return true;
  if (!Nvpw_load(err, errsize)) return false;
  SIZED_PARAMS(NVPW_InitializeHost_Params, p);
  NVPA_Status st = nvpw.NVPW_InitializeHost(&p);
  if (st != NVPA_STATUS_SUCCESS) {
    snprintf(err, errsize, "NVPW_InitializeHost failed (%s): is libnvperf_host.so from the CUDA "
             "toolkit on the library path?", Nvpw_statusName(st));
    return false;
  }
  done = true;
  return true;
}

bool Nvpw_supportedChips(char *buf, size_t size, char *err, size_t errsize) {
  if (!Nvpw_init(err, errsize)) return false;
  SIZED_PARAMS(NVPW_GetSupportedChipNames_Params, p);
  NVPA_Status st = nvpw.NVPW_GetSupportedChipNames(&p);
  if (st != NVPA_STATUS_SUCCESS) {
    snprintf(err, errsize, "NVPW_GetSupportedChipNames failed (%s)", Nvpw_statusName(st));
    return false;
  }
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < p.numChipNames && used + 1 < size; i++) {
    int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", p.ppChipNames[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
  return true;
}

/* The chip's canonical spelling from libnvperf_host's list (case-insensitive match), or NULL. */
static const char *Nvpw_canonicalChip(const char *chip) {
  SIZED_PARAMS(NVPW_GetSupportedChipNames_Params, p);
  if (nvpw.NVPW_GetSupportedChipNames(&p) != NVPA_STATUS_SUCCESS) return NULL;
  for (size_t i = 0; i < p.numChipNames; i++)
    if (strcasecmp(p.ppChipNames[i], chip) == 0) return p.ppChipNames[i];
  return NULL;
}

/* Evaluator from chip/availability (virtual device) or from counter data (actual device);
 * false with err set, e left empty. */
static bool NvpwEval_open(NvpwEval *e, const char *chip, const uint8_t *avail, const uint8_t *cd,
                          size_t cdsize, char *err, size_t errsize) {
  e->ev = NULL;
  e->scratch = NULL;
  SIZED_PARAMS(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params, sz);
  sz.pChipName = chip;
  sz.pCounterAvailabilityImage = cd ? NULL : avail;
  NVPA_Status st = nvpw.NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(&sz);
  if (st != NVPA_STATUS_SUCCESS) {
    snprintf(err, errsize, "NVPW metrics evaluator: scratch size for chip %s failed (%s)", chip,
             Nvpw_statusName(st));
    return false;
  }
  uint8_t *scratch = Util_xmalloc(sz.scratchBufferSize ? sz.scratchBufferSize : 1);
  SIZED_PARAMS(NVPW_CUDA_MetricsEvaluator_Initialize_Params, in);
  in.pScratchBuffer = scratch;
  in.scratchBufferSize = sz.scratchBufferSize;
  if (cd) {
    in.pCounterDataImage = cd;
    in.counterDataImageSize = cdsize;
  } else {
    in.pChipName = chip;
    in.pCounterAvailabilityImage = avail;
  }
  st = nvpw.NVPW_CUDA_MetricsEvaluator_Initialize(&in);
  if (st != NVPA_STATUS_SUCCESS || !in.pMetricsEvaluator) {
    snprintf(err, errsize, "NVPW metrics evaluator for chip %s failed (%s)", chip,
             Nvpw_statusName(st));
    free(scratch);
    return false;
  }
  e->ev = in.pMetricsEvaluator;
  e->scratch = scratch;
  return true;
}

/* Destroys the evaluator and frees its scratch; e may be empty. */
static void NvpwEval_close(NvpwEval *e) {
  if (e->ev) {
    SIZED_PARAMS(NVPW_MetricsEvaluator_Destroy_Params, d);
    d.pMetricsEvaluator = e->ev;
    (void)nvpw.NVPW_MetricsEvaluator_Destroy(&d); /* nothing useful to do on failure at teardown */
  }
  free(e->scratch);
  e->ev = NULL;
  e->scratch = NULL;
}

NvpwHost *NvpwHost_new(const char *chip, const uint8_t *avail, char *err, size_t errsize) {
  if (!Nvpw_init(err, errsize)) return NULL;
  const char *canon = chip ? Nvpw_canonicalChip(chip) : NULL;
  if (!canon) {
    char known[1024];
    char e2[64];
    if (!Nvpw_supportedChips(known, sizeof known, e2, sizeof e2)) Util_strlcpy(known, "?", sizeof known);
    snprintf(err, errsize, "unknown chip '%s' (libnvperf_host knows: %s)", chip ? chip : "",
             known);
    return NULL;
  }
  NvpwHost *h = Util_xcalloc(1, sizeof *h);
  h->chip = Util_xstrdup(canon);
  h->avail = avail;
  if (!NvpwEval_open(&h->eval, h->chip, avail, NULL, 0, err, errsize)) {
    NvpwHost_free(h);
    return NULL;
  }
  return h;
}

void NvpwHost_free(NvpwHost *h) {
  if (!h) return;
  NvpwEval_close(&h->eval);
  free(h->chip);
  free(h);
}

const char *NvpwHost_chip(const NvpwHost *h) { return h->chip; }

bool Nvpw_request(NVPW_MetricsEvaluator *ev, const char *name, NVPW_MetricEvalRequest *req) {
  SIZED_PARAMS(NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params, c);
  c.pMetricsEvaluator = ev;
  c.pMetricName = name;
  c.pMetricEvalRequest = req;
  c.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
  memset(req, 0, sizeof *req);
  return nvpw.NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest(&c) == NVPA_STATUS_SUCCESS;
}

/* Unit text from the dimension units ("%" for percentages, "ns", "byte/second", ...). */
void Nvpw_unit(NVPW_MetricsEvaluator *ev, const char *name,
                      const NVPW_MetricEvalRequest *req, char *unit, size_t size) {
  const char *last = strrchr(name, '.');
  unit[0] = '\0';
  if (last && (strcmp(last, ".pct") == 0 || strncmp(last, ".pct_", 5) == 0)) {
    Util_strlcpy(unit, "%", size);
    return;
  }
  if (last && strcmp(last, ".ratio") == 0) {
    Util_strlcpy(unit, "ratio", size);
    return;
  }
  NVPW_DimUnitFactor dims[8];
  SIZED_PARAMS(NVPW_MetricsEvaluator_GetMetricDimUnits_Params, d);
  d.pMetricsEvaluator = ev;
  d.pMetricEvalRequest = req;
  d.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
  d.pDimUnits = dims;
  d.numDimUnits = 8;
  d.dimUnitFactorStructSize = NVPW_DimUnitFactor_STRUCT_SIZE;
  if (nvpw.NVPW_MetricsEvaluator_GetMetricDimUnits(&d) != NVPA_STATUS_SUCCESS) return;
  size_t used = 0;
  for (int pass = 0; pass < 2; pass++) /* numerators, then denominators */
    for (size_t i = 0; i < d.numDimUnits && i < 8; i++) {
      if ((pass == 0) != (dims[i].exponent > 0)) continue;
      SIZED_PARAMS(NVPW_MetricsEvaluator_DimUnitToString_Params, s);
      s.pMetricsEvaluator = ev;
      s.dimUnit = dims[i].dimUnit;
      if (nvpw.NVPW_MetricsEvaluator_DimUnitToString(&s) != NVPA_STATUS_SUCCESS || !s.pSingularName)
        continue;
      const char *u = strcmp(s.pSingularName, "nsecond") == 0 ||
                              strcmp(s.pSingularName, "nanosecond") == 0
                          ? "ns"
                          : s.pSingularName;
      int w = snprintf(unit + used, size > used ? size - used : 0, "%s%s",
                       used == 0 ? (pass ? "1/" : "") : (pass ? "/" : "*"), u);
      if (w < 0 || (size_t)w >= size - used) return;
      used += (size_t)w;
    }
}

/* Raw counter names a metric needs; *out is heap (strings borrowed from the evaluator). */
static bool Nvpw_rawDeps(NVPW_MetricsEvaluator *ev, const NVPW_MetricEvalRequest *req,
                         const char ***out, size_t *n) {
  SIZED_PARAMS(NVPW_MetricsEvaluator_GetMetricRawDependencies_Params, d);
  d.pMetricsEvaluator = ev;
  d.pMetricEvalRequests = req;
  d.numMetricEvalRequests = 1;
  d.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
  d.metricEvalRequestStrideSize = sizeof *req;
  if (nvpw.NVPW_MetricsEvaluator_GetMetricRawDependencies(&d) != NVPA_STATUS_SUCCESS) return false;
  const char **deps = Util_xcalloc(d.numRawDependencies + 1, sizeof *deps);
  d.ppRawDependencies = deps;
  d.ppOptionalRawDependencies = NULL;
  d.numOptionalRawDependencies = 0;
  if (nvpw.NVPW_MetricsEvaluator_GetMetricRawDependencies(&d) != NVPA_STATUS_SUCCESS) {
    free(deps);
    return false;
  }
  *out = deps;
  *n = d.numRawDependencies;
  return true;
}

/* One step of building a raw metrics config that takes nothing but the config: names the step
 * for the error line and leaves for `done` on failure (Nvpw_configFromRaw only). */
#define CONFIG_STEP(Call)                                                                     \
  do {                                                                                        \
    step = "NVPW_RawMetricsConfig_" #Call;                                                    \
    SIZED_PARAMS(NVPW_RawMetricsConfig_##Call##_Params, call);                                \
    call.pRawMetricsConfig = cfg;                                                             \
    if ((st = nvpw.NVPW_RawMetricsConfig_##Call(&call)) != NVPA_STATUS_SUCCESS) goto done;    \
  } while (0)

/* Config image from raw counter names (deduplicated here). */
static bool Nvpw_configFromRaw(NvpwHost *h, const char **raw, size_t nraw, uint8_t **image,
                               size_t *size, int *passes, char *err, size_t errsize) {
  NVPA_RawMetricRequest *reqs = Util_xcalloc(nraw ? nraw : 1, sizeof *reqs);
  size_t nreq = 0;
  for (size_t i = 0; i < nraw; i++) {
    bool dup = false;
    for (size_t j = 0; j < nreq && !dup; j++) dup = strcmp(reqs[j].pMetricName, raw[i]) == 0;
    if (dup) continue;
    reqs[nreq].structSize = NVPA_RAW_METRIC_REQUEST_STRUCT_SIZE;
    reqs[nreq].pMetricName = raw[i];
    reqs[nreq].isolated = 1;
    reqs[nreq].keepInstances = 1;
    nreq++;
  }
  bool ok = false;
  const char *step = "NVPW_CUDA_RawMetricsConfig_Create_V2";
  NVPA_Status st;
  SIZED_PARAMS(NVPW_CUDA_RawMetricsConfig_Create_V2_Params, cr);
  cr.activityKind = NVPA_ACTIVITY_KIND_PROFILER;
  cr.pChipName = h->chip;
  cr.pCounterAvailabilityImage = h->avail;
  st = nvpw.NVPW_CUDA_RawMetricsConfig_Create_V2(&cr);
  NVPA_RawMetricsConfig *cfg = cr.pRawMetricsConfig;
  if (st != NVPA_STATUS_SUCCESS || !cfg) goto done;
  if (h->avail) {
    step = "NVPW_RawMetricsConfig_SetCounterAvailability";
    SIZED_PARAMS(NVPW_RawMetricsConfig_SetCounterAvailability_Params, av);
    av.pRawMetricsConfig = cfg;
    av.pCounterAvailabilityImage = h->avail;
    if ((st = nvpw.NVPW_RawMetricsConfig_SetCounterAvailability(&av)) != NVPA_STATUS_SUCCESS) goto done;
  }
  CONFIG_STEP(BeginPassGroup);
  step = "NVPW_RawMetricsConfig_AddMetrics";
  SIZED_PARAMS(NVPW_RawMetricsConfig_AddMetrics_Params, am);
  am.pRawMetricsConfig = cfg;
  am.pRawMetricRequests = reqs;
  am.numMetricRequests = nreq;
  if ((st = nvpw.NVPW_RawMetricsConfig_AddMetrics(&am)) != NVPA_STATUS_SUCCESS) goto done;
  CONFIG_STEP(EndPassGroup);
  CONFIG_STEP(GenerateConfigImage);
  step = "NVPW_RawMetricsConfig_GetConfigImage";
  SIZED_PARAMS(NVPW_RawMetricsConfig_GetConfigImage_Params, gi);
  gi.pRawMetricsConfig = cfg; /* first call: size only */
  if ((st = nvpw.NVPW_RawMetricsConfig_GetConfigImage(&gi)) != NVPA_STATUS_SUCCESS) goto done;
  size_t bytes = gi.bytesCopied;
  uint8_t *img = Util_xmalloc(bytes ? bytes : 1);
  gi.bytesAllocated = bytes;
  gi.pBuffer = img;
  if ((st = nvpw.NVPW_RawMetricsConfig_GetConfigImage(&gi)) != NVPA_STATUS_SUCCESS) {
    free(img);
    goto done;
  }
  step = "NVPW_RawMetricsConfig_GetNumPasses_V2";
  SIZED_PARAMS(NVPW_RawMetricsConfig_GetNumPasses_V2_Params, np);
  np.pRawMetricsConfig = cfg;
  if ((st = nvpw.NVPW_RawMetricsConfig_GetNumPasses_V2(&np)) != NVPA_STATUS_SUCCESS) {
    free(img);
    goto done;
  }
  *image = img;
  *size = gi.bytesCopied;
  *passes = (int)np.numPasses;
  ok = true;
done:
  if (!ok)
    snprintf(err, errsize, "%s failed (%s)", step, Nvpw_statusName(st));
  if (cfg) {
    SIZED_PARAMS(NVPW_RawMetricsConfig_Destroy_Params, de);
    de.pRawMetricsConfig = cfg;
    (void)nvpw.NVPW_RawMetricsConfig_Destroy(&de);
  }
  free(reqs);
  return ok;
}

bool NvpwHost_validate(NvpwHost *h, const char *name, char *unit, size_t unitsize, int *passes,
                       char *reason, size_t reasonsize) {
  NVPW_MetricEvalRequest req;
  if (unit && unitsize) unit[0] = '\0';
  if (!Nvpw_request(h->eval.ev, name, &req)) {
    /* Tell an unknown base metric from a known one with a bad suffix. */
    char base[128];
    Util_strlcpy(base, name, sizeof base);
    char *dot = strchr(base, '.');
    if (dot) *dot = '\0';
    SIZED_PARAMS(NVPW_MetricsEvaluator_GetMetricTypeAndIndex_Params, ti);
    ti.pMetricsEvaluator = h->eval.ev;
    ti.pMetricName = base;
    if (dot && nvpw.NVPW_MetricsEvaluator_GetMetricTypeAndIndex(&ti) == NVPA_STATUS_SUCCESS)
      snprintf(reason, reasonsize, "unknown suffix '%s' for metric %s on %s", name + strlen(base),
               base, h->chip);
    else
      snprintf(reason, reasonsize, "unknown metric on %s", h->chip);
    return false;
  }
  if (unit && unitsize) Nvpw_unit(h->eval.ev, name, &req, unit, unitsize);
  const char **raw = NULL;
  size_t nraw = 0;
  if (!Nvpw_rawDeps(h->eval.ev, &req, &raw, &nraw)) {
    snprintf(reason, reasonsize, "no raw counters for this metric on %s", h->chip);
    return false;
  }
  uint8_t *img = NULL;
  size_t size = 0;
  int p = 0;
  char err[160];
  bool ok = Nvpw_configFromRaw(h, raw, nraw, &img, &size, &p, err, sizeof err);
  free(raw);
  free(img);
  if (!ok) {
    snprintf(reason, reasonsize, "not collectable on %s: %s", h->chip, err);
    return false;
  }
  if (passes) *passes = p;
  return true;
}

bool NvpwHost_configImage(NvpwHost *h, const char *const *names, int n, uint8_t **image,
                          size_t *size, int *passes, char *err, size_t errsize) {
  const char **all = NULL;
  size_t nall = 0;
  for (int i = 0; i < n; i++) {
    NVPW_MetricEvalRequest req;
    const char **raw = NULL;
    size_t nraw = 0;
    if (!Nvpw_request(h->eval.ev, names[i], &req) || !Nvpw_rawDeps(h->eval.ev, &req, &raw, &nraw)) {
      snprintf(err, errsize, "metric %s: lookup failed on %s", names[i], h->chip);
      free(all);
      return false;
    }
    all = Util_xrealloc(all, (nall + nraw + 1) * sizeof *all);
    memcpy(all + nall, raw, nraw * sizeof *raw);
    nall += nraw;
    free(raw);
  }
  bool ok = Nvpw_configFromRaw(h, all, nall, image, size, passes, err, errsize);
  free(all);
  return ok;
}

NvpwEval *NvpwEval_new(const char *chip, const uint8_t *counter_data, size_t size, char *err,
                       size_t errsize) {
  if (!Nvpw_init(err, errsize)) return NULL;
  NvpwEval *e = Util_xcalloc(1, sizeof *e);
  if (!NvpwEval_open(e, chip, NULL, counter_data, size, err, errsize)) {
    free(e);
    return NULL;
  }
  return e;
}

void NvpwEval_free(NvpwEval *e) {
  if (!e) return;
  NvpwEval_close(e);
  free(e);
}

bool NvpwEval_bind(NvpwEval *e, const uint8_t *counter_data, size_t size, char *err,
                   size_t errsize) {
  SIZED_PARAMS(NVPW_MetricsEvaluator_SetDeviceAttributes_Params, p);
  p.pMetricsEvaluator = e->ev;
  p.pCounterDataImage = counter_data;
  p.counterDataImageSize = size;
  NVPA_Status st = nvpw.NVPW_MetricsEvaluator_SetDeviceAttributes(&p);
  if (st != NVPA_STATUS_SUCCESS) {
    snprintf(err, errsize, "NVPW_MetricsEvaluator_SetDeviceAttributes failed (%s)",
             Nvpw_statusName(st));
    return false;
  }
  return true;
}

bool NvpwEval_value(NvpwEval *e, const uint8_t *counter_data, size_t size, size_t range,
                    const char *name, double *value, char *err, size_t errsize) {
  NVPW_MetricEvalRequest req;
  if (!Nvpw_request(e->ev, name, &req)) {
    snprintf(err, errsize, "unknown metric on this device");
    return false;
  }
  SIZED_PARAMS(NVPW_MetricsEvaluator_EvaluateToGpuValues_Params, p);
  p.pMetricsEvaluator = e->ev;
  p.pMetricEvalRequests = &req;
  p.numMetricEvalRequests = 1;
  p.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
  p.metricEvalRequestStrideSize = sizeof req;
  p.pCounterDataImage = counter_data;
  p.counterDataImageSize = size;
  p.rangeIndex = range;
  p.isolated = 1;
  p.pMetricValues = value;
  NVPA_Status st = nvpw.NVPW_MetricsEvaluator_EvaluateToGpuValues(&p);
  if (st != NVPA_STATUS_SUCCESS) {
    snprintf(err, errsize, "evaluation failed (%s)", Nvpw_statusName(st));
    return false;
  }
  return true;
}
