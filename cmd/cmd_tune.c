/* benchtop tune's command line: search each variant's knob space at each shape, the winners
 * named in the session and written to the tuned table that --knob auto reads. The options and
 * the checks before a worker starts are here; the search itself is cmd_tune_search.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tune/tune.h"
#include "cmd/cmd_tune.h"
#include "cmd/commands.h"
#include "cmd/run_loop.h"
#include "common/util.h"

/* --budget N (measurements) or P% (of each space). */
static bool Tune_budget(const char *text, TuneRequest *req) {
  char *end;
  double v = strtod(text, &end);
  bool pct = *end == '%' && end[1] == '\0';
  if (!*text || (*end && !pct) || !isfinite(v) || (!pct && v != floor(v)) || v < 0 ||
      (pct && v > 100) || v > 1e6) {
    Command_usageError(&Cmd_tune, "--budget takes a number of measurements or a percentage of "
                                  "the space (20, 25%%), not '%.40s'", text);
    return false;
  }
  if (v == 0) {
    Command_usageError(&Cmd_tune, "a budget of 0 measures nothing (leave --budget out for the "
                                  "default: the whole space when exhaustive, a quarter of it "
                                  "otherwise)");
    return false;
  }
  if (pct) req->budget_pct = v;
  else req->budget = (int)v;
  return true;
}

enum {
  TUNE_VARIANTS, TUNE_SHAPES, TUNE_KNOB, TUNE_STRATEGY, TUNE_BUDGET, TUNE_TIME, TUNE_METRICS,
  TUNE_REPS, TUNE_WARMUP, TUNE_COLD_L2, TUNE_GRAPH, TUNE_TIMING, TUNE_SEED, TUNE_WATCHDOG,
  TUNE_DEVICES, TUNE_JOBS, TUNE_NO_TABLE, TUNE_OUTPUT, TUNE_FORMAT, TUNE_SIMULATE, TUNE_RUNS, TUNE_NOISE,
  TUNE_L2_PERSIST, TUNE_KERNELS, TUNE_GRID, TUNE_TABLE_OUT,
  TUNE_TRANSFER_EVAL, TUNE_RULE, TUNE_K, TUNE_HELDOUT,
  TUNE_NOPTS
};

static const CommandOption tune_options[] = {
  [TUNE_VARIANTS] = {.name = "variants", .short_name = 'v', .value = CMD_TEXT, .arg = "VARIANTS",
                     .help = "variants to tune, comma-separated (benchtop list variants)",
                     .complete = CMD_COMPLETE_VARIANTS},
  [TUNE_SHAPES] = {.name = "shapes", .short_name = 's', .value = CMD_TEXT, .arg = "SHAPES",
                   .help = "shapes BxHq[/Hkv]xSq[/Skv]xD[:causal][:bf16], comma-separated; each is tuned, then the "
                           "best configuration over all of them is named",
                   .complete = CMD_COMPLETE_SHAPES},
  [TUNE_KNOB] = {.name = "knob", .short_name = 'k', .value = CMD_TEXT, .arg = "K=V[,V2]",
                 .help = "narrow the space: knob K takes only these values", .flags = CMD_OPT_REPEAT},
  [TUNE_STRATEGY] = {.name = "strategy", .value = CMD_CHOICE, .arg = "STRATEGY",
                     .help = "how to search (auto: exhaustive when the space fits the budget, "
                             "else local)",
                     .choices = "auto|exhaustive|random|evolutionary|annealing|local"},
  [TUNE_BUDGET] = {.name = "budget", .short_name = 'b', .value = CMD_TEXT, .arg = "N|P%",
                   .help = "measurements per variant and shape, the leaders' re-measurements "
                           "included, or a percentage of the space (default: all of it when "
                           "exhaustive, a quarter of it, at least 20, otherwise)"},
  [TUNE_TIME] = {.name = "time", .value = CMD_INT, .arg = "SEC",
                 .help = "stop searching after this many seconds, shared over variants x shapes",
                 .lo = 1, .hi = 7 * 24 * 3600},
  [TUNE_METRICS] = {.name = "metrics", .short_name = 'm', .value = CMD_TEXT,
                    .arg = "default|none|NAME,...",
                    .help = "hardware metrics of every configuration measured (none: faster)"},
  [TUNE_REPS] = {.name = "reps", .short_name = 'r', .value = CMD_INT, .arg = "N",
                 .help = "timed launches per measurement", .lo = 1, .hi = 100000},
  [TUNE_WARMUP] = CMD_OPTION_WARMUP,
  [TUNE_COLD_L2] = {.name = "cold-l2", .value = CMD_FLAG,
                    .help = "flush the L2 cache between timed launches (tuned apart from warm)"},
  [TUNE_GRAPH] = CMD_OPTION_GRAPH,
  [TUNE_TIMING] = CMD_OPTION_TIMING,
  [TUNE_SEED] = {.name = "seed", .value = CMD_UINT64, .arg = "N",
                 .help = "seed of the search and of the random inputs (default: a fresh one)"},
  [TUNE_WATCHDOG] = CMD_OPTION_WATCHDOG,
  [TUNE_DEVICES] = CMD_OPTION_DEVICES,
  [TUNE_JOBS] = {.name = "jobs", .short_name = 'j', .value = CMD_INT, .arg = "N",
                 .help = "processes compiling each batch ahead of the worker (default: the "
                         "cores, at most 16; 0: none)", .lo = 0, .hi = 64},
  [TUNE_NO_TABLE] = {.name = "no-table", .value = CMD_FLAG,
                     .help = "leave the tuned table (what --knob auto reads) as it is"},
  [TUNE_OUTPUT] = {.name = "output", .short_name = 'o', .value = CMD_TEXT, .arg = "SESSION.json",
                   .help = "the session file, rewritten after every record (default: a new file "
                           "in the sessions directory)", .complete = CMD_COMPLETE_SESSION},
  [TUNE_FORMAT] = CMD_OPTION_FORMAT,
  [TUNE_SIMULATE] = {.name = "simulate", .value = CMD_TEXT, .arg = "SESSION.json",
                     .help = "measure nothing: replay the strategies against the scores of an "
                             "exhaustive tune's session (-v/-s pick pairs from it)",
                     .complete = CMD_COMPLETE_SESSION},
  [TUNE_RUNS] = {.name = "runs", .value = CMD_INT, .arg = "N",
                 .help = "with --simulate: searches per strategy, each with its own seed",
                 .lo = 1, .hi = 100000},
  [TUNE_NOISE] = {.name = "noise", .value = CMD_NUMBER, .arg = "PCT",
                  .help = "with --simulate: each measurement is the recorded score off by a "
                          "normal draw of this many percent (the leaders re-measured as tune "
                          "does; picks still judged on the recorded scores)",
                  .lo = 0, .hi = 50},
  [TUNE_L2_PERSIST] = CMD_OPTION_L2_PERSIST,
  [TUNE_KERNELS] = CMD_OPTION_KERNELS,
  [TUNE_GRID] = {.name = "grid", .value = CMD_TEXT, .arg = "NAME|FILE",
                 .help = "tune every variant at every problem of a grid (default: the shipped "
                         "one; docs/tuning.md) and write the tuned table; a rerun with the same "
                         "-o goes on where it stopped", .complete = CMD_COMPLETE_FILE},
  [TUNE_TABLE_OUT] = {.name = "table-out", .value = CMD_TEXT, .arg = "FILE",
                      .help = "with --grid: also write the table in the shipped form "
                              "(kernels/tuned/CHIP.json)", .complete = CMD_COMPLETE_FILE},
  [TUNE_TRANSFER_EVAL] = {.name = "transfer-eval", .value = CMD_TEXT, .arg = "SESSION.json",
                          .help = "measure nothing: replay the transfer rules on a grid session, "
                                  "each grid point held out in turn, and print what each rule's "
                                  "knobs lose there", .complete = CMD_COMPLETE_SESSION},
  [TUNE_RULE] = {.name = "rule", .value = CMD_CHOICE, .arg = "RULE",
                 .help = "with --transfer-eval: the rule to replay (default: all)",
                 .choices = "all|nearest|feature|best-of-k|guarded|pick|pick+fit|pick+dissent"},
  [TUNE_K] = {.name = "k", .value = CMD_INT, .arg = "N",
              .help = "with --transfer-eval: the nearest points best-of-k chooses among (default 3)",
              .lo = 1, .hi = 64},
  [TUNE_HELDOUT] = {.name = "heldout", .value = CMD_TEXT, .arg = "SESSION.json",
                    .help = "with --transfer-eval: score the rules on this tune session's problems "
                            "(off the grid; every grid point counts) instead of leaving grid points "
                            "out; may be repeated", .complete = CMD_COMPLETE_SESSION, .flags = CMD_OPT_REPEAT},
};

/* The plan from -v, -s, --knob (which narrows the space) and --metrics; false with the usage
 * error in err. */
static bool Tune_plan(const CommandArgs *a, const TuneGrid *grid, Plan *plan, char *err,
                      size_t errsize) {
  const char *metrics = CommandArgs_text(a, TUNE_METRICS, NULL);
  if (!metrics) metrics = !grid ? "default" : grid->metrics[0] ? grid->metrics : "none";
  if (!Plan_setMetrics(plan, metrics, err, errsize) ||
      !Plan_setVariants(plan, CommandArgs_text(a, TUNE_VARIANTS, ""), err, errsize) ||
      (!grid && !Shape_parseList(CommandArgs_text(a, TUNE_SHAPES, ""), &plan->shapes, &plan->nshapes,
                                 err, errsize)))
    return false;
  if (plan->nshapes > TUNE_SHAPES_MAX) {
    snprintf(err, errsize, "%d shapes; a tune takes %d at most", plan->nshapes, TUNE_SHAPES_MAX);
    return false;
  }
  for (int i = 0; i < CommandArgs_count(a, TUNE_KNOB); i++) {
    const char *k = CommandArgs_nth(a, TUNE_KNOB, i);
    if (strcmp(k, "auto") == 0) {
      snprintf(err, errsize, "--knob auto reads what tune writes; here --knob narrows the space (k=v1,v2)");
      return false;
    }
    if (!Plan_addKnob(plan, k, err, errsize)) return false;
  }
  return strcmp(plan->metrics, "none") == 0 || RunLoop_checkMetrics(plan->metrics, err, errsize);
}

/* --grid NAME|FILE: checked here (before a worker starts), run by cmd_tune_grid.c. */
static int Tune_grid(const CommandArgs *a, TuneCli *cli) {
  if (!CommandArgs_has(a, TUNE_GRID))
    return Command_usageError(&Cmd_tune, "--table-out goes with --grid (the table of a grid's tune)");
  if (CommandArgs_has(a, TUNE_SHAPES) || CommandArgs_has(a, TUNE_SIMULATE))
    return Command_usageError(&Cmd_tune, "--grid tunes the grid's problems: leave out %s",
                              CommandArgs_has(a, TUNE_SHAPES) ? "-s" : "--simulate");
  if (!CommandArgs_has(a, TUNE_VARIANTS))
    return Command_usageError(&Cmd_tune, "--grid needs -v VARIANTS (e.g. -v fa3,mma --grid default)");
  char path[4096], err[1024];
  TuneGrid grid;
  if (!TuneGrid_resolve(CommandArgs_text(a, TUNE_GRID, ""), path, sizeof path, err, sizeof err) ||
      !TuneGrid_load(path, &grid, err, sizeof err))
    return Command_usageError(&Cmd_tune, "%s", err);
  int rc = BT_EXIT_USAGE;
  if (!CommandArgs_has(a, TUNE_BUDGET) && grid.budget[0] && !Tune_budget(grid.budget, &cli->req))
    goto out;
  if (!Tune_plan(a, &grid, &cli->req.plan, err, sizeof err)) {
    Command_usageError(&Cmd_tune, "%s", err);
    goto out;
  }
  const char *table_out = CommandArgs_text(a, TUNE_TABLE_OUT, NULL);
  if (table_out && cli->out_path && strcmp(table_out, cli->out_path) == 0) {
    Command_usageError(&Cmd_tune, "--table-out %s is the session's file (-o): name another", table_out);
    goto out;
  }
  rc = TuneCmd_grid(cli, &grid, table_out, CommandArgs_has(a, TUNE_SEED));
out:
  TuneGrid_free(&grid);
  return rc;
}

/* --transfer-eval: the replay of the transfer rules, nothing measured. */
static int Tune_transferEval(const CommandArgs *a) {
  char rule[32] = "all"; /* --rule's word: the option's choices are the one list */
  (void)Command_choiceWord(tune_options[TUNE_RULE].choices, CommandArgs_choice(a, TUNE_RULE, 0), rule, sizeof rule);
  int nheld = CommandArgs_count(a, TUNE_HELDOUT);
  const char **held = Util_xcalloc((size_t)nheld + 1, sizeof *held);
  for (int i = 0; i < nheld; i++) held[i] = CommandArgs_nth(a, TUNE_HELDOUT, i);
  int rc = TuneCmd_transfer(CommandArgs_text(a, TUNE_TRANSFER_EVAL, ""), held, nheld, rule,
                            (int)CommandArgs_int(a, TUNE_K, 3), CommandArgs_text(a, TUNE_VARIANTS, NULL));
  free(held);
  return rc;
}

static int Tune_exec(const CommandArgs *a) {
  Command_kernelDirs(a, TUNE_KERNELS);
  TuneCli cli;
  memset(&cli, 0, sizeof cli);
  Plan *plan = &cli.req.plan;
  Plan_init(plan);
  Plan_defaultOptions(&plan->opts);
  plan->opts.reps = (int)CommandArgs_int(a, TUNE_REPS, plan->opts.reps);
  plan->opts.warmup = (int)CommandArgs_int(a, TUNE_WARMUP, plan->opts.warmup);
  plan->opts.cold_l2 = CommandArgs_has(a, TUNE_COLD_L2);
  plan->opts.graph = CommandArgs_has(a, TUNE_GRAPH);
  Command_l2Persist(a, TUNE_L2_PERSIST, &plan->opts);
  plan->opts.event_timing = CommandArgs_choice(a, TUNE_TIMING, 0) == 1;
  plan->opts.seed = CommandArgs_uint64(a, TUNE_SEED, plan->opts.seed);
  if (CommandArgs_has(a, TUNE_WATCHDOG)) plan->opts.watchdog_s = (double)CommandArgs_int(a, TUNE_WATCHDOG, 10);
  /* The choices are listed in StrategyKind order. */
  cli.req.strategy = (StrategyKind)CommandArgs_choice(a, TUNE_STRATEGY, STRATEGY_AUTO);
  cli.req.time_s = (double)CommandArgs_int(a, TUNE_TIME, 0);
  cli.out_path = CommandArgs_text(a, TUNE_OUTPUT, NULL);
  cli.fmt = (OutputFormat)Command_format(a, TUNE_FORMAT);
  cli.jobs = (int)CommandArgs_int(a, TUNE_JOBS, -1);
  cli.save_table = !CommandArgs_has(a, TUNE_NO_TABLE);
  char err[512];
  int rc = BT_EXIT_USAGE;
  if (!RunLoop_parseSpread(NULL, CommandArgs_text(a, TUNE_DEVICES, NULL), &cli.spread, err, sizeof err)) {
    Command_usageError(&Cmd_tune, "%s", err);
    goto out;
  }
  if (CommandArgs_has(a, TUNE_BUDGET) && !Tune_budget(CommandArgs_text(a, TUNE_BUDGET, ""), &cli.req))
    goto out;
  if (CommandArgs_has(a, TUNE_TRANSFER_EVAL)) {
    rc = Tune_transferEval(a);
    goto out;
  }
  if (CommandArgs_has(a, TUNE_GRID) || CommandArgs_has(a, TUNE_TABLE_OUT)) {
    rc = Tune_grid(a, &cli);
    goto out;
  }
  bool simulate = CommandArgs_has(a, TUNE_SIMULATE);
  if (!simulate && (!CommandArgs_has(a, TUNE_VARIANTS) || !CommandArgs_has(a, TUNE_SHAPES))) {
    Command_usageError(&Cmd_tune, "needs -v VARIANTS and -s SHAPES (e.g. -v fa3 -s 2x8x512x64)");
    goto out;
  }
  if (simulate && CommandArgs_has(a, TUNE_VARIANTS) != CommandArgs_has(a, TUNE_SHAPES)) {
    Command_usageError(&Cmd_tune, "--simulate takes both -v and -s, or neither (every pair the session tuned)");
    goto out;
  }
  /* --simulate without -v and -s replays every pair the session tuned: no plan to read. */
  if ((!simulate || CommandArgs_has(a, TUNE_VARIANTS)) && !Tune_plan(a, NULL, plan, err, sizeof err)) {
    Command_usageError(&Cmd_tune, "%s", err);
    goto out;
  }
  if (simulate) {
    rc = TuneCmd_simulate(CommandArgs_text(a, TUNE_SIMULATE, ""), &cli.req,
                          CommandArgs_has(a, TUNE_STRATEGY), (int)CommandArgs_int(a, TUNE_RUNS, 200),
                          CommandArgs_number(a, TUNE_NOISE, 0) / 100.0);
    goto out;
  }
  /* Bad input is said before a worker starts: the spaces as any device would see them. */
  Tuner *probe = Tuner_new(&cli.req);
  DeviceInfo any;
  Device_init(&any);
  bool ok = Tuner_begin(probe, &any, err, sizeof err);
  Tuner_free(probe);
  if (!ok) {
    Command_usageError(&Cmd_tune, "%s", err);
    goto out;
  }

  Session s;
  Session_init(&s);
  Plan_free(&s.plan);
  Plan_copy(&s.plan, plan);
  /* The session file is claimed (and created) now: a place that cannot be written, or a file
   * that is there already, is said before any GPU time is spent. */
  char path[4096];
  int existing = 0;
  if (cli.out_path && Util_strlcpy(path, cli.out_path, sizeof path) >= sizeof path)
    snprintf(err, sizeof err, "-o: the name is %zu bytes; at most %zu", strlen(cli.out_path), sizeof path - 1);
  if ((cli.out_path && strlen(cli.out_path) >= sizeof path) ||
      (!cli.out_path && !Session_defaultPath(path, sizeof path)) ||
      !Session_openOutput(&s, path, SESSION_OUT_NEW, &existing, err, sizeof err)) {
    fprintf(stderr, "benchtop tune: cannot write the session: %s\n", cli.out_path ? err : path);
    Session_free(&s);
    rc = BT_EXIT_FAILED;
    goto out;
  }
  rc = TuneCmd_search(&cli, &s);
  Session_free(&s);
out:
  Plan_free(plan);
  return rc;
}

const Command Cmd_tune = {
  .name = "tune",
  .summary = "search each variant's knobs at each shape; the winners go to the session and to "
             "the tuned table that --knob auto reads",
  .description = "Enumerates each variant's knob space (narrowed by --knob), drops the "
                 "combinations the variant refuses for the shape before anything is compiled or "
                 "launched, and searches the rest within the budget: exhaustive, random, "
                 "evolutionary (the 3 best kept every generation), annealing, or local (the "
                 "default when the space exceeds the budget: from the declared defaults and "
                 "presets and the other shapes' winners, the best one-knob moves). Every "
                 "configuration measured is a record in the session, with its counters. The "
                 "leaders are measured once more; the winner is the one with the lowest median "
                 "over its samples, its lead over the runner-up given as a 95 % interval, and "
                 "configurations the samples cannot separate from it are called tied. With "
                 "several shapes, each shape's winner is measured at the others and the best "
                 "configuration over all of them (geometric mean) is named with what each shape "
                 "loses with it. The winners go to the tuned table of this device "
                 "(~/.cache/benchtop/tuned.json), which run --knob auto reads; a kernel edit "
                 "invalidates its entries. Ctrl-C keeps every finished record and ranks them. "
                 "docs/tuning.md has the details.",
  .options = tune_options, .noptions = TUNE_NOPTS,
  .flags = CMD_NEEDS_GPU,
  .exec = Tune_exec,
};
