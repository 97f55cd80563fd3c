/* benchtop replay: re-run a session's recorded plan on this GPU into a new session, then print
 * the diff against the original. The original file is only read. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "cmd/run_loop.h"
#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/diff.h"

static int Replay_exec(int argc, char **argv) {
  static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'}, {"fail-above", required_argument, NULL, 'F'},
    {"format", required_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  const char *out_path = NULL;
  double fail_above = NAN;
  OutputFormat fmt = FMT_TABLE;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "o:f:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': out_path = optarg; break;
    case 'F': {
      char *end;
      fail_above = strtod(optarg, &end);
      if (*end || !(fail_above >= 0)) {
        fprintf(stderr, "benchtop replay: --fail-above needs a percentage, not '%s'\n", optarg);
        return BT_EXIT_USAGE;
      }
      break;
    }
    case 'f':
      if (!Export_parseFormat(optarg, &fmt)) {
        fprintf(stderr, "benchtop replay: unknown format '%s' (table, json, csv or md)\n", optarg);
        return BT_EXIT_USAGE;
      }
      break;
    case 'h': printf("usage: benchtop replay %s\n", Cmd_replay.usage); return BT_EXIT_OK;
    default: return BT_EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "benchtop replay: needs exactly one SESSION.json (try benchtop replay --help)\n");
    return BT_EXIT_USAGE;
  }
  const char *in = argv[optind];
  Session old;
  char err[512];
  if (!Session_load(in, &old, err, sizeof err)) {
    fprintf(stderr, "benchtop replay: %s\n", err);
    return BT_EXIT_FAILED;
  }
  if (old.plan.nvariants == 0 || old.plan.nshapes == 0) {
    fprintf(stderr, "benchtop replay: %s holds no plan to re-run\n", in);
    Session_free(&old);
    return BT_EXIT_FAILED;
  }
  if (out_path && strcmp(out_path, in) == 0) {
    fprintf(stderr, "benchtop replay: -o must name a new file, not the session being replayed\n");
    Session_free(&old);
    return BT_EXIT_USAGE;
  }
  Plan plan;
  Plan_copy(&plan, &old.plan);
  Plan_defaultOptions(&plan.opts); /* a fresh seed; the recorded timing options below */
  plan.opts.reps = old.plan.opts.reps > 0 ? old.plan.opts.reps : plan.opts.reps;
  plan.opts.warmup = old.plan.opts.warmup >= 0 ? old.plan.opts.warmup : plan.opts.warmup;
  plan.opts.cold_l2 = old.plan.opts.cold_l2;
  plan.opts.graph = old.plan.opts.graph;
  plan.opts.event_timing = old.plan.opts.event_timing;
  if (old.plan.opts.watchdog_s > 0) plan.opts.watchdog_s = old.plan.opts.watchdog_s;
  Session now;
  int rc = RunLoop_run(&plan, out_path, fmt, &now);
  Plan_free(&plan);
  if (rc != BT_EXIT_NO_GPU && rc != BT_EXIT_USAGE) {
    printf("\ndiff %s -> %s\n", in, now.path);
    int regressions = Diff_print(stdout, &old, &now, fail_above, fmt);
    if (regressions > 0 && rc == BT_EXIT_OK) rc = BT_EXIT_FAILED;
  }
  if (rc != BT_EXIT_USAGE) Session_free(&now);
  Session_free(&old);
  return rc;
}

const Command Cmd_replay = {
  "replay", "SESSION.json [-o NEW.json] [--fail-above PCT] [--format table|json|csv|md]",
  "re-run a session's plan on this GPU into a new session and print the diff", Replay_exec};
