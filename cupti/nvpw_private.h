/* Shared by nvpw.c and nvpw_list.c only: the host and evaluator objects and two lookup helpers. */
#ifndef BENCHTOP_NVPW_PRIVATE_H
#define BENCHTOP_NVPW_PRIVATE_H

#include <nvperf_cuda_host.h>
#include <nvperf_host.h>

#include "cupti/nvpw.h"
#include "cupti/sized_params.h"

/* The functions of libnvperf_host this calls, filled in by Nvpw_load (nvpw.h: why it is not
 * linked, and who calls it). Every entry point that uses them needs an object that NvpwHost_new
 * or NvpwEval_new made, or is Nvpw_supportedChips, and those load first. Each field has its
 * function's prototype from the headers. */
#define NVPW_API(X) \
  X(NVPW_MetricsEvaluator_GetCounterProperties) \
  X(NVPW_MetricsEvaluator_GetRatioMetricProperties) \
  X(NVPW_MetricsEvaluator_GetThroughputMetricProperties) \
  X(NVPW_RawMetricsConfig_BeginPassGroup) \
  X(NVPW_RawMetricsConfig_EndPassGroup) \
  X(NVPW_RawMetricsConfig_GenerateConfigImage) \
  X(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize) \
  X(NVPW_CUDA_MetricsEvaluator_Initialize) \
  X(NVPW_CUDA_RawMetricsConfig_Create_V2) \
  X(NVPW_GetSupportedChipNames) \
  X(NVPW_InitializeHost) \
  X(NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest) \
  X(NVPW_MetricsEvaluator_Destroy) \
  X(NVPW_MetricsEvaluator_DimUnitToString) \
  X(NVPW_MetricsEvaluator_EvaluateToGpuValues) \
  X(NVPW_MetricsEvaluator_GetMetricDimUnits) \
  X(NVPW_MetricsEvaluator_GetMetricNames) \
  X(NVPW_MetricsEvaluator_GetMetricRawDependencies) \
  X(NVPW_MetricsEvaluator_GetMetricTypeAndIndex) \
  X(NVPW_MetricsEvaluator_HwUnitToString) \
  X(NVPW_MetricsEvaluator_SetDeviceAttributes) \
  X(NVPW_RawMetricsConfig_AddMetrics) \
  X(NVPW_RawMetricsConfig_Destroy) \
  X(NVPW_RawMetricsConfig_GetConfigImage) \
  X(NVPW_RawMetricsConfig_GetNumPasses_V2) \
  X(NVPW_RawMetricsConfig_SetCounterAvailability)

#define NVPW_API_FIELD(name) __typeof__(&name) name;
typedef struct {
  NVPW_API(NVPW_API_FIELD)
} NvpwApi;
#undef NVPW_API_FIELD
extern NvpwApi nvpw;

/* A metrics evaluator and the scratch buffer it lives in. */
struct NvpwEval {
  NVPW_MetricsEvaluator *ev;
  uint8_t *scratch;
};

struct NvpwHost {
  char *chip;
  const uint8_t *avail; /* borrowed: the caller keeps it alive */
  NvpwEval eval;        /* built from chip and avail (a virtual device) */
};

/* Metric name -> evaluation request; false for a name this chip does not know. */
bool Nvpw_request(NVPW_MetricsEvaluator *ev, const char *name, NVPW_MetricEvalRequest *req);
/* Unit text of a metric ("%", "ns", "instruction", "byte/second"). */
void Nvpw_unit(NVPW_MetricsEvaluator *ev, const char *name, const NVPW_MetricEvalRequest *req,
               char *unit, size_t size);

#endif
