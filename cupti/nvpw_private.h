/* Shared by nvpw.c and nvpw_list.c only: the host and evaluator objects and two lookup helpers. */
#ifndef BENCHTOP_NVPW_PRIVATE_H
#define BENCHTOP_NVPW_PRIVATE_H

#include <nvperf_cuda_host.h>
#include <nvperf_host.h>

#include "cupti/nvpw.h"
#include "cupti/sized_params.h"

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
