/* benchtop bench metrics: what collecting hardware metrics costs per record, measured the way
 * a user pays it. One warm worker runs the same entry alternately without and with metrics;
 * the cost is the difference of the median record wall times, the first pair (profiler set-up)
 * shown apart. Prints figures; asserts nothing. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "bench/runner.h"
#include "bench/stats.h"
#include "cmd/commands.h"
#include "common/util.h"
#include "cupti/profiler.h"

static int Bench_exec(int argc, char **argv) {
  static const struct option longopts[] = {
    {"variants", required_argument, NULL, 'v'}, {"shapes", required_argument, NULL, 's'},
    {"metrics", required_argument, NULL, 'm'}, {"pairs", required_argument, NULL, 'n'},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  const char *variant = "mma", *shape_text = "2x8x512x64", *metrics = "default";
  int pairs = 10;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "v:s:m:n:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'v': variant = optarg; break;
    case 's': shape_text = optarg; break;
    case 'm': metrics = optarg; break;
    case 'n': pairs = atoi(optarg); break;
    case 'h': printf("usage: benchtop bench %s\n", Cmd_bench.usage); return BT_EXIT_OK;
    default: return BT_EXIT_USAGE;
    }
  }
  if (optind != argc - 1 || strcmp(argv[optind], "metrics") != 0) {
    fprintf(stderr, "benchtop bench: the one benchmark is 'metrics' (benchtop bench metrics [-v V] [-s S])\n");
    return BT_EXIT_USAGE;
  }
  if (pairs < 2 || pairs > 1000) {
    fprintf(stderr, "benchtop bench: --pairs must be from 2 to 1000\n");
    return BT_EXIT_USAGE;
  }
  char err[256];
  PlanEntry e;
  memset(&e, 0, sizeof e);
  e.variant = Registry_find(variant);
  if (!e.variant) {
    fprintf(stderr, "benchtop bench: unknown variant '%s'\n", variant);
    return BT_EXIT_USAGE;
  }
  Registry_defaults(e.variant, &e.knobs);
  if (!Shape_parse(shape_text, &e.shape, err, sizeof err)) {
    fprintf(stderr, "benchtop bench: %s\n", err);
    return BT_EXIT_USAGE;
  }
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
        fprintf(stderr, "benchtop bench: record %d: %s %s\n", n, Record_statusName(ev.record.status), ev.record.reason);
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

const Command Cmd_bench = {
  "bench", "metrics [-v VARIANT] [-s SHAPE] [--metrics SPEC] [--pairs N]",
  "measure what metric collection adds per record (prints figures, asserts nothing)", Bench_exec};
