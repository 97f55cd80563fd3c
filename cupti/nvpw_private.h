/* Shared by nvpw.c and nvpw_list.c only: the host object and two lookup helpers. */
#ifndef BENCHTOP_NVPW_PRIVATE_H
#define BENCHTOP_NVPW_PRIVATE_H

#include <nvperf_cuda_host.h>
#include <nvperf_host.h>

#include "cupti/nvpw.h"

/* Zeroed params struct with its structSize set, as every NVPW call wants. */
#define NVPW_PARAMS(T, v) \
  T v;                    \
  memset(&v, 0, sizeof v); \
  v.structSize = T##_STRUCT_SIZE

struct NvpwHost {
  char *chip;
  const uint8_t *avail; /* borrowed: the caller keeps it alive */
  uint8_t *scratch;
  NVPW_MetricsEvaluator *ev;
};

/* Metric name -> evaluation request; false for a name this chip does not know. */
bool Nvpw_request(NVPW_MetricsEvaluator *ev, const char *name, NVPW_MetricEvalRequest *req);
/* Unit text of a metric ("%", "ns", "instruction", "byte/second"). */
void Nvpw_unit(NVPW_MetricsEvaluator *ev, const char *name, const NVPW_MetricEvalRequest *req,
               char *unit, size_t size);

#endif
