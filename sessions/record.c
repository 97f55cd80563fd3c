/* The result record: initialisation to "n/a", deep copy, lookups. */
#include "sessions/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/knobs.h"

static const char *const Record_statusNames[] = {
  [REC_PASS] = "pass", [REC_FAIL] = "fail", [REC_ERROR] = "error", [REC_NA] = "n/a",
  [REC_CANCELLED] = "cancelled",
};

const char *Record_statusName(RecordStatus st) {
  if ((int)st < 0 || (size_t)st >= sizeof Record_statusNames / sizeof Record_statusNames[0])
    return "?";
  return Record_statusNames[st];
}

bool Record_statusParse(const char *s, RecordStatus *out) {
  if (!s) return false;
  for (size_t i = 0; i < sizeof Record_statusNames / sizeof Record_statusNames[0]; i++) {
    if (strcmp(s, Record_statusNames[i]) == 0) {
      *out = (RecordStatus)i;
      return true;
    }
  }
  return false;
}

void Device_init(DeviceInfo *d) {
  memset(d, 0, sizeof *d);
  d->cc_major = d->cc_minor = d->sm_count = -1;
  d->l2_bytes = d->mem_bytes = -1;
  d->driver_version = d->runtime_version = -1;
  d->nvrtc_major = d->nvrtc_minor = -1;
  d->cupti_version = -1;
  d->index = -1;
  d->peak_tflops = NAN;
  d->peak_gbs = NAN;
  d->launch_us = NAN;
}

void RunOptions_init(RunOptions *o) {
  memset(o, 0, sizeof *o);
  o->reps = o->warmup = -1;
  o->watchdog_s = NAN;
}

void Record_init(Record *r) {
  memset(r, 0, sizeof *r);
  RunOptions_init(&r->opts);
  r->status = REC_NA;

  Timing *t = &r->timing;
  t->p50 = t->p90 = t->p99 = t->min = t->mean = t->stddev = NAN;
  t->tflops = t->peak_frac = NAN;
  t->nsamples = -1;
  t->samples = NULL;
  t->event_p50 = NAN;

  ErrorStats *e = &r->error;
  e->max_abs = e->rel_l2 = e->tolerance = NAN;
  e->nan_count = e->inf_count = e->unwritten = -1;
  e->checked = false;

  BuildInfo *b = &r->build;
  b->regs = b->smem_static = b->smem_dynamic = b->stack_bytes = -1;
  b->spill_stores = b->spill_loads = -1;
  b->compile_ms = NAN;
  b->cache_hit = false;

  Clocks *c = &r->clocks;
  c->sm_mhz_before = c->sm_mhz_after = c->mem_mhz_before = c->mem_mhz_after = NAN;
  c->temp_c = c->power_w = NAN;
  c->throttle_reasons = -1;

  Device_init(&r->device);
  r->nmetrics = 0;
  r->metrics = NULL;
  r->metric_passes = -1;
  r->nkernels = 0;
  r->kernels = NULL;
  r->plan_index = -1;
  r->occupancy_theoretical = NAN;
  r->tune.rank = r->tune.of = -1;
}

bool Record_kernelClock(const Record *r) { return strcmp(r->timing.source, "kernel") == 0; }

bool Record_comparableP50(const Record *a, const Record *b, double *pa, double *pb) {
  bool by_events = Record_kernelClock(a) != Record_kernelClock(b);
  *pa = by_events && Record_kernelClock(a) ? a->timing.event_p50 : a->timing.p50;
  *pb = by_events && Record_kernelClock(b) ? b->timing.event_p50 : b->timing.p50;
  return by_events;
}

void Record_free(Record *r) {
  free(r->timing.samples);
  free(r->metrics);
  free(r->kernels);
  r->kernels = NULL;
  r->nkernels = 0;
  r->timing.samples = NULL;
  r->timing.nsamples = -1;
  r->metrics = NULL;
  r->nmetrics = 0;
}

/* A copy of n elements of size bytes; NULL when there are none. */
static void *Record_dupArray(const void *src, int n, size_t size) {
  if (!src || n <= 0) return NULL;
  void *dst = Util_xmalloc((size_t)n * size);
  memcpy(dst, src, (size_t)n * size);
  return dst;
}

void Record_copy(Record *dst, const Record *src) {
  *dst = *src;
  dst->timing.samples = Record_dupArray(src->timing.samples, src->timing.nsamples, sizeof(double));
  dst->metrics = Record_dupArray(src->metrics, src->nmetrics, sizeof(Metric));
  if (!dst->metrics) dst->nmetrics = 0;
  dst->kernels = Record_dupArray(src->kernels, src->nkernels, sizeof(KernelSpan));
  if (!dst->kernels) dst->nkernels = 0;
}

const Metric *Record_metric(const Record *r, const char *name) {
  for (int i = 0; i < r->nmetrics; i++)
    if (strcmp(r->metrics[i].name, name) == 0) return &r->metrics[i];
  return NULL;
}

bool Record_sameKey(const Record *a, const Record *b) {
  return strcmp(a->variant, b->variant) == 0 && KnobText_same(a->knobs, b->knobs) &&
         Shape_equal(&a->shape, &b->shape);
}
