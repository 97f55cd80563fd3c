/* One plan entry, start to finish: refuse what cannot run, compile, verify against the fp32
 * reference on fresh random inputs with a poisoned output, guard bands around every buffer and
 * checksummed inputs (a kernel that writes out of bounds or changes its inputs is named), time
 * (CUPTI kernel timestamps, with CUDA events around each launch beside them) and verify the last
 * timed launch's output again (a kernel that computes only once is named), then collect
 * hardware metrics (never inside the timed region). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/buffers.h"
#include "bench/worker/cudnn.h"
#include "bench/worker/integrity.h"
#include "bench/worker/l2persist_window.h"
#include "bench/worker/measure_private.h"
#include "bench/worker/nvml.h"
#include "bench/worker/tensor_maps.h"
#include "common/util.h"
#include "kernels/jit.h"
#include "cupti/profiler.h"
#include "kernels/reference.h"

static void Measure_fail(Record *rec, RecordStatus st, const char *prefix, const char *msg) {
  rec->status = st;
  snprintf(rec->reason, sizeof rec->reason, "%s%.300s", prefix, msg);
}

static void Measure_clocks(Gpu *g, Clocks *c, bool after) {
  NvmlSample ns;
  Nvml_sample(&ns);
  (void)g;
  if (after) {
    c->sm_mhz_after = ns.sm_mhz;
    c->mem_mhz_after = ns.mem_mhz;
    c->temp_c = ns.temp_c;
    c->power_w = ns.power_w;
    c->throttle_reasons = ns.throttle_reasons;
  } else {
    c->sm_mhz_before = ns.sm_mhz;
    c->mem_mhz_before = ns.mem_mhz;
  }
}

/* Launch-facts of the attention kernel: registers, static/dynamic smem, local memory, and the
 * theoretical occupancy from the occupancy API. */
static void Measure_kernelFacts(Gpu *g, const Variant *v, const LaunchPlan *plan, GpuModule *m,
                                Record *rec) {
  rec->build = m->build;
  /* The attention kernel is the step with the most registers (not a quantize or combine step). */
  int main_step = -1;
  for (int i = 0; i < v->nsteps; i++)
    if (v->steps[i].hook == HOOK_NONE && strcmp(v->steps[i].entry, Jit_mainEntry(v)) == 0) main_step = i;
  if (main_step < 0) return;
  struct cudaFuncAttributes fa, fi;
  bool have = cudaFuncGetAttributes(&fa, (const void *)m->kernels[main_step]) == cudaSuccess;
  for (int i = 0; have && i < v->nsteps; i++)
    if (v->steps[i].hook == HOOK_NONE &&
        cudaFuncGetAttributes(&fi, (const void *)m->kernels[i]) == cudaSuccess && fi.numRegs > fa.numRegs) {
      main_step = i;
      fa = fi;
    }
  const LaunchDims d = plan->dims[main_step];
  rec->build.smem_dynamic = (int)d.smem;
  if (have) {
    rec->build.regs = fa.numRegs;
    rec->build.smem_static = (int)fa.sharedSizeBytes;
    /* No ptxas report for a PTX build (the driver compiles it): the loaded kernel's local
     * memory (stack frame, spills included) is the next best fact. */
    if (rec->build.stack_bytes < 0) rec->build.stack_bytes = (int)fa.localSizeBytes;
  }
  const void *k = (const void *)m->kernels[main_step];
  int threads = (int)(d.block[0] * d.block[1] * d.block[2]), blocks = 0;
  if (d.smem > 48 * 1024)
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)d.smem);
  if (g->max_threads_per_sm > 0 &&
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, threads, d.smem) == cudaSuccess)
    rec->occupancy_theoretical = 100.0 * blocks * threads / g->max_threads_per_sm;
}

/* Records the error; true when the context is still usable. A sticky error poisons it: the
 * worker reports the record and exits, and the parent starts a fresh one. */
static bool Measure_contextSurvives(Record *rec, const char *err) {
  Measure_fail(rec, REC_ERROR, "", err);
  cudaError_t e = cudaDeviceSynchronize();
  return !Gpu_isSticky(e) && !Gpu_isSticky(cudaGetLastError());
}

/* How a step left the entry: go on, finished (the record says how), or the context died. */
typedef enum { STEP_NEXT, STEP_DONE, STEP_DEAD } MeasureStep;

/* One entry in progress. */
typedef struct Measurement {
  Gpu *g;
  const PlanEntry *e;
  Record *rec;
  volatile int *cancel;
  MeasureProgress progress;
  void *user;
  BufferNeeds need;
  GpuModule *m;
  AttnParams p;
  uint64_t sums[3];                 /* Q, K, V as filled */
  char err[RECORD_REASON_MAX];
  char cheat[RECORD_REASON_MAX];    /* what the kernel did besides computing, or "" */
  double launch_ms;                 /* the verification launch's wall time, NAN before it */
} Measurement;

/* A kernel that broke the rules: the record fails and says what it did. */
static void Measure_cheated(Measurement *x) {
  x->rec->status = REC_FAIL;
  Util_strlcpy(x->rec->reason, x->cheat, sizeof x->rec->reason);
}

/* The entry ends here: n/a or an error, prefix and msg its reason. */
static MeasureStep Measure_stop(Measurement *x, RecordStatus st, const char *prefix,
                                const char *msg) {
  Measure_fail(x->rec, st, prefix, msg);
  return STEP_DONE;
}

static MeasureStep Measure_dead(Measurement *x) {
  return Measure_contextSurvives(x->rec, x->err) ? STEP_DONE : STEP_DEAD;
}

/* The record's key and setting: what is measured, where, when. */
static void Measure_begin(Measurement *x) {
  Record *rec = x->rec;
  const PlanEntry *e = x->e;
  Record_init(rec);
  Util_strlcpy(rec->variant, e->variant->name, sizeof rec->variant);
  Registry_formatKnobs(e->variant, &e->knobs, rec->knobs, sizeof rec->knobs);
  rec->shape = e->shape;
  rec->opts = e->opts;
  rec->device = x->g->info;
  Util_isoTime(rec->created, sizeof rec->created);
}

/* The kernel's parameters over the worker's buffers. */
static void Measure_params(Measurement *x, int splits) {
  const GpuBuffers *b = &x->g->buf;
  const Shape *s = &x->e->shape;
  AttnParams *p = &x->p;
  memset(p, 0, sizeof *p);
  p->q = b->q; p->k = b->k; p->v = b->v; p->o = b->o;
  p->workspace = b->workspace;
  p->q8 = b->q8; p->k8 = b->k8; p->v8 = b->v8;
  if (b->scales) {
    p->q_scale = b->scales;
    p->k_scale = b->scales + x->need.bh;
    p->v_scale = b->scales + 2 * x->need.bh;
  }
  p->o_f32 = b->partial_o;
  p->lse = b->partial_lse;
  p->B = s->B; p->H = s->H; p->S = s->S; p->D = s->D;
  p->Hkv = Shape_hkv(s); p->Skv = Shape_skv(s); p->dtype = (int)s->dtype;
  p->causal = s->causal;
  p->num_splits = splits;
  p->scale = (float)(1.0 / sqrt((double)s->D));
}

/* Refuse what cannot run, size the buffers, compile, read the kernel's facts, set parameters. */
static MeasureStep Measure_prepare(Measurement *x) {
  Gpu *g = x->g;
  const PlanEntry *e = x->e;
  const Variant *v = e->variant;
  const Shape *s = &e->shape;
  char why[RECORD_REASON_MAX];
  const LaunchPlan *plan;
  if (Registry_refusal(v, s, &e->knobs, &g->props, why, sizeof why) ||
      !Gpu_plan(g, v, &e->knobs, s, &plan, why, sizeof why))
    return Measure_stop(x, REC_NA, "n/a: ", why);
  x->need = (BufferNeeds){.elems = Shape_elems(s), .kv_elems = Shape_kvElems(s),
                          .bh = s->B * s->H, .D = s->D,
                          .cold_l2 = e->opts.cold_l2};
  x->need.workspace_bytes = plan->scratch[SCRATCH_WORKSPACE];
  x->need.partial_o_bytes = plan->scratch[SCRATCH_O_F32];
  x->need.partial_lse_bytes = plan->scratch[SCRATCH_LSE];
  int splits = plan->num_splits;
  if (!Buffers_ensure(g, &x->need, x->err, sizeof x->err))
    return Measure_stop(x, REC_NA, "n/a: ", x->err);
  x->progress("compiling", x->launch_ms, x->user);
  x->m = Gpu_module(g, v, &e->knobs, s->D, s->dtype, x->err, sizeof x->err);
  if (!x->m) return Measure_stop(x, REC_ERROR, "compile: ", x->err);
  double built_ms = 0; /* cudnn: its plan, built once per problem and engine, timed as a compile */
  if (Cudnn_uses(v)) {
    bool refused;
    x->progress("building the cuDNN plan", x->launch_ms, x->user);
    if (!Cudnn_prepare(g, v, &e->knobs, s, &built_ms, &refused, x->err, sizeof x->err))
      return Measure_stop(x, refused ? REC_NA : REC_ERROR, refused ? "n/a: " : "cuDNN: ", x->err);
  }
  Measure_kernelFacts(g, v, plan, x->m, x->rec);
  x->rec->build.compile_ms += built_ms;
  Measure_params(x, splits);
  if (!TensorMaps_fill(plan, s, &x->p, x->err, sizeof x->err))
    return Measure_stop(x, REC_ERROR, "", x->err);
  return STEP_NEXT;
}

/* The first launch, alone on an idle stream: its wall time is what the timed launches (and the
 * parent's watchdog, told with the next word of progress) expect of one launch. */
static bool Measure_firstLaunch(Measurement *x) {
  Gpu *g = x->g;
  if (!Gpu_ok(cudaStreamSynchronize(g->stream), "preparing the inputs", x->err, sizeof x->err))
    return false;
  double t0 = Util_nowMs();
  if (!Gpu_runVariant(g, x->e->variant, &x->e->knobs, x->m, &x->p, x->err, sizeof x->err) ||
      !Gpu_ok(cudaStreamSynchronize(g->stream), "the kernel faulted", x->err, sizeof x->err))
    return false;
  x->launch_ms = Util_nowMs() - t0;
  return true;
}

/* Fresh inputs, a poisoned output (and reference buffer: a kernel that finds it reads NaN),
 * guard bands, then one run: its inputs and bands checked, then the reference computed from the
 * inputs and the output checked element by element. */
static MeasureStep Measure_verifyOnce(Measurement *x) {
  Gpu *g = x->g;
  const PlanEntry *e = x->e;
  Record *rec = x->rec;
  char *err = x->err;
  size_t n = x->need.elems, errsize = sizeof x->err;
  x->progress("verifying", x->launch_ms, x->user);
  uint64_t seed = e->opts.seed;
  rec->opts.seed = seed;
  AttnParams rp = x->p;
  rp.o_f32 = g->buf.ref;
  LaunchDims rd;
  Reference_dims(&e->shape, &rd);
  uint64_t after[3];
  size_t nkv = x->need.kv_elems;
  ShapeDtype dt = e->shape.dtype;
  if (!Measure_fill(g, g->buf.q, n, dt, seed * 3 + 1, err, errsize) ||
      !Measure_fill(g, g->buf.k, nkv, dt, seed * 3 + 2, err, errsize) ||
      !Measure_fill(g, g->buf.v, nkv, dt, seed * 3 + 3, err, errsize) ||
      !Measure_poison(g, g->buf.o, n, err, errsize) ||
      !Measure_poison(g, g->buf.ref, 2 * n, err, errsize) ||
      !Guard_arm(g, &x->need, err, errsize) ||
      !Guard_inputSums(g, &x->need, x->sums, err, errsize) ||
      !Measure_firstLaunch(x) ||
      !Guard_inputSums(g, &x->need, after, err, errsize) ||
      !Guard_check(g, &x->need, "", x->cheat, sizeof x->cheat, err, errsize) ||
      !Gpu_launch(g, g->reference.kernels[0], &rd, &rp, err, errsize) ||
      !Measure_verify(g, &e->shape, Registry_tolerance(e->variant, e->shape.dtype), &rec->error, err,
                      errsize))
    return Measure_dead(x);
  Guard_compareInputs(x->sums, after, "", x->cheat, sizeof x->cheat);
  if (x->cheat[0]) { /* its inputs or neighbours are not what the next launch would see */
    Measure_cheated(x);
    return STEP_DONE;
  }
  const ErrorStats *es = &rec->error;
  bool pass = es->nan_count == 0 && es->inf_count == 0 && es->unwritten == 0 &&
              es->rel_l2 <= es->tolerance;
  rec->status = pass ? REC_PASS : REC_FAIL;
  if (!pass)
    snprintf(rec->reason, sizeof rec->reason,
             "verification failed: rel L2 %.3g (tolerance %.3g), %lld NaN, %lld Inf, %lld unwritten",
             es->rel_l2, es->tolerance, (long long)es->nan_count, (long long)es->inf_count,
             (long long)es->unwritten);
  if (*x->cancel) {
    rec->status = REC_CANCELLED;
    return STEP_DONE;
  }
  return STEP_NEXT;
}

/* After the timed launches: the inputs, the bands, and the last launch's output (poisoned before
 * them) checked again, so a kernel that computes only when watched is named. */
static MeasureStep Measure_recheck(Measurement *x) {
  static const char when[] = "during the timed launches";
  Gpu *g = x->g;
  const PlanEntry *e = x->e;
  uint64_t after[3];
  ErrorStats es;
  memset(&es, 0, sizeof es);
  if (!Guard_inputSums(g, &x->need, after, x->err, sizeof x->err) ||
      !Guard_check(g, &x->need, when, x->cheat, sizeof x->cheat, x->err, sizeof x->err) ||
      !Measure_verify(g, &e->shape, Registry_tolerance(e->variant, e->shape.dtype), &es, x->err,
                      sizeof x->err))
    return Measure_dead(x);
  Guard_compareInputs(x->sums, after, when, x->cheat, sizeof x->cheat);
  size_t len = strlen(x->cheat);
  if (es.unwritten > 0)
    snprintf(x->cheat + len, sizeof x->cheat - len, "%sthe timed launches left %lld of %zu output "
             "elements unwritten (it computed only when verified)", len ? "; " : "",
             (long long)es.unwritten, x->need.elems);
  else if (es.nan_count > 0 || es.inf_count > 0 || es.rel_l2 > es.tolerance)
    snprintf(x->cheat + len, sizeof x->cheat - len, "%sthe output of the timed launches does not "
             "verify: rel L2 %.3g (tolerance %.3g), %lld NaN, %lld Inf", len ? "; " : "", es.rel_l2,
             es.tolerance, (long long)es.nan_count, (long long)es.inf_count);
  if (x->cheat[0] && x->rec->status == REC_PASS) Measure_cheated(x);
  return STEP_NEXT;
}

/* The timed launches, the clocks around them, the rate against the device's measured peak. */
static MeasureStep Measure_timeEntry(Measurement *x) {
  Gpu *g = x->g;
  const PlanEntry *e = x->e;
  Record *rec = x->rec;
  x->progress("timing", x->launch_ms, x->user);
  /* Events around a launch see an enabled range profiler (~0.1 us); kernel timestamps do not. */
  if (e->opts.event_timing && g->profiler) Profiler_disable(g->profiler);
  Measure_clocks(g, &rec->clocks, false);
  Replicates rep;
  memset(&rep, 0, sizeof rep);
  TimedRun t = {g, e->variant, &e->knobs, x->m, &x->p, NULL, x->need.elems, e->opts.seed,
                x->launch_ms, &rep};
  L2Persist l2p; /* --l2-persist: the window is up for the timed launches only */
  bool refused = false;
  if (!L2Persist_begin(g, &e->opts, &x->p, x->need.elems * 2, &l2p, &refused, x->err, sizeof x->err))
    return refused ? Measure_stop(x, REC_NA, "n/a: ", x->err) : Measure_dead(x);
  /* The verified output, kept to check the timed launches' work against. */
  bool ok = Gpu_ok(cudaMalloc(&t.good, x->need.elems * 2), "allocating the verified output copy",
                   x->err, sizeof x->err);
  if (!ok) t.good = NULL;
  ok = ok && Gpu_ok(cudaMemcpyAsync(t.good, g->buf.o, x->need.elems * 2, cudaMemcpyDeviceToDevice,
                                    g->stream), "keeping the verified output", x->err, sizeof x->err);
  ok = ok && Replicates_prepare(g, &x->p, &e->shape, &x->need, L2Persist_on(&e->opts), &rep, x->err,
                                sizeof x->err);
  ok = ok && Measure_poison(g, g->buf.o, x->need.elems, x->err, sizeof x->err) &&
       Measure_time(&t, &e->opts, rec, x->cancel, x->progress, x->user, x->cheat, sizeof x->cheat,
                    x->err, sizeof x->err) &&
       L2Persist_end(g, &l2p, x->err, sizeof x->err);
  if (!ok) L2Persist_end(g, &l2p, NULL, 0); /* taken down after a failure too (a no-op when done) */
  if (t.good) cudaFree(t.good);
  Replicates_release(&rep);
  if (!ok) return Measure_dead(x);
  Measure_clocks(g, &rec->clocks, true);
  if (*x->cancel && rec->timing.nsamples <= 0) { /* stopped before any timed launch */
    rec->status = REC_CANCELLED;
    return STEP_DONE;
  }
  rec->timing.tflops = Shape_flops(&e->shape) / (rec->timing.p50 * 1e-6) / 1e12;
  rec->device.peak_tflops = Peak_fp16Tflops(g);
  rec->device.peak_gbs = Ceilings_bandwidthGBs(g); /* the floors' other ceilings, once each */
  rec->device.launch_us = Ceilings_launchUs(g);
  rec->timing.peak_frac = rec->timing.tflops / rec->device.peak_tflops;
  return rec->timing.nsamples > 0 ? Measure_recheck(x) : STEP_NEXT;
}

/* Hardware counters in a separate profiled run, never inside the timed region. */
static MeasureStep Measure_profile(Measurement *x) {
  if (strcmp(x->e->metrics, "none") == 0 || *x->cancel) return STEP_DONE;
  x->progress("profiling", x->launch_ms, x->user);
  Metrics_collectForEntry(x->g, x->e, x->m, &x->p, x->rec);
  if (!Gpu_ok(cudaDeviceSynchronize(), "after metric collection", x->err, sizeof x->err))
    return Measure_dead(x);
  return STEP_DONE;
}

bool Measure_entry(Gpu *g, const PlanEntry *e, Record *rec, volatile int *cancel,
                   void (*progress)(const char *phase, double launch_ms, void *user), void *user) {
  Measurement x = {.g = g, .e = e, .rec = rec, .cancel = cancel, .progress = progress,
                   .user = user, .launch_ms = NAN};
  Measure_begin(&x);
  MeasureStep st = Measure_prepare(&x);
  if (st == STEP_NEXT) st = Measure_verifyOnce(&x);
  if (st == STEP_NEXT) st = Measure_timeEntry(&x);
  if (st == STEP_NEXT) st = Measure_profile(&x);
  return st != STEP_DEAD;
}
