/* Timing one entry (see measure_private.h): warm-up, an optional CUDA graph, the timed
 * launches between CUDA events with CUPTI kernel timestamps beside them, and the samples. Every
 * piece releases what it made on its own error path; Measure_time releases the rest once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/worker/measure_private.h"
#include "bench/stats.h"
#include "common/util.h"
#include "cupti/kernel_clock.h"
#include "cupti/profiler.h"

/* What the timed launches need and what they make. */
typedef struct TimedLaunches {
  const TimedRun *t;
  int reps;
  int per_launch;         /* variant runs per timed launch: a graph replays several */
  int chunk;              /* reps between progress words */
  bool cold_l2;
  cudaGraphExec_t exec;   /* NULL: the variant is launched directly */
  cudaEvent_t *ev;        /* two per rep */
  int nevents;            /* created so far */
  bool kclock;            /* kernel timestamps being recorded */
  char kc_err[200];       /* why not, or why they failed */
  int launched;           /* reps enqueued */
  WorkCheck chk;          /* which direct launches are checked for work */
  double gap_ms;          /* pauses: idle time before each time block, */
  double first_gap_ms;    /* and before the first (after the warm-up's sustained load) */
  int warm_per_block;     /* --span: untimed launches that start each block after its gap */
} TimedLaunches;

/* Pauses (--span, or by default where the timed launches would run back to back for at least
 * MEASURE_AUTO_PAUSE_BUSY_MS): eight blocks, each after an idle gap of at least
 * MEASURE_PAUSE_MS, the first after MEASURE_FIRST_PAUSE_MS (the warm-up's load takes longer to
 * wear off: 27 ms left the first block 12 % slow at 4x16x2048x128 on an H100, 200 ms did not;
 * 15 ms sufficed between blocks, 2 ms did not). 4.2 ms back to back (cuDNN at
 * 4x16x2048x128:causal, 30 reps) still caught the slow state in replays (+6 to +9 %); runs of
 * under 1 ms (the 2x8x512x64 ladder) agreed from process to process. */
#define MEASURE_AUTO_PAUSE_BUSY_MS 2.0
#define MEASURE_AUTO_PAUSE_LAUNCH_MS 5.0
#define MEASURE_PAUSE_MS 30.0
#define MEASURE_FIRST_PAUSE_MS 200.0

/* Whether the timed launches go in blocks after pauses: --span asks; --span 0 (span_s < 0) or a
 * graph never; by default where reps launches of launch_ms (the warm-up's mean) would run back
 * to back for MEASURE_AUTO_PAUSE_BUSY_MS or more, unless one launch is long itself (a slow
 * kernel: reps are few). */
static bool Measure_pauses(const RunOptions *o, double launch_ms, int reps) {
  if (o->graph || o->span_s < 0) return false;
  if (o->span_s > 0) return true;
  return launch_ms < MEASURE_AUTO_PAUSE_LAUNCH_MS && reps * launch_ms >= MEASURE_AUTO_PAUSE_BUSY_MS;
}

/* A slow kernel's timed phase is kept near this long: its reps are cut, with a note. */
#define MEASURE_SLOW_BUDGET_MS 20000.0
/* Fewest timed launches of a slow kernel. */
#define MEASURE_SLOW_MIN_REPS 3

/* At least `warmup` launches and 50 ms of work, so clocks and caches settle (capped); the mean
 * wall time per launch sizes the progress chunks. */
static bool Measure_warmUp(const TimedRun *t, int warmup, double *launch_ms,
                           MeasureProgress progress, void *user, char *err, size_t errsize) {
  Gpu *g = t->g;
  double t0 = Util_nowMs(), said = t0;
  /* A slow kernel waits for each launch and says so, so the watchdog sees it progress. */
  int sync_every = t->launch_ms > 8.0 ? 1 : 32;
  int warm = 0;
  while (warm < warmup || (Util_nowMs() - t0 < 50.0 && warm < 20000)) {
    if (!Gpu_runVariant(g, t->v, t->kv, t->m, t->p, err, errsize)) return false;
    if (++warm % sync_every == 0 && !Gpu_ok(cudaStreamSynchronize(g->stream), "warm-up", err, errsize))
      return false;
    if (sync_every == 1 && Util_nowMs() - said > 500.0) {
      progress("warming up", t->launch_ms, user);
      said = Util_nowMs();
    }
  }
  if (!Gpu_ok(cudaStreamSynchronize(g->stream), "warm-up", err, errsize)) return false;
  *launch_ms = (Util_nowMs() - t0) / (warm > 0 ? warm : 1);
  return true;
}

/* per_launch runs of the variant captured into one graph, instantiated and replayed once. */
static bool Measure_captureGraph(const TimedRun *t, int per_launch, cudaGraphExec_t *exec,
                                 char *err, size_t errsize) {
  Gpu *g = t->g;
  *exec = NULL;
  if (!Gpu_ok(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeThreadLocal),
              "starting graph capture", err, errsize))
    return false;
  bool ok = true;
  for (int i = 0; i < per_launch && ok; i++)
    ok = Gpu_runVariant(g, t->v, t->kv, t->m, t->p, err, errsize);
  cudaGraph_t graph = NULL;
  cudaError_t e = cudaStreamEndCapture(g->stream, &graph); /* always: the stream leaves capture */
  if (ok) ok = Gpu_ok(e, "ending graph capture", err, errsize);
  if (ok) ok = Gpu_ok(cudaGraphInstantiate(exec, graph, 0), "instantiating the graph", err, errsize);
  if (graph) cudaGraphDestroy(graph);
  if (ok) ok = Gpu_ok(cudaGraphLaunch(*exec, g->stream), "warming the graph", err, errsize);
  if (!ok && *exec) {
    cudaGraphExecDestroy(*exec);
    *exec = NULL;
  }
  return ok;
}

static bool Measure_createEvents(TimedLaunches *l, char *err, size_t errsize) {
  l->ev = Util_xmalloc(sizeof(cudaEvent_t) * (size_t)l->reps * 2);
  for (; l->nevents < 2 * l->reps; l->nevents++)
    if (!Gpu_ok(cudaEventCreate(&l->ev[l->nevents]), "creating timing events", err, errsize))
      return false;
  return true;
}

/* Kernel timestamps unless events were asked for; an enabled range profiler would add ~0.1 us
 * to every event-timed launch, so it is disabled when events are the clock. */
static void Measure_startClock(TimedLaunches *l, const RunOptions *o) {
  if (o->event_timing) Util_strlcpy(l->kc_err, "events asked for (--timing events)", sizeof l->kc_err);
  else l->kclock = KernelClock_begin(l->kc_err, sizeof l->kc_err);
  if (!l->kclock && l->t->g->profiler) Profiler_disable(l->t->g->profiler);
}

/* Rep i: the flush (outside the events), the events, the launch under kernel-clock mark i+1. */
static bool Measure_launchTimed(TimedLaunches *l, int i, char *err, size_t errsize) {
  Gpu *g = l->t->g;
  /* A large shape's direct launches rotate through the replicate outputs; the work checks
   * poison and compare the output this launch writes. */
  TimedRun ti = *l->t;
  if (!l->exec && ti.rep && ti.rep->n > 1) ti.p = Replicates_params(ti.rep, i, l->reps);
  const TimedRun *t = &ti;
  if (l->cold_l2 && !Measure_flushL2(g, err, errsize)) return false;
  if (!l->exec && !WorkCheck_before(&l->chk, t, i, err, errsize)) return false;
  cudaEventRecord(l->ev[2 * i], g->stream);
  l->launched = i + 1;
  if (l->kclock) KernelClock_mark((uint64_t)i + 1);
  bool ok = l->exec ? Gpu_ok(cudaGraphLaunch(l->exec, g->stream), "replaying the graph", err, errsize)
                    : Gpu_runVariant(g, t->v, t->kv, t->m, t->p, err, errsize);
  if (l->kclock) KernelClock_unmark();
  cudaEventRecord(l->ev[2 * i + 1], g->stream);
  return ok && (l->exec || WorkCheck_after(&l->chk, t, i, err, errsize));
}

/* After graph replays (which cannot be poisoned one run at a time): ten direct launches, each
 * poisoned and checked, outside the timed region. */
static bool Measure_checkAfterGraph(const TimedRun *t, char *cheat, size_t cheatsize, char *err,
                                    size_t errsize) {
  enum { N = 10 };
  WorkCheck c;
  bool ok = WorkCheck_plan(&c, N, true, t->seed, err, errsize);
  for (int i = 0; ok && i < N; i++)
    ok = WorkCheck_before(&c, t, i, err, errsize) &&
         Gpu_runVariant(t->g, t->v, t->kv, t->m, t->p, err, errsize) &&
         WorkCheck_after(&c, t, i, err, errsize);
  ok = ok && Gpu_ok(cudaStreamSynchronize(t->g->stream), "checking launches after the graph", err, errsize);
  ok = ok && WorkCheck_read(&c, t, N, cheat, cheatsize, err, errsize);
  WorkCheck_free(&c);
  return ok;
}

/* Reps for a kernel whose one launch takes launch_ms: all asked for, unless that is far over
 * the slow budget; then fewer, with the note in reason. */
static int Measure_reps(int reps, double launch_ms, char *reason, size_t rsize) {
  if (!(launch_ms > 0) || reps * launch_ms <= MEASURE_SLOW_BUDGET_MS) return reps;
  int cut = (int)(MEASURE_SLOW_BUDGET_MS / launch_ms);
  if (cut < MEASURE_SLOW_MIN_REPS) cut = MEASURE_SLOW_MIN_REPS;
  if (cut >= reps) return reps;
  size_t len = strlen(reason);
  snprintf(reason + len, rsize - len, "%sslow: reps reduced to %d of %d (one launch takes %.3g s)",
           len ? "; " : "", cut, reps, launch_ms / 1000.0);
  return cut;
}

/* --span: before the first launch of each time block (the first one too), the GPU finishes what
 * it was doing, sits idle for the gap (saying so at least every 200 ms, for the watchdog), then
 * runs a few untimed launches so the block does not time the clock's climb back. Every block so
 * starts from the same state: a large kernel timed straight after its warm-up runs up to 13 %
 * slower than after a pause (fa3 at 4x16x2048x128 on an H100: 216-237 us back to back against
 * 207.5 us in every block after a gap; docs/statistics.md). */
static bool Measure_spanGap(TimedLaunches *l, int i, volatile int *cancel, MeasureProgress progress,
                            void *user, char *err, size_t errsize) {
  const TimedRun *t = l->t;
  const Replicates *r = t->rep;
  if (!r || (i > 0 && Replicates_blockOf(r, i, l->reps) == Replicates_blockOf(r, i - 1, l->reps)))
    return true;
  if (!Gpu_ok(i > 0 ? cudaEventSynchronize(l->ev[2 * i - 1]) : cudaStreamSynchronize(t->g->stream),
              "timed launches", err, errsize))
    return false;
  for (double left = i == 0 ? l->first_gap_ms : l->gap_ms; left > 0 && !*cancel; left -= 200.0) {
    double ms = left < 200.0 ? left : 200.0;
    struct timespec ts = {(time_t)(ms / 1000.0), (long)(fmod(ms, 1000.0) * 1e6)};
    nanosleep(&ts, NULL);
    progress("timing", t->launch_ms, user);
  }
  const AttnParams *p = r->n > 1 ? Replicates_params(r, i, l->reps) : t->p;
  for (int k = 0; k < l->warm_per_block; k++)
    if (!Gpu_runVariant(t->g, t->v, t->kv, t->m, p, err, errsize)) return false;
  return true;
}

/* The reps, enqueued in chunks of about half a second of GPU work, each followed by a word of
 * progress: a long timing phase is progress, not a hang, to the watchdog. Waiting for each
 * chunk keeps the report honest (those reps did finish). */
static bool Measure_timedLoop(TimedLaunches *l, volatile int *cancel, MeasureProgress progress,
                              void *user, char *err, size_t errsize) {
  for (int i = 0; i < l->reps; i++) {
    if (l->gap_ms > 0 && !Measure_spanGap(l, i, cancel, progress, user, err, errsize)) return false;
    if (*cancel) break;
    if (!Measure_launchTimed(l, i, err, errsize)) return false;
    if (i % l->chunk != l->chunk - 1) continue;
    if (*cancel) break;
    if (!Gpu_ok(cudaEventSynchronize(l->ev[2 * i + 1]), "timed launches", err, errsize))
      return false;
    progress("timing", l->t->launch_ms, user);
  }
  return true;
}

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

/* Where the p50 goes, kernel by kernel (multi-kernel variants: fp8's quantize, mma's split and
 * combine, cuBLAS's GEMMs and softmax), from the kernel timestamps just read. */
static void Measure_breakdown(TimedLaunches *l, Record *rec) {
  KernelSpan spans[RECORD_KERNELS_MAX];
  int n = KernelClock_lastBreakdown(l->launched, l->per_launch, spans, RECORD_KERNELS_MAX);
  if (n <= 0 || !(rec->timing.p50 > 0)) return;
  for (int i = 0; i < n; i++) spans[i].share = spans[i].p50_us / rec->timing.p50;
  rec->kernels = Util_xmalloc(sizeof *rec->kernels * (size_t)n);
  memcpy(rec->kernels, spans, sizeof *rec->kernels * (size_t)n);
  rec->nkernels = n;
}

/* Ends the kernel clock (always, so tracing never stays on after a failure); when the launches
 * went well, reads both clocks per launch into the record. */
static void Measure_readClocks(TimedLaunches *l, bool ok, Record *rec) {
  Timing *out = &rec->timing;
  int n = l->launched;
  double *kernel_us = NULL;
  if (l->kclock) {
    kernel_us = Util_xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!KernelClock_end(n, kernel_us, l->kc_err, sizeof l->kc_err)) {
      free(kernel_us);
      kernel_us = NULL;
    }
  }
  if (ok) {
    double *events_us = Util_xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    int k = 0;
    for (; k < n; k++) {
      float ms = 0;
      if (cudaEventElapsedTime(&ms, l->ev[2 * k], l->ev[2 * k + 1]) != cudaSuccess) break;
      events_us[k] = ms * 1000.0 / l->per_launch;
      if (kernel_us) kernel_us[k] /= l->per_launch;
    }
    Measure_samples(out, events_us, kernel_us, k, l->kc_err[0] ? l->kc_err : NULL);
    free(events_us);
    if (kernel_us) Measure_breakdown(l, rec);
  }
  free(kernel_us);
}

static void Measure_release(TimedLaunches *l) {
  for (int i = 0; i < l->nevents; i++) cudaEventDestroy(l->ev[i]);
  free(l->ev);
  if (l->exec) cudaGraphExecDestroy(l->exec);
  WorkCheck_free(&l->chk);
  memset(l, 0, sizeof *l);
}

bool Measure_time(const TimedRun *t, const RunOptions *o, Record *rec, volatile int *cancel,
                  MeasureProgress progress, void *user, char *cheat, size_t cheatsize, char *err,
                  size_t errsize) {
  double launch_ms = 0;
  int reps = Measure_reps(o->reps > 0 ? o->reps : 1, t->launch_ms, rec->reason, sizeof rec->reason);
  int warmup = t->launch_ms * o->warmup > MEASURE_SLOW_BUDGET_MS / 4 ? 1 : o->warmup;
  if (!Measure_warmUp(t, warmup, &launch_ms, progress, user, err, errsize)) return false;
  if (*cancel) return true;
  TimedLaunches l = {.t = t, .reps = reps, .cold_l2 = o->cold_l2};
  l.per_launch = (o->graph && !o->cold_l2) ? 10 : 1;
  l.chunk = (int)(500.0 / (launch_ms * l.per_launch + 1e-3));
  l.chunk = l.chunk < 1 ? 1 : l.chunk > 64 ? 64 : l.chunk;
  if (t->rep) t->rep->span_blocks = Measure_pauses(o, launch_ms, reps) ? MEASURE_SPAN_BLOCKS : 0;
  int blocks = t->rep ? Replicates_spanBlocks(t->rep, reps) : 0;
  if (blocks) {
    double busy = reps * launch_ms, span = o->span_s > 0 ? o->span_s * 1000.0 : 0;
    l.gap_ms = busy < span ? (span - busy) / blocks : MEASURE_PAUSE_MS;
    if (l.gap_ms < MEASURE_PAUSE_MS) l.gap_ms = MEASURE_PAUSE_MS;
    l.first_gap_ms = l.gap_ms > MEASURE_FIRST_PAUSE_MS ? l.gap_ms : MEASURE_FIRST_PAUSE_MS;
    l.warm_per_block = (int)(2.0 / (launch_ms + 1e-3)) + 2; /* about 2 ms of launches */
    if (l.warm_per_block > 200) l.warm_per_block = 200;
  }
  bool ok = !o->graph || Measure_captureGraph(t, l.per_launch, &l.exec, err, errsize);
  ok = ok && (l.exec || WorkCheck_plan(&l.chk, l.reps, false, t->seed, err, errsize));
  ok = ok && Measure_createEvents(&l, err, errsize);
  if (ok) {
    Measure_startClock(&l, o);
    ok = Measure_timedLoop(&l, cancel, progress, user, err, errsize);
    /* Drained whatever happened: the clocks are read and the events freed after the work. */
    cudaError_t se = cudaStreamSynchronize(t->g->stream);
    ok = ok && Gpu_ok(se, "timed launches", err, errsize);
    Measure_readClocks(&l, ok, rec);
    if (ok && !l.exec && t->rep)
      Replicates_medians(t->rep, rec->timing.samples, rec->timing.nsamples, l.reps, &rec->timing);
    ok = ok && WorkCheck_read(&l.chk, t, l.launched, cheat, cheatsize, err, errsize);
    ok = ok && (!l.exec || Measure_checkAfterGraph(t, cheat, cheatsize, err, errsize));
  }
  Measure_release(&l);
  return ok;
}
