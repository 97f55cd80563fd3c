/* Profiler_collect: metric sets prepared once, then per collection a fresh counter data
 * image, the user-replay passes around launch(), decode and evaluation (see profiler.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cupti_range_profiler.h>
#include <cupti_version.h>

/* The range profiler arrived in CUPTI 12.8 (CUPTI_API_VERSION 26; from 13.0 the version reads
 * 130000 and up). meson.build refuses older toolkits; this says so to a build that bypasses it. */
#if CUPTI_API_VERSION < 26
#error "benchtop needs CUDA >= 12.8 for CUPTI's range profiler: docs/cuda-versions.md"
#endif

#include "common/util.h"
#include "cupti/profiler_private.h"

void MetricSet_clear(MetricSet *s) {
  for (int i = 0; i < s->n; i++) free(s->names[i]);
  free(s->names);
  free(s->valid);
  free(s->unit);
  free(s->reason);
  free(s->valid_names);
  free(s->config);
  free(s->counter_data);
  memset(s, 0, sizeof *s);
}

static bool MetricSet_matches(const MetricSet *s, const char *const *names, int n) {
  if (s->n != n || !s->names) return false;
  for (int i = 0; i < n; i++)
    if (strcmp(s->names[i], names[i]) != 0) return false;
  return true;
}

/* Validates each name alone, then one config image for the valid ones. */
static void MetricSet_build(Profiler *p, MetricSet *s, const char *const *names, int n) {
  s->n = n;
  s->names = Util_xcalloc((size_t)n, sizeof *s->names);
  s->valid = Util_xcalloc((size_t)n, sizeof *s->valid);
  s->unit = Util_xcalloc((size_t)n, sizeof *s->unit);
  s->reason = Util_xcalloc((size_t)n, sizeof *s->reason);
  s->valid_names = Util_xcalloc((size_t)n, sizeof *s->valid_names);
  for (int i = 0; i < n; i++) {
    s->names[i] = Util_xstrdup(names[i] ? names[i] : "");
    const char *name = s->names[i];
    if (!Metrics_nameValid(name)) {
      snprintf(s->reason[i], sizeof s->reason[i], "not a metric name");
      continue;
    }
    int alone = 0;
    if (!NvpwHost_validate(p->host, name, s->unit[i], sizeof s->unit[i], &alone, s->reason[i],
                           sizeof s->reason[i]))
      continue;
    const MetricInfo *mi = Catalog_find(name);
    if (mi) Util_strlcpy(s->unit[i], mi->unit, sizeof s->unit[i]);
    s->valid[i] = true;
    bool dup = false;
    for (int j = 0; j < s->nvalid && !dup; j++) dup = strcmp(s->valid_names[j], name) == 0;
    if (!dup) s->valid_names[s->nvalid++] = name;
  }
  if (s->nvalid > 0 &&
      !NvpwHost_configImage(p->host, s->valid_names, s->nvalid, &s->config, &s->config_size,
                            &s->passes, s->error, sizeof s->error))
    s->config = NULL;
}

static MetricSet *Profiler_set(Profiler *p, const char *const *names, int n, bool *cached) {
  MetricSet *victim = &p->sets[0];
  p->clock++;
  for (int i = 0; i < PROFILER_SETS; i++) {
    MetricSet *s = &p->sets[i];
    if (MetricSet_matches(s, names, n)) {
      s->last_used = p->clock;
      *cached = true;
      return s;
    }
    if (s->last_used < victim->last_used) victim = s;
  }
  MetricSet_clear(victim);
  MetricSet_build(p, victim, names, n);
  victim->last_used = p->clock;
  *cached = false;
  return victim;
}

void Profiler_disable(Profiler *p) {
  if (!p->obj) return;
  SIZED_PARAMS(CUpti_RangeProfiler_Disable_Params, d);
  d.pRangeProfilerObject = p->obj;
  (void)cuptiRangeProfilerDisable(&d); /* best effort: nothing else to do if it fails */
  p->obj = NULL;
}

/* Every metric still without a reason gets `why`; the one-line error too. */
static bool Profiler_failAll(Metric *out, int n, bool all, const char *why, char *err,
                             size_t errsize) {
  for (int i = 0; i < n; i++) {
    out[i].value = NAN;
    if (all || !out[i].reason[0]) Util_strlcpy(out[i].reason, why, sizeof out[i].reason);
  }
  if (err != why) Util_strlcpy(err, why, errsize);
  return false;
}

/* Enable (if needed), fresh counter data image, config. */
static bool Profiler_setup(Profiler *p, MetricSet *s, char *err, size_t errsize) {
  if (!p->obj) {
    SIZED_PARAMS(CUpti_RangeProfiler_Enable_Params, en);
    en.ctx = p->ctx;
    if (Cupti_failed(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable", err, errsize))
      return false;
    p->obj = en.pRangeProfilerObject;
  }
  /* A fresh counter data image per collection, sized for this profiler object: an image kept
   * from an earlier enable crashed CUPTI on the next collection (seen on an H200). */
  free(s->counter_data);
  s->counter_data = NULL;
  {
    SIZED_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, cs);
    cs.pRangeProfilerObject = p->obj;
    cs.pMetricNames = s->valid_names;
    cs.numMetrics = (size_t)s->nvalid;
    cs.maxNumOfRanges = PROFILER_MAX_RANGES;
    cs.maxNumRangeTreeNodes = PROFILER_MAX_RANGES;
    if (Cupti_failed(cuptiRangeProfilerGetCounterDataSize(&cs),
                     "cuptiRangeProfilerGetCounterDataSize", err, errsize))
      return false;
    s->counter_size = cs.counterDataSize;
    s->counter_data = Util_xcalloc(1, s->counter_size ? s->counter_size : 1);
  }
  SIZED_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, ci);
  ci.pRangeProfilerObject = p->obj;
  ci.counterDataSize = s->counter_size;
  ci.pCounterData = s->counter_data;
  if (Cupti_failed(cuptiRangeProfilerCounterDataImageInitialize(&ci),
                   "cuptiRangeProfilerCounterDataImageInitialize", err, errsize))
    return false;
  SIZED_PARAMS(CUpti_RangeProfiler_SetConfig_Params, sc);
  sc.pRangeProfilerObject = p->obj;
  sc.configSize = s->config_size;
  sc.pConfig = s->config;
  sc.counterDataImageSize = s->counter_size;
  sc.pCounterDataImage = s->counter_data;
  sc.range = CUPTI_UserRange;
  sc.replayMode = CUPTI_UserReplay;
  sc.maxRangesPerPass = PROFILER_MAX_RANGES;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  return !Cupti_failed(cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig", err,
                       errsize);
}

/* Start/Push/launch/sync/Pop/Stop until CUPTI says every pass is submitted. */
static bool Profiler_passes(Profiler *p, bool (*launch)(void *), void *user, int *passes,
                            char *err, size_t errsize) {
  int loops = 0;
  for (;;) {
    if (p->pass_hook && !p->pass_hook(p->pass_user)) {
      snprintf(err, errsize, "the pre-pass hook failed before replay pass %d", loops + 1);
      return false;
    }
    SIZED_PARAMS(CUpti_RangeProfiler_Start_Params, st);
    st.pRangeProfilerObject = p->obj;
    if (Cupti_failed(cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart", err, errsize))
      return false;
    SIZED_PARAMS(CUpti_RangeProfiler_PushRange_Params, pu);
    pu.pRangeProfilerObject = p->obj;
    pu.pRangeName = "benchtop";
    bool ok = !Cupti_failed(cuptiRangeProfilerPushRange(&pu), "cuptiRangeProfilerPushRange", err,
                            errsize);
    if (ok && !launch(user)) {
      snprintf(err, errsize, "the launch failed during replay pass %d", loops + 1);
      ok = false;
    }
    if (ok) {
      cudaError_t e = cudaDeviceSynchronize();
      if (e == cudaSuccess) e = cudaGetLastError();
      if (e != cudaSuccess) {
        snprintf(err, errsize, "CUDA error during replay pass %d: %s", loops + 1,
                 cudaGetErrorString(e));
        ok = false;
      }
    }
    SIZED_PARAMS(CUpti_RangeProfiler_PopRange_Params, po);
    po.pRangeProfilerObject = p->obj;
    CUptiResult r = cuptiRangeProfilerPopRange(&po);
    if (ok) ok = !Cupti_failed(r, "cuptiRangeProfilerPopRange", err, errsize);
    SIZED_PARAMS(CUpti_RangeProfiler_Stop_Params, sp);
    sp.pRangeProfilerObject = p->obj;
    r = cuptiRangeProfilerStop(&sp);
    if (ok) ok = !Cupti_failed(r, "cuptiRangeProfilerStop", err, errsize);
    if (!ok) return false;
    loops++;
    if (sp.isAllPassSubmitted) break;
    if (loops >= PROFILER_MAX_PASS_LOOPS) {
      snprintf(err, errsize, "CUPTI still wants replay passes after %d", loops);
      return false;
    }
  }
  *passes = loops;
  return true;
}

static bool Profiler_env(const char *name) {
  const char *v = getenv(name);
  return v && v[0] && strcmp(v, "0") != 0;
}

bool Profiler_collect(Profiler *p, const char *const *names, int n, bool (*launch)(void *user),
                      void *user, Metric *out, int *passes, char *err, size_t errsize) {
  const double t0 = Util_nowMs();
  memset(&p->last, 0, sizeof p->last);
  *passes = 0;
  err[0] = '\0';
  for (int i = 0; i < n; i++) {
    memset(&out[i], 0, sizeof out[i]);
    Util_strlcpy(out[i].name, names[i] ? names[i] : "", sizeof out[i].name);
    out[i].value = NAN;
  }
  if (n <= 0) return true;
  if (Profiler_env(PROFILER_SIMULATE_DENIED_ENV) || p->denied)
    return Profiler_failAll(out, n, true, PROFILER_DENIED_FIX, err, errsize);
  if (!p->host) return Profiler_failAll(out, n, true, "no metric evaluator for this GPU", err, errsize);

  bool cached = false;
  MetricSet *s = Profiler_set(p, names, n, &cached);
  const double t1 = Util_nowMs();
  p->last.prepare_ms = cached ? 0 : t1 - t0;
  for (int i = 0; i < n; i++) {
    Util_strlcpy(out[i].unit, s->unit[i], sizeof out[i].unit);
    Util_strlcpy(out[i].reason, s->reason[i], sizeof out[i].reason);
  }
  if (s->nvalid == 0) return true; /* nothing collectable: each metric says why */
  if (s->error[0]) return Profiler_failAll(out, n, false, s->error, err, errsize);

  char why[RECORD_REASON_MAX];
  bool reused = p->obj != NULL;
  bool ok = Profiler_setup(p, s, why, sizeof why);
  if (!ok && reused && strcmp(why, PROFILER_DENIED_FIX) != 0) {
    Profiler_disable(p); /* a kept-enabled profiler refused a new config: start clean once */
    ok = Profiler_setup(p, s, why, sizeof why);
  }
  const double t2 = Util_nowMs();
  p->last.setup_ms = t2 - t1;
  int ran = 0;
  if (ok) ok = Profiler_passes(p, launch, user, &ran, why, sizeof why);
  const double t3 = Util_nowMs();
  p->last.passes_ms = t3 - t2;
  if (ok) {
    SIZED_PARAMS(CUpti_RangeProfiler_DecodeData_Params, dd);
    dd.pRangeProfilerObject = p->obj;
    ok = !Cupti_failed(cuptiRangeProfilerDecodeData(&dd), "cuptiRangeProfilerDecodeData", why,
                       sizeof why);
    if (ok && dd.numOfRangeDropped > 0) {
      snprintf(why, sizeof why, "CUPTI dropped %zu range(s)", dd.numOfRangeDropped);
      ok = false;
    }
  }
  if (ok) {
    SIZED_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, gi);
    gi.pCounterDataImage = s->counter_data;
    gi.counterDataImageSize = s->counter_size;
    ok = !Cupti_failed(cuptiRangeProfilerGetCounterDataInfo(&gi),
                       "cuptiRangeProfilerGetCounterDataInfo", why, sizeof why);
    if (ok && gi.numTotalRanges < 1) {
      snprintf(why, sizeof why, "CUPTI recorded no range for the launch");
      ok = false;
    }
  }
  if (ok) {
    /* A fresh evaluator per collection: re-binding one made from an earlier image crashed
     * inside NVPW on the second collection of a worker (seen on an H200). */
    NvpwEval_free(p->eval);
    p->eval = NvpwEval_new(p->chip, s->counter_data, s->counter_size, why, sizeof why);
    ok = p->eval && NvpwEval_bind(p->eval, s->counter_data, s->counter_size, why, sizeof why);
  }
  if (!ok) {
    Profiler_disable(p);
    if (strcmp(why, PROFILER_DENIED_FIX) == 0) {
      p->denied = true;
      return Profiler_failAll(out, n, true, why, err, errsize);
    }
    return Profiler_failAll(out, n, false, why, err, errsize);
  }
  for (int i = 0; i < n; i++) {
    if (!s->valid[i]) continue;
    char e2[RECORD_REASON_MAX / 2];
    double v = NAN;
    if (NvpwEval_value(p->eval, s->counter_data, s->counter_size, 0, s->names[i], &v, e2,
                       sizeof e2))
      out[i].value = v;
    else
      Util_strlcpy(out[i].reason, e2, sizeof out[i].reason);
  }
  /* Evaluated before disabling, as the probe did; the image is ours either way. */
  if (!Profiler_keepEnabledFor(p->keep_enabled)) Profiler_disable(p);
  *passes = ran;
  const double t4 = Util_nowMs();
  p->last.decode_ms = t4 - t3;
  p->last.total_ms = t4 - t0;
  return true;
}

