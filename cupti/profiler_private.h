/* Shared by profiler.c (device, setup) and profiler_collect.c (metric sets, collection). */
#ifndef BENCHTOP_PROFILER_PRIVATE_H
#define BENCHTOP_PROFILER_PRIVATE_H

#include <cuda.h>
#include <cupti_result.h>
#include <cupti_range_profiler.h>

#include "cupti/nvpw.h"
#include "cupti/profiler.h"
#include "cupti/sized_params.h"

_Static_assert(sizeof PROFILER_DENIED_FIX <= sizeof(((Metric *)0)->reason),
               "the fix line must fit in Metric.reason");

enum { PROFILER_SETS = 4, PROFILER_MAX_RANGES = 2, PROFILER_MAX_PASS_LOOPS = 64 };

/* One metric set as asked for, prepared once: validation, config and counter data images. */
typedef struct MetricSet {
  int n;
  char **names;
  bool *valid;
  char (*unit)[16];
  char (*reason)[RECORD_REASON_MAX / 2];
  int nvalid;
  const char **valid_names; /* distinct valid names, pointing into names */
  uint8_t *config;
  size_t config_size;
  int passes;
  char error[200]; /* set-wide failure (config image), empty when fine */
  uint8_t *counter_data;
  size_t counter_size;
  unsigned long long last_used;
} MetricSet;

struct Profiler {
  int device;
  CUcontext ctx;
  char chip[32];
  uint8_t *avail;
  bool denied;
  NvpwHost *host;
  NvpwEval *eval;
  MetricSet sets[PROFILER_SETS];
  unsigned long long clock;
  CUpti_RangeProfiler_Object *obj; /* non-NULL while enabled on the context */
  ProfilerTimes last;
  bool (*pass_hook)(void *user); /* run before each pass, outside the range (L2 flush) */
  void *pass_user;
  bool keep_enabled; /* see Profiler_setKeepEnabled */
};

bool Cupti_denied(CUptiResult r);
/* False on success; else one line in err (the fix line when counters are restricted). */
bool Cupti_failed(CUptiResult r, const char *call, char *err, size_t errsize);
void MetricSet_clear(MetricSet *s);

#endif
