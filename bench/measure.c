/* One plan entry, start to finish: refuse what cannot run, compile, verify against the fp32
 * reference on fresh random inputs with a poisoned output, time (CUPTI kernel timestamps, with
 * CUDA events around each launch beside them), then collect hardware metrics (never inside
 * the timed region). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/buffers.h"
#include "bench/gpu.h"
#include "bench/nvml.h"
#include "bench/stats.h"
#include "bench/tensor_maps.h"
#include "common/util.h"
#include "cupti/kernel_clock.h"
#include "cupti/profiler.h"
#include "kernels/reference.h"

#define POISON_BITS 0xFFFFu /* an fp16 NaN no kernel produces by arithmetic */

static void Measure_fail(Record *rec, RecordStatus st, const char *prefix, const char *msg) {
  rec->status = st;
  snprintf(rec->reason, sizeof rec->reason, "%s%.300s", prefix, msg);
}

static bool Measure_fill(Gpu *g, void *ptr, size_t n, uint64_t seed, char *err, size_t errsize) {
  unsigned blocks = (unsigned)((n + 255) / 256 > 4096 ? 4096 : (n + 255) / 256);
  unsigned long long nn = n, ss = seed;
  void *args[] = {&ptr, &nn, &ss};
  GPU_CHECK(cudaLaunchKernel((const void *)g->util.kernels[0], (dim3){blocks, 1, 1},
                             (dim3){256, 1, 1}, args, 0, g->stream),
            "filling inputs with random values");
  return true;
}

static bool Measure_poison(Gpu *g, void *ptr, size_t n, char *err, size_t errsize) {
  unsigned long long nn = n;
  unsigned short v = POISON_BITS;
  void *args[] = {&ptr, &nn, &v};
  unsigned blocks = (unsigned)((n + 255) / 256 > 4096 ? 4096 : (n + 255) / 256);
  GPU_CHECK(cudaLaunchKernel((const void *)g->util.kernels[1], (dim3){blocks, 1, 1},
                             (dim3){256, 1, 1}, args, 0, g->stream),
            "poisoning the output");
  return true;
}

bool Measure_flushL2(Gpu *g, char *err, size_t errsize) {
  void *ptr = g->buf.flush;
  unsigned long long n = g->buf.flush_bytes / 4;
  static unsigned v = 1;
  v++;
  void *args[] = {&ptr, &n, &v};
  GPU_CHECK(cudaLaunchKernel((const void *)g->util.kernels[2],
                             (dim3){DeviceProps_flushBlocks(&g->props), 1, 1}, (dim3){512, 1, 1},
                             args, 0, g->stream),
            "flushing L2");
  return true;
}

/* fp16 bits -> float, on the host. */
static float Measure_half(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    float f = ldexpf((float)man, -24);
    return sign ? -f : f;
  }
  if (exp == 31) bits = sign | 0x7f800000 | (man << 13);
  else bits = sign | ((exp + 112) << 23) | (man << 13);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static bool Measure_verify(Gpu *g, const Shape *s, double tol, ErrorStats *es, char *err,
                           size_t errsize) {
  size_t n = Shape_elems(s);
  uint16_t *o = Util_xmalloc(n * 2);
  float *ref = Util_xmalloc(n * 4);
  cudaError_t e = cudaMemcpyAsync(o, g->buf.o, n * 2, cudaMemcpyDeviceToHost, g->stream);
  if (e == cudaSuccess) e = cudaMemcpyAsync(ref, g->buf.ref, n * 4, cudaMemcpyDeviceToHost, g->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(g->stream);
  if (e != cudaSuccess) {
    free(o);
    free(ref);
    Gpu_errorText(e, "copying the output back", err, errsize);
    return false;
  }
  double num = 0, den = 0, maxabs = 0;
  int64_t nan = 0, inf = 0, unwritten = 0;
  for (size_t i = 0; i < n; i++) {
    if (o[i] == POISON_BITS) { unwritten++; continue; }
    float x = Measure_half(o[i]);
    if (isnan(x)) { nan++; continue; }
    if (isinf(x)) { inf++; continue; }
    double d = (double)x - (double)ref[i];
    num += d * d;
    den += (double)ref[i] * ref[i];
    if (fabs(d) > maxabs) maxabs = fabs(d);
  }
  free(o);
  free(ref);
  es->checked = true;
  es->max_abs = maxabs;
  es->rel_l2 = den > 0 ? sqrt(num / den) : sqrt(num);
  es->nan_count = nan;
  es->inf_count = inf;
  es->unwritten = unwritten;
  es->tolerance = tol;
  return true;
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
static void Measure_kernelFacts(Gpu *g, const Variant *v, const KnobValues *kv, GpuModule *m,
                                const Shape *s, Record *rec) {
  if (v->nsteps < 1) return;
  rec->build = m->build;
  /* The attention kernel is the step with the most registers (not a quantize or combine step). */
  int main_step = v->nsteps - 1;
  struct cudaFuncAttributes fa, fi;
  bool have = cudaFuncGetAttributes(&fa, (const void *)m->kernels[main_step]) == cudaSuccess;
  for (int i = 0; have && i < v->nsteps; i++)
    if (cudaFuncGetAttributes(&fi, (const void *)m->kernels[i]) == cudaSuccess &&
        fi.numRegs > fa.numRegs) {
      main_step = i;
      fa = fi;
    }
  LaunchDims d;
  v->steps[main_step].dims(s, kv, &g->props, &d);
  rec->build.smem_dynamic = (int)d.smem;
  if (have) {
    rec->build.regs = fa.numRegs;
    rec->build.smem_static = (int)fa.sharedSizeBytes;
    /* No ptxas report when NVRTC served the build from its own cache: the loaded kernel's local
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

typedef struct TimedRun {
  Gpu *g;
  const Variant *v;
  const KnobValues *kv;
  GpuModule *m;
  const AttnParams *p;
} TimedRun;

/* The samples: kernel timestamps when they came for every launch, else the events (with the
 * reason kept, so the record says which clock it holds and why). */
static void Measure_samples(Timing *out, const double *events_us, const double *kernel_us, int n,
                            const char *kc_err) {
  out->samples = Util_xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  out->nsamples = n;
  Stats_compute(events_us, n, out);
  out->event_p50 = out->p50;
  const double *src = kernel_us ? kernel_us : events_us;
  memcpy(out->samples, src, sizeof(double) * (size_t)n);
  Util_strlcpy(out->source, kernel_us ? "kernel" : "events", sizeof out->source);
  if (kc_err) Util_strlcpy(out->source_note, kc_err, sizeof out->source_note);
  Stats_compute(out->samples, n, out);
}

/* Warm-up, then reps timed one launch (or one graph replay) at a time. */
static bool Measure_time(TimedRun *t, const RunOptions *o, Timing *out, volatile int *cancel,
                         void (*progress)(const char *phase, void *user), void *user, char *err,
                         size_t errsize) {
  Gpu *g = t->g;
  double t0 = Util_nowMs();
  int warm = 0;
  /* At least `warmup` launches and 50 ms of work, so clocks and caches settle (capped). */
  while (warm < o->warmup || (Util_nowMs() - t0 < 50.0 && warm < 20000)) {
    if (!Gpu_runVariant(g, t->v, t->kv, t->m, t->p, err, errsize)) return false;
    if (++warm % 32 == 0) GPU_CHECK(cudaStreamSynchronize(g->stream), "warm-up");
  }
  GPU_CHECK(cudaStreamSynchronize(g->stream), "warm-up");
  if (*cancel) return true;
  /* Reps are enqueued in chunks of about half a second of GPU work, each followed by a word
   * of progress, so a long timing phase never looks like a hang to the watchdog. */
  const double launch_ms = (Util_nowMs() - t0) / (warm > 0 ? warm : 1);

  int reps = o->reps > 0 ? o->reps : 1;
  int per_graph = (o->graph && !o->cold_l2) ? 10 : 1;
  int chunk = (int)(500.0 / (launch_ms * per_graph + 1e-3));
  if (chunk < 1) chunk = 1;
  if (chunk > 64) chunk = 64;
  cudaGraphExec_t exec = NULL;
  if (o->graph) {
    cudaGraph_t graph;
    GPU_CHECK(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeThreadLocal), "starting graph capture");
    bool ok = true;
    for (int i = 0; i < per_graph && ok; i++) ok = Gpu_runVariant(g, t->v, t->kv, t->m, t->p, err, errsize);
    cudaError_t e = cudaStreamEndCapture(g->stream, &graph);
    if (!ok) return false;
    GPU_CHECK(e, "ending graph capture");
    e = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    GPU_CHECK(e, "instantiating the graph");
    GPU_CHECK(cudaGraphLaunch(exec, g->stream), "warming the graph");
  }
  cudaEvent_t *ev = Util_xmalloc(sizeof(cudaEvent_t) * (size_t)reps * 2);
  bool ok = true;
  int made = 0;
  for (; made < 2 * reps; made++) {
    cudaError_t e = cudaEventCreate(&ev[made]);
    if (e != cudaSuccess) {
      Gpu_errorText(e, "creating timing events", err, errsize);
      ok = false;
      break;
    }
  }
  char kc_err[200] = "";
  bool kclock = false;
  if (o->event_timing) Util_strlcpy(kc_err, "events asked for (--timing events)", sizeof kc_err);
  else kclock = KernelClock_begin(kc_err, sizeof kc_err);
  if (!kclock && g->profiler) Profiler_disable(g->profiler); /* events would see it */
  int launched = 0;
  for (int i = 0; ok && i < reps; i++) {
    if (o->cold_l2) ok = Measure_flushL2(g, err, errsize);
    if (!ok) break;
    cudaEventRecord(ev[2 * i], g->stream);
    launched = i + 1;
    if (kclock) KernelClock_mark((uint64_t)i + 1);
    if (exec) {
      cudaError_t e = cudaGraphLaunch(exec, g->stream);
      if (e != cudaSuccess) { Gpu_errorText(e, "replaying the graph", err, errsize); ok = false; }
    } else {
      ok = Gpu_runVariant(g, t->v, t->kv, t->m, t->p, err, errsize);
    }
    if (kclock) KernelClock_unmark();
    cudaEventRecord(ev[2 * i + 1], g->stream);
    if (i % chunk == chunk - 1) {
      if (*cancel) break;
      /* A long timing phase is progress, not a hang: the watchdog counts from the last word.
       * Waiting for the last batch here keeps the report honest (the reps did finish). */
      cudaError_t se = cudaEventSynchronize(ev[2 * i + 1]);
      if (se != cudaSuccess) { Gpu_errorText(se, "timed launches", err, errsize); ok = false; break; }
      progress("timing", user);
    }
  }
  cudaError_t e = cudaStreamSynchronize(g->stream);
  if (ok && e != cudaSuccess) {
    Gpu_errorText(e, "timed launches", err, errsize);
    ok = false;
  }
  double *kernel_us = NULL, *events_us = NULL;
  if (kclock) {
    /* Always ended, so tracing never stays on after a failure. */
    kernel_us = Util_xmalloc(sizeof(double) * (size_t)(launched > 0 ? launched : 1));
    if (!KernelClock_end(launched, kernel_us, kc_err, sizeof kc_err)) {
      free(kernel_us);
      kernel_us = NULL;
    }
  }
  if (ok) {
    events_us = Util_xmalloc(sizeof(double) * (size_t)(launched > 0 ? launched : 1));
    int n = 0;
    for (; n < launched; n++) {
      float ms = 0;
      if (cudaEventElapsedTime(&ms, ev[2 * n], ev[2 * n + 1]) != cudaSuccess) break;
      events_us[n] = ms * 1000.0 / per_graph;
      if (kernel_us) kernel_us[n] /= per_graph;
    }
    Measure_samples(out, events_us, kernel_us, n, kc_err[0] ? kc_err : NULL);
  }
  free(kernel_us);
  free(events_us);
  for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
  free(ev);
  if (exec) cudaGraphExecDestroy(exec);
  return ok;
}

static bool Measure_died(Record *rec, const char *err) {
  /* A sticky error poisons the context: report it and let the parent start a new worker. */
  Measure_fail(rec, REC_ERROR, "", err);
  cudaError_t e = cudaDeviceSynchronize();
  return !Gpu_isSticky(e) && !Gpu_isSticky(cudaGetLastError());
}

bool Measure_entry(Gpu *g, const PlanEntry *e, Record *rec, volatile int *cancel,
                   void (*progress)(const char *phase, void *user), void *user) {
  char err[RECORD_REASON_MAX] = "", why[RECORD_REASON_MAX];
  const Variant *v = e->variant;
  const Shape *s = &e->shape;
  Record_init(rec);
  Util_strlcpy(rec->variant, v->name, sizeof rec->variant);
  Registry_formatKnobs(v, &e->knobs, rec->knobs, sizeof rec->knobs);
  rec->shape = *s;
  rec->opts = e->opts;
  rec->device = g->info;
  Util_isoTime(rec->created, sizeof rec->created);

  if (Registry_supports(v, s, &e->knobs, &g->props, why, sizeof why)) {
    Measure_fail(rec, REC_NA, "n/a: ", why);
    return true;
  }
  BufferNeeds need = {.elems = Shape_elems(s), .bh = s->B * s->H, .D = s->D,
                      .cold_l2 = e->opts.cold_l2};
  need.workspace_bytes = v->workspace_bytes ? v->workspace_bytes(s, &e->knobs) : 0;
  int splits = v->num_splits ? v->num_splits(s, &e->knobs, &g->props) : 1;
  if (splits > 1) need.partial_elems = (size_t)splits * need.elems;
  if (!Buffers_ensure(g, &need, err, sizeof err)) {
    Measure_fail(rec, REC_NA, "n/a: ", err);
    return true;
  }

  progress("compiling", user);
  GpuModule *m = Gpu_module(g, v, &e->knobs, s->D, err, sizeof err);
  if (!m) {
    Measure_fail(rec, REC_ERROR, "compile: ", err);
    return true;
  }
  Measure_kernelFacts(g, v, &e->knobs, m, s, rec);

  AttnParams p;
  memset(&p, 0, sizeof p);
  p.q = g->buf.q; p.k = g->buf.k; p.v = g->buf.v; p.o = g->buf.o;
  p.workspace = g->buf.workspace;
  p.q8 = g->buf.q8; p.k8 = g->buf.k8; p.v8 = g->buf.v8;
  if (g->buf.scales) {
    p.q_scale = g->buf.scales;
    p.k_scale = g->buf.scales + need.bh;
    p.v_scale = g->buf.scales + 2 * need.bh;
  }
  p.o_f32 = g->buf.partial_o;
  p.lse = g->buf.partial_lse;
  p.B = s->B; p.H = s->H; p.S = s->S; p.D = s->D;
  p.causal = s->causal;
  p.num_splits = splits;
  p.scale = (float)(1.0 / sqrt((double)s->D));
  if (!TensorMaps_fill(v, &e->knobs, s, &p, err, sizeof err)) {
    Measure_fail(rec, REC_ERROR, "", err);
    return true;
  }

  /* Fresh inputs, the reference, a poisoned output, then one verified run. */
  progress("verifying", user);
  uint64_t seed = e->opts.seed;
  rec->opts.seed = seed;
  AttnParams rp = p;
  rp.o_f32 = g->buf.ref;
  LaunchDims rd;
  Reference_dims(s, &rd);
  if (!Measure_fill(g, g->buf.q, need.elems, seed * 3 + 1, err, sizeof err) ||
      !Measure_fill(g, g->buf.k, need.elems, seed * 3 + 2, err, sizeof err) ||
      !Measure_fill(g, g->buf.v, need.elems, seed * 3 + 3, err, sizeof err) ||
      !Gpu_launch(g, g->reference.kernels[0], &rd, &rp, err, sizeof err) ||
      !Measure_poison(g, g->buf.o, need.elems, err, sizeof err))
    return Measure_died(rec, err);
  if (!Gpu_runVariant(g, v, &e->knobs, m, &p, err, sizeof err)) return Measure_died(rec, err);
  cudaError_t ce = cudaStreamSynchronize(g->stream);
  if (ce != cudaSuccess) {
    Gpu_errorText(ce, "the kernel faulted", err, sizeof err);
    return Measure_died(rec, err);
  }
  if (!Measure_verify(g, s, v->tolerance, &rec->error, err, sizeof err)) return Measure_died(rec, err);
  const ErrorStats *es = &rec->error;
  bool pass = es->nan_count == 0 && es->inf_count == 0 && es->unwritten == 0 &&
              es->rel_l2 <= es->tolerance;
  rec->status = pass ? REC_PASS : REC_FAIL;
  if (!pass)
    snprintf(rec->reason, sizeof rec->reason,
             "verification failed: rel L2 %.3g (tolerance %.3g), %lld NaN, %lld Inf, %lld unwritten",
             es->rel_l2, es->tolerance, (long long)es->nan_count, (long long)es->inf_count,
             (long long)es->unwritten);
  if (*cancel) {
    rec->status = REC_CANCELLED;
    return true;
  }

  progress("timing", user);
  /* Events around a launch see an enabled range profiler (~0.1 us); kernel timestamps do not. */
  if (e->opts.event_timing && g->profiler) Profiler_disable(g->profiler);
  Measure_clocks(g, &rec->clocks, false);
  TimedRun t = {g, v, &e->knobs, m, &p};
  if (!Measure_time(&t, &e->opts, &rec->timing, cancel, progress, user, err, sizeof err))
    return Measure_died(rec, err);
  Measure_clocks(g, &rec->clocks, true);
  if (*cancel && rec->timing.nsamples == 0) {
    rec->status = REC_CANCELLED;
    return true;
  }
  double flops = Shape_flops(s);
  rec->timing.tflops = flops / (rec->timing.p50 * 1e-6) / 1e12;
  rec->device.peak_tflops = Peak_fp16Tflops(g);
  rec->timing.peak_frac = rec->timing.tflops / rec->device.peak_tflops;

  if (strcmp(e->metrics, "none") != 0 && !*cancel) {
    progress("profiling", user);
    Metrics_collectForEntry(g, e, m, &p, rec);
    ce = cudaDeviceSynchronize();
    if (ce != cudaSuccess) {
      Gpu_errorText(ce, "after metric collection", err, sizeof err);
      return Measure_died(rec, err);
    }
  }
  return true;
}
