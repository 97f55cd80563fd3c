/* Hardware metrics for one entry, through cupti/ (the Range Profiler): one range around one
 * run of the variant, after and apart from the timed reps. A failure costs the metrics only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/gpu.h"
#include "common/util.h"
#include "sessions/catalog.h"
#include "cupti/profiler.h"

typedef struct MetricsLaunch {
  Gpu *g;
  const PlanEntry *e;
  GpuModule *m;
  const AttnParams *p;
  char err[256];
} MetricsLaunch;

static bool Metrics_launch(void *user) {
  MetricsLaunch *l = user;
  if (!Gpu_runVariant(l->g, l->e->variant, &l->e->knobs, l->m, l->p, l->err, sizeof l->err))
    return false;
  cudaError_t e = cudaStreamSynchronize(l->g->stream);
  if (e != cudaSuccess) {
    Gpu_errorText(e, "profiled launch", l->err, sizeof l->err);
    return false;
  }
  return true;
}

/* --cold-l2: every replay pass starts from a flushed L2, like ncu --cache-control all. */
static bool Metrics_flush(void *user) {
  MetricsLaunch *l = user;
  if (!Measure_flushL2(l->g, l->err, sizeof l->err)) return false;
  return cudaStreamSynchronize(l->g->stream) == cudaSuccess;
}

static void Metrics_allNa(Record *rec, char **names, int n, const char *why) {
  for (int i = 0; i < n; i++) {
    Util_strlcpy(rec->metrics[i].name, names[i], sizeof rec->metrics[i].name);
    rec->metrics[i].value = NAN;
    Util_strlcpy(rec->metrics[i].reason, why, sizeof rec->metrics[i].reason);
  }
}

void Metrics_collectForEntry(Gpu *g, const PlanEntry *e, GpuModule *m, const AttnParams *p,
                             Record *rec) {
  char err[320];
  char **names = NULL;
  int n = Metrics_resolve(e->metrics, &names, err, sizeof err);
  if (n <= 0) {
    if (n < 0) snprintf(rec->reason + strlen(rec->reason), sizeof rec->reason - strlen(rec->reason),
                        "%smetrics: %s", rec->reason[0] ? "; " : "", err);
    return;
  }
  rec->metrics = Util_xcalloc((size_t)n, sizeof(Metric));
  rec->nmetrics = n;
  if (!g->profiler && !g->profiler_error[0]) {
    g->profiler = Profiler_new(g->device, g->profiler_error, sizeof g->profiler_error);
    if (!g->profiler && !g->profiler_error[0])
      Util_strlcpy(g->profiler_error, "the CUPTI profiler could not be set up", sizeof g->profiler_error);
  }
  if (!g->profiler) {
    Metrics_allNa(rec, names, n, g->profiler_error);
  } else {
    MetricsLaunch l = {g, e, m, p, ""};
    int passes = -1;
    Profiler_setPassHook(g->profiler, e->opts.cold_l2 ? Metrics_flush : NULL, &l);
    /* Kept enabled, later collections are ~4x cheaper and kernel timestamps unchanged; event
     * timing would see it (Measure_entry disables it before event-timed launches). */
    Profiler_setKeepEnabled(g->profiler, !e->opts.event_timing);
    if (!Profiler_collect(g->profiler, (const char *const *)names, n, Metrics_launch, &l,
                          rec->metrics, &passes, err, sizeof err)) {
      /* Profiler_collect filled every reason; keep the launch error if that was the cause. */
      if (l.err[0])
        for (int i = 0; i < n; i++)
          Util_strlcpy(rec->metrics[i].reason, l.err, sizeof rec->metrics[i].reason);
    }
    rec->metric_passes = passes;
    ProfilerTimes t;
    Profiler_lastTimes(g->profiler, &t); /* to the worker log: where collection time goes */
    fprintf(stderr, "metrics %s %d names: prepare %.1f setup %.1f passes %.1f (%d) decode %.1f total %.1f ms\n",
            e->variant->name, n, t.prepare_ms, t.setup_ms, t.passes_ms, passes, t.decode_ms, t.total_ms);
  }
  Catalog_addDerived(rec); /* the catalog's derived metrics from what was collected */
  Metrics_freeNames(names, n);
}
