/* benchtop replay: re-run a session's recorded plan on this GPU into a new session, then print
 * the diff against the original. The original file is only read: -o may not name it (by any
 * path or link). The plan from the file is checked like a command line (options in range, every
 * variant, knob and value known) before anything runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "cmd/bundle.h"
#include "cmd/bundle_archive.h"
#include "cmd/run_loop.h"
#include "cmd/commands.h"
#include "common/text.h"
#include "common/util.h"
#include "sessions/diff.h"

enum { REPLAY_OUTPUT, REPLAY_FORCE, REPLAY_DEVICES, REPLAY_FAIL_ABOVE, REPLAY_FORMAT, REPLAY_KERNELS,
       REPLAY_L2_PERSIST,
       REPLAY_APPEND, REPLAY_SPAN, REPLAY_NOPTS };

static const CommandOption replay_options[] = {
  [REPLAY_OUTPUT] = {.name = "output", .short_name = 'o', .value = CMD_TEXT, .arg = "NEW.json",
                     .help = "where the new session goes (default: a new file in the sessions "
                             "directory); never the session being replayed",
                     .complete = CMD_COMPLETE_SESSION},
  [REPLAY_FORCE] = {.name = "force", .value = CMD_FLAG,
                    .help = "replace the -o file instead of appending to a session there"},
  [REPLAY_DEVICES] = CMD_OPTION_DEVICES,
  [REPLAY_FAIL_ABOVE] = {.name = "fail-above", .value = CMD_NUMBER, .arg = "PCT",
                         .help = "exit 1 when a record's p50 got more than PCT % slower than "
                                 "recorded (or it no longer passes)", .lo = 0, .hi = 1e9},
  [REPLAY_FORMAT] = CMD_OPTION_FORMAT,
  [REPLAY_KERNELS] = CMD_OPTION_KERNELS,
  [REPLAY_L2_PERSIST] = CMD_OPTION_L2_PERSIST,
  [REPLAY_APPEND] = {.name = "append", .value = CMD_FLAG,
                 .help = "add the records to the session already at -o (without it, -o onto a "
                         "session is refused)"},
  [REPLAY_SPAN] = CMD_OPTION_SPAN,
};

static const CommandArg replay_args[] = {
  {"SESSION.json|BUNDLE", "the session whose plan is re-run (only read), or a bundle "
   "(benchtop bundle) whose own kernel sources are run", NULL, CMD_COMPLETE_FILE, 0},
};

/* The plan to re-run: the recorded one with a fresh seed and the recorded options where the
 * file has them, checked like the command line's (a file is input like any other). */
static bool Replay_plan(const Session *old, const char *in, Plan *plan) {
  char err[512];
  Plan_copy(plan, &old->plan);
  const RunOptions *ro = &old->plan.opts;
  Plan_defaultOptions(&plan->opts);
  if (ro->reps != -1) plan->opts.reps = ro->reps;
  if (ro->warmup != -1) plan->opts.warmup = ro->warmup;
  if (!isnan(ro->watchdog_s)) plan->opts.watchdog_s = ro->watchdog_s;
  plan->opts.cold_l2 = ro->cold_l2;
  plan->opts.graph = ro->graph;
  plan->opts.event_timing = ro->event_timing;
  Util_strlcpy(plan->opts.l2_persist, ro->l2_persist, sizeof plan->opts.l2_persist);
  plan->opts.span_s = isnan(ro->span_s) ? 0 : ro->span_s;
  if (!plan->metrics[0]) Util_strlcpy(plan->metrics, "default", sizeof plan->metrics);
  if (Plan_check(plan, err, sizeof err) &&
      (strcmp(plan->metrics, "none") == 0 || RunLoop_checkMetrics(plan->metrics, err, sizeof err)))
    return true;
  fprintf(stderr, "benchtop replay: %s: the plan cannot be replayed: ", in);
  Text_print(stderr, err);
  fputc('\n', stderr);
  return false;
}

static int Replay_session(const CommandArgs *a, const char *in, const BundleOpened *bundle,
                          RunOutput *outp, double fail_above, OutputFormat fmt);

static int Replay_exec(const CommandArgs *a) {
  Command_kernelDirs(a, REPLAY_KERNELS);
  RunOutput out = {CommandArgs_text(a, REPLAY_OUTPUT, NULL), CommandArgs_has(a, REPLAY_FORCE), NULL, CommandArgs_has(a, REPLAY_APPEND)};
  double fail_above = CommandArgs_number(a, REPLAY_FAIL_ABOVE, NAN);
  OutputFormat fmt = (OutputFormat)Command_format(a, REPLAY_FORMAT);
  const char *in = a->pos[0];
  if (out.path && !out.path[0]) return Command_usageError(&Cmd_replay, "-o needs a file name");
  out.not_this = in; /* never written: not by this name, a link, or another path to it */
  BundleOpened bundle = {0};
  char err[1024];
  if (BundleArchive_looksLike(in)) {
    if (CommandArgs_has(a, REPLAY_KERNELS))
      return Command_usageError(&Cmd_replay, "a bundle runs its own kernels: --kernels cannot be given with one");
    if (!Bundle_open(in, &bundle, err, sizeof err)) {
      fprintf(stderr, "benchtop replay: ");
      Text_print(stderr, err);
      fputc('\n', stderr);
      Bundle_close(&bundle);
      return BT_EXIT_FAILED;
    }
  }
  int rc = Replay_session(a, in, bundle.dir[0] ? &bundle : NULL, &out, fail_above, fmt);
  Bundle_close(&bundle);
  return rc;
}

/* Replays the session at in (a bundle's: its session, and only the variants it holds). */
static int Replay_session(const CommandArgs *a, const char *in, const BundleOpened *bundle,
                          RunOutput *outp, double fail_above, OutputFormat fmt) {
  RunOutput out = *outp;
  char err[512];
  Session old;
  if (!Session_load(bundle ? bundle->session_path : in, &old, err, sizeof err)) {
    fprintf(stderr, "benchtop replay: ");
    Text_print(stderr, err);
    fputc('\n', stderr);
    return BT_EXIT_FAILED;
  }
  if (old.plan.nvariants == 0) {
    fprintf(stderr, "benchtop replay: %s holds no plan to re-run\n", in);
    Session_free(&old);
    return BT_EXIT_FAILED;
  }
  if (old.note[0]) {
    fprintf(stderr, "benchtop replay: %s: ", in);
    Text_print(stderr, old.note);
    fputc('\n', stderr);
  }
  if (bundle) ReplayBundle_keepBundled(&old.plan, bundle, in);
  Command_l2Persist(a, REPLAY_L2_PERSIST, &old.plan.opts); /* given: instead of the recorded one */
  Command_span(a, REPLAY_SPAN, &old.plan.opts); /* given: instead of the recorded one */
  Plan plan;
  if (!Replay_plan(&old, in, &plan)) {
    Plan_free(&plan);
    Session_free(&old);
    return BT_EXIT_FAILED;
  }
  RunSpread spread;
  if (!RunLoop_parseSpread(NULL, CommandArgs_text(a, REPLAY_DEVICES, NULL), &spread, err, sizeof err)) {
    Plan_free(&plan);
    Session_free(&old);
    return Command_usageError(&Cmd_replay, "%s", err);
  }
  /* A shard's session replays the same shard (with a seed every host derives alike). */
  if (old.shard.spec.count > 0) {
    spread.shard = old.shard.spec;
    plan.opts.seed = RunLoop_shardSeed(&plan);
    fprintf(stderr, "benchtop replay: this is shard %d/%d of its plan: replaying that shard\n",
            spread.shard.index, spread.shard.count);
  }
  Session now;
  /* the knobs recorded, not today's tuned ones */
  int rc = RunLoop_run(&plan, &out, fmt, &now, false, 0, &spread);
  Plan_free(&plan);
  if (rc != BT_EXIT_NO_GPU && rc != BT_EXIT_USAGE && now.path[0]) {
    printf("\ndiff ");
    Text_print(stdout, in);
    printf(" -> ");
    Text_print(stdout, now.path);
    printf("\n");
    DiffOptions o;
    Diff_defaultOptions(&o);
    o.fail_above_pct = fail_above;
    DiffSummary sum;
    Diff_print(stdout, &old, &now, &o, fmt, &sum);
    if (sum.regressions > 0 && rc == BT_EXIT_OK) rc = BT_EXIT_FAILED;
    FILE *said = fmt == FMT_TABLE || fmt == FMT_MD ? stdout : stderr; /* JSON, CSV: stdout is data */
    ReplayBundle_devices(said, &old, &now);
    if (bundle && !ReplayBundle_checkSources(said, bundle, &now) && rc == BT_EXIT_OK) rc = BT_EXIT_FAILED;
  }
  Session_free(&now);
  Session_free(&old);
  return rc;
}

const Command Cmd_replay = {
  .name = "replay",
  .summary = "re-run a session's plan on this GPU into a new session and print the diff",
  .description = "Runs the plan recorded in a session again (its variants, knob sweeps, "
                 "shapes, metrics and timing options, with fresh inputs) into a new session, "
                 "then prints the diff against the original, which is only read (-o may not "
                 "name it). The plan is checked first: options outside the command line's "
                 "ranges and unknown variants, knobs or values are errors. Given a bundle "
                 "(benchtop bundle), it unpacks it into a private folder (hostile members "
                 "refused), runs the bundle's own kernel sources and nothing of the local kernel "
                 "path, and says which device each side ran on and whether every record ran the "
                 "bundle's sources (docs/bundles.md).",
  .options = replay_options, .noptions = REPLAY_NOPTS,
  .args = replay_args, .nargs = CMD_COUNT(replay_args),
  .flags = CMD_NEEDS_GPU,
  .exec = Replay_exec,
};
