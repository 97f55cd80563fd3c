/* benchtop replay: re-run a session's recorded plan on this GPU into a new session, then print
 * the diff against the original. The original file is only read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "cmd/run_loop.h"
#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/diff.h"

enum { REPLAY_OUTPUT, REPLAY_FAIL_ABOVE, REPLAY_FORMAT, REPLAY_NOPTS };

static const CommandOption replay_options[] = {
  [REPLAY_OUTPUT] = {.name = "output", .short_name = 'o', .value = CMD_TEXT, .arg = "NEW.json",
                     .help = "where the new session goes (default: a new file in the sessions "
                             "directory)", .complete = CMD_COMPLETE_SESSION},
  [REPLAY_FAIL_ABOVE] = {.name = "fail-above", .value = CMD_NUMBER, .arg = "PCT",
                         .help = "exit 1 when a record's p50 got more than PCT % slower than "
                                 "recorded (or it no longer passes)", .lo = 0, .hi = 1e9},
  [REPLAY_FORMAT] = CMD_OPTION_FORMAT,
};

static const CommandArg replay_args[] = {
  {"SESSION.json", "the session whose plan is re-run (only read)", NULL, CMD_COMPLETE_SESSION, 0},
};

static int Replay_exec(const CommandArgs *a) {
  const char *out_path = CommandArgs_text(a, REPLAY_OUTPUT, NULL);
  double fail_above = CommandArgs_number(a, REPLAY_FAIL_ABOVE, NAN);
  OutputFormat fmt = (OutputFormat)Command_format(a, REPLAY_FORMAT);
  const char *in = a->pos[0];
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
    Session_free(&old);
    return Command_usageError(&Cmd_replay, "-o must name a new file, not the session being replayed");
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
    DiffOptions o;
    Diff_defaultOptions(&o);
    o.fail_above_pct = fail_above;
    DiffSummary sum;
    Diff_print(stdout, &old, &now, &o, fmt, &sum);
    if (sum.regressions > 0 && rc == BT_EXIT_OK) rc = BT_EXIT_FAILED;
  }
  if (rc != BT_EXIT_USAGE) Session_free(&now);
  Session_free(&old);
  return rc;
}

const Command Cmd_replay = {
  .name = "replay",
  .summary = "re-run a session's plan on this GPU into a new session and print the diff",
  .description = "Runs the plan recorded in a session again (its variants, knob sweeps, "
                 "shapes, metrics and timing options, with fresh inputs) into a new session, "
                 "then prints the diff against the original, which is only read.",
  .options = replay_options, .noptions = REPLAY_NOPTS,
  .args = replay_args, .nargs = CMD_COUNT(replay_args),
  .flags = CMD_NEEDS_GPU,
  .exec = Replay_exec,
};
