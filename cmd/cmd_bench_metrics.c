/* benchtop bench-metrics (hidden, for developers): what collecting hardware metrics costs per
 * record, measured the way a user pays it. One warm worker runs the same entry alternately
 * without and with metrics; the cost is the difference of the median record wall times, the
 * first pair (profiler set-up) shown apart. Prints figures; asserts nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "bench/runner/runner.h"
#include "bench/stats.h"
#include "cmd/commands.h"
#include "common/gpu_build.h"
#include "common/util.h"
#include "cupti/profiler.h"

enum { BM_VARIANT, BM_SHAPE, BM_METRICS, BM_PAIRS, BM_KERNELS, BM_NOPTS };

static const CommandOption bm_options[] = {
  [BM_VARIANT] = {.name = "variant", .short_name = 'v', .value = CMD_TEXT, .arg = "NAME",
                  .help = "the variant to run (default mma)", .complete = CMD_COMPLETE_VARIANT},
  [BM_SHAPE] = {.name = "shape", .short_name = 's', .value = CMD_TEXT, .arg = "SHAPE",
                .help = "the shape (default 2x8x512x64)", .complete = CMD_COMPLETE_SHAPES},
  [BM_METRICS] = {.name = "metrics", .short_name = 'm', .value = CMD_TEXT, .arg = "SPEC",
                  .help = "the metrics collected in every other record (default: default)"},
  [BM_PAIRS] = {.name = "pairs", .short_name = 'n', .value = CMD_INT, .arg = "N",
                .help = "records with and without metrics (default 10)", .lo = 2, .hi = 1000},
  [BM_KERNELS] = CMD_OPTION_KERNELS,
};

#if BENCHTOP_GPU
static int BenchMetrics_exec(const CommandArgs *args) {
  const char *variant = CommandArgs_text(args, BM_VARIANT, "mma");
  const char *shape_text = CommandArgs_text(args, BM_SHAPE, "2x8x512x64");
  const char *metrics = CommandArgs_text(args, BM_METRICS, "default");
  int pairs = (int)CommandArgs_int(args, BM_PAIRS, 10);
  char err[256];
  PlanEntry e;
  memset(&e, 0, sizeof e);
  if (strlen(metrics) >= sizeof e.metrics)
    return Command_usageError(&Cmd_benchMetrics, "--metrics: the list is %zu bytes; at most %zu",
                              strlen(metrics), sizeof e.metrics - 1);
  Command_kernelDirs(args, BM_KERNELS);
  e.variant = Registry_find(variant);
  if (!e.variant)
    return Command_usageError(&Cmd_benchMetrics, "unknown variant '%s' (benchtop list variants)", variant);
  Registry_defaults(e.variant, &e.knobs);
  if (!Shape_parse(shape_text, &e.shape, err, sizeof err))
    return Command_usageError(&Cmd_benchMetrics, "%s", err);
  Plan_defaultOptions(&e.opts);
  PlanEntry *list = Util_xmalloc(sizeof(PlanEntry) * (size_t)pairs * 2);
  for (int i = 0; i < 2 * pairs; i++) {
    list[i] = e;
    list[i].opts.seed += (uint64_t)i;
    Util_strlcpy(list[i].metrics, i % 2 ? metrics : "none", sizeof list[i].metrics);
  }
  Runner *r = Runner_new(NULL);
  Runner_submit(r, list, 2 * pairs);
  free(list);
  double *wall[2] = {Util_xmalloc(sizeof(double) * (size_t)pairs), Util_xmalloc(sizeof(double) * (size_t)pairs)};
  /* The records' own p50s too: collection must not slow the timed launches that follow. */
  double *p50[2] = {Util_xmalloc(sizeof(double) * (size_t)pairs), Util_xmalloc(sizeof(double) * (size_t)pairs)};
  int np50[2] = {0, 0};
  char source[16] = "";
  int got[2] = {0, 0}, n = 0, rc = BT_EXIT_OK;
  double last = -1, first_with = -1;
  bool done = false;
  while (!done) {
    RunnerEvent ev;
    while (Runner_poll(r, &ev)) {
      if (ev.kind == RUNNER_HELLO) last = Util_nowMs();
      if (ev.kind == RUNNER_NO_GPU) {
        fprintf(stderr, "benchtop: %s\n", ev.message);
        rc = BT_EXIT_NO_GPU;
      }
      if (ev.kind == RUNNER_FINISHED) done = true;
      if (ev.kind != RUNNER_RECORD) continue;
      double now = Util_nowMs(), ms = now - last;
      last = now;
      int with = n % 2;
      if (with && n == 1) first_with = ms;
      else wall[with][got[with]++] = ms;
      if (n >= 2) p50[with][np50[with]++] = ev.record.timing.p50; /* after the first collection */
      if (!source[0]) Util_strlcpy(source, ev.record.timing.source, sizeof source);
      else if (strcmp(source, ev.record.timing.source) != 0) Util_strlcpy(source, "mixed", sizeof source);
      if (ev.record.status != REC_PASS) {
        fprintf(stderr, "benchtop bench-metrics: record %d: %s %s\n", n, Record_statusName(ev.record.status), ev.record.reason);
        rc = BT_EXIT_FAILED;
      }
      Record_free(&ev.record);
      n++;
    }
    if (done) break;
    Runner_wait(r, 250);
  }
  Runner_free(r);
  if (rc == BT_EXIT_OK) {
    Timing a, b;
    Stats_compute(wall[0], got[0], &a);
    Stats_compute(wall[1], got[1], &b);
    printf("%s %s, metrics '%s', %d pairs in one warm worker\n", variant, shape_text, metrics, pairs);
    printf("record wall, no metrics:   median %.1f ms\n", a.p50);
    printf("record wall, with metrics: median %.1f ms (first, with profiler set-up: %.1f ms)\n", b.p50, first_with);
    printf("metrics add %.1f ms per record after the first\n", b.p50 - a.p50);
    Timing pa, pb;
    Stats_compute(p50[0], np50[0], &pa);
    Stats_compute(p50[1], np50[1], &pb);
    /* The worker asks to keep the profiler enabled when timing by kernel timestamps, as these
     * entries do; the environment may override it. */
    printf("timed p50 (clock: %s), records after the first collection: median %.3f us without "
           "metrics, %.3f us with (profiler kept enabled: %s)\n", source, pa.p50, pb.p50,
           Profiler_keepEnabledFor(true) ? "yes" : "no");
  }
  free(p50[0]);
  free(p50[1]);
  free(wall[0]);
  free(wall[1]);
  return rc;
}

#endif

const Command Cmd_benchMetrics = {
  .name = "bench-metrics",
  .summary = "measure what metric collection adds per record",
  .description = "A developer measurement: one warm worker runs the same entry alternately "
                 "without and with metrics and prints the difference of the median record wall "
                 "times, and the timed p50s of both halves. Prints figures, asserts nothing "
                 "(tests/gpu/gpu_metrics_cost.sh checks them).",
  .options = bm_options, .noptions = BM_NOPTS,
  .flags = CMD_HIDDEN | CMD_NEEDS_GPU,
  .exec = CMD_GPU_BUILD_EXEC(BenchMetrics_exec),
};
