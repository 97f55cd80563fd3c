/* benchtop tune: search each variant's knob space at each shape (bench/tune.h), every
 * measurement a record in the session (saved once a second and after every batch), the leaders
 * re-measured, the winners named in the session and written to the tuned table that --knob
 * auto reads. Ctrl-C keeps every finished record and ranks what finished. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/runner.h"
#include "bench/tune.h"
#include "bench/tune_prebuild.h"
#include "cmd/cmd_tune.h"
#include "cmd/commands.h"
#include "cmd/run_loop.h"
#include "common/text.h"
#include "common/util.h"
#include "sessions/catalog.h"
#include "sessions/export.h"

#define TUNE_BATCH 64 /* measurements handed to the worker (and prebuilt) at a time */

static volatile sig_atomic_t Tune_interrupted;
static void Tune_onSignal(int sig) {
  (void)sig;
  Tune_interrupted = 1;
}

typedef struct TuneCli {
  TuneRequest req;
  const char *out_path;
  OutputFormat fmt;
  int jobs;           /* prebuild processes; -1: Prebuild_defaultJobs() */
  bool save_table;
  RunSpread spread;   /* --devices: the measurements spread over several GPUs */
} TuneCli;

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

static void Tune_progressLine(bool tty, const Tuner *t, const char *phase_msg) {
  if (!tty) return;
  TuneProgress g;
  Tuner_progress(t, &g);
  char shape[64];
  Shape_format(&g.shape, shape, sizeof shape);
  fprintf(stderr, "\r\033[K[tune %d/%d %s %s] %s %d/%d, %d refused", g.pair, g.npairs, g.variant,
          shape, g.phase, g.measured, g.budget, g.refused);
  char best[61];
  if (!isnan(g.best_p50))
    fprintf(stderr, ", best %.4g us %s", g.best_p50, Text_sanitize(best, sizeof best, g.best_knobs));
  if (phase_msg && *phase_msg) fprintf(stderr, " (%.30s)", phase_msg);
  fflush(stderr);
}

/* One line per measurement in table form: the whole knob setting (the table's knobs column
 * is too narrow for a search). */
static void Tune_row(const Record *r, int seen) {
  char shape[64], knobs[RECORD_KNOBS_MAX], reason[121];
  Shape_format(&r->shape, shape, sizeof shape);
  Text_sanitize(knobs, sizeof knobs, r->knobs); /* the record's text came from the worker */
  Text_sanitize(reason, sizeof reason, r->reason);
  if (r->status == REC_PASS)
    printf("%4d  %-9s %-20s %9.4g us  %s\n", seen, r->variant, shape, r->timing.p50, knobs);
  else
    printf("%4d  %-9s %-20s %9s     %s: %s\n", seen, r->variant, shape,
           Record_statusName(r->status), knobs, reason);
}

/* Runs the tune to its end (or Ctrl-C); returns the exit code. */
static int Tune_loop(TuneCli *cli, Tuner *t, Session *s) {
  char err[512];
  bool tty = isatty(STDERR_FILENO);
  int jobs = cli->jobs >= 0 ? cli->jobs : Prebuild_defaultJobs();
  RunnerPool *r = RunnerPool_new(NULL, cli->spread.devices, cli->spread.ndevices,
                                 cli->spread.all_devices);
  RunnerPool_start(r);
  PlanEntry *batch = Util_xmalloc(sizeof(PlanEntry) * TUNE_BATCH);
  Prebuild *pb = NULL;
  int nbatch = 0, seen = 0, rc = BT_EXIT_OK, cc = 0;
  /* A session of a thousand records takes ~0.2 s to write: saved at most once a second and at
   * the end of every batch, so writing never outruns a ~60 ms measurement; a signal ends in the
   * final save (Tune_conclude), only a kill can lose the last second. */
  double saved_ms = Util_nowMs();
  bool unsaved = false;
  bool ready = false, running = false, finished = false, cancelled = false;
  Export x;
  bool table = cli->fmt == FMT_TABLE;
  if (!table) {
    /* The other formats stream as run's do, with the columns of the metrics asked for. */
    MetricColumns mc = {0, NULL};
    char **names = NULL;
    int nnames = Metrics_resolve(cli->req.plan.metrics, &names, err, sizeof err);
    if (nnames > 0) MetricColumns_fromNames(&mc, names, nnames, Export_briefMetrics(cli->fmt, false));
    Metrics_freeNames(names, nnames > 0 ? nnames : 0);
    ExportLayout layout = {.cols = EXPORT_COL_ALL, .metrics = &mc};
    Export_begin(&x, stdout, cli->fmt, &layout);
    MetricColumns_free(&mc);
  }
  while (!finished) {
    if (Tune_interrupted && !cancelled) {
      cancelled = true;
      Tuner_stop(t);
      RunnerPool_cancel(r);
      Prebuild_free(pb);
      pb = NULL;
      if (tty) fprintf(stderr, "\r\033[K");
      fprintf(stderr, "benchtop tune: interrupted; keeping the finished records\n");
      if (!running) finished = true;
    }
    RunnerEvent ev;
    while (RunnerPool_poll(r, &ev)) {
      switch (ev.kind) {
      case RUNNER_HELLO:
        s->device = ev.device;
        s->has_device = true;
        cc = ev.device.cc_major * 10 + ev.device.cc_minor;
        if (!Tuner_begin(t, &ev.device, err, sizeof err)) {
          fprintf(stderr, "benchtop tune: %s\n", err);
          rc = BT_EXIT_FAILED;
          finished = true;
          break;
        }
        ready = true;
        break;
      case RUNNER_PROGRESS: Tune_progressLine(tty, t, ev.message); break;
      case RUNNER_RECORD:
        if (tty) fprintf(stderr, "\r\033[K");
        ev.record.plan_index = -1; /* a search has no plan order (the pool numbers its entries) */
        Session_add(s, &ev.record);
        unsaved = true;
        Tuner_take(t, &ev.record);
        if (table) Tune_row(&ev.record, ++seen);
        else Export_record(&x, &ev.record);
        fflush(stdout);
        Record_free(&ev.record);
        Tune_progressLine(tty, t, NULL);
        break;
      case RUNNER_NO_GPU:
        if (tty) fprintf(stderr, "\r\033[K");
        fprintf(stderr, "benchtop tune: %s\n", ev.message);
        rc = BT_EXIT_NO_GPU;
        finished = true;
        break;
      case RUNNER_FINISHED:
        running = false;
        saved_ms = 0; /* the batch is whole: save it now */
        if (cancelled) finished = true;
        break;
      case RUNNER_WARNING:
        if (tty) fprintf(stderr, "\r\033[K");
        fprintf(stderr, "benchtop tune: %s", ev.message);
        if (ev.repeats) fprintf(stderr, " (and %d more)", ev.repeats);
        fputc('\n', stderr);
        break;
      case RUNNER_FAILED: /* the worker cannot start: nothing more can be measured */
        if (tty) fprintf(stderr, "\r\033[K");
        fprintf(stderr, "benchtop tune: %s\n", ev.message);
        rc = BT_EXIT_FAILED;
        finished = true;
        break;
      case RUNNER_NONE: case RUNNER_BUILT: break;
      }
    }
    if (unsaved && Util_nowMs() - saved_ms >= 1000) {
      if (!Session_autosave(s, err, sizeof err))
        fprintf(stderr, "benchtop tune: autosave failed: %s\n", err);
      unsaved = false;
      saved_ms = Util_nowMs();
    }
    if (finished) break;
    if (ready && !running && !pb && !cancelled) {
      nbatch = Tuner_next(t, batch, TUNE_BATCH);
      if (nbatch == 0) {
        finished = Tuner_done(t);
        if (!finished) { /* cannot happen: nothing out, nothing to ask, not done */
          fprintf(stderr, "benchtop tune: the search stalled; ranking what finished\n");
          finished = true;
        }
        continue;
      }
      pb = Prebuild_start(batch, nbatch, cc, jobs);
      if (pb && tty) {
        fprintf(stderr, "\r\033[Kcompiling %d configurations with %d processes", Prebuild_count(pb),
                jobs);
        fflush(stderr);
      }
    }
    if (pb && Prebuild_done(pb)) {
      Prebuild_free(pb);
      pb = NULL;
    }
    if (ready && !running && !pb && nbatch > 0 && !cancelled) {
      RunnerPool_submit(r, batch, nbatch);
      nbatch = 0;
      running = true;
      continue;
    }
    RunnerPool_wait(r, pb ? 50 : 250);
  }
  if (tty) fprintf(stderr, "\r\033[K");
  if (!table) Export_end(&x);
  Prebuild_free(pb);
  RunnerPool_free(r);
  free(batch);
  if (cancelled && rc == BT_EXIT_OK) rc = 130;
  return rc;
}

/* After the search: ranks, summary, session, tuned table. */
static int Tune_conclude(TuneCli *cli, Tuner *t, Session *s, int rc) {
  char err[512], note[600];
  if (rc == BT_EXIT_NO_GPU || !s->has_device) {
    Session_discardOutput(s); /* claimed before the worker said there is no GPU: nothing in it */
    return rc;
  }
  Tuner_finish(t, s);
  bool saved = Session_autosave(s, err, sizeof err);
  if (!saved) {
    fprintf(stderr, "benchtop tune: cannot save the session: ");
    Text_print(stderr, err);
    fputc('\n', stderr);
    rc = BT_EXIT_FAILED;
  }
  int nnotes;
  const char *const *notes = Tuner_notes(t, &nnotes);
  for (int i = 0; i < nnotes; i++) fprintf(stderr, "benchtop tune: skipped %s\n", notes[i]);
  FILE *out = cli->fmt == FMT_TABLE || cli->fmt == FMT_MD ? stdout : stderr;
  fflush(stdout);
  TuneSummary_print(out, s->tune, s->ntune, s->overall, s->noverall);
  fflush(out);
  for (int i = 0; i < s->ntune; i++)
    if (s->tune[i].winner < 0 && s->tune[i].measured > 0) {
      char shape[64];
      Shape_format(&s->tune[i].shape, shape, sizeof shape);
      const char *why = "";
      for (int k = 0; k < s->nrecords && !*why; k++)
        if (strcmp(s->records[k].variant, s->tune[i].variant) == 0 &&
            Shape_equal(&s->records[k].shape, &s->tune[i].shape) && s->records[k].reason[0])
          why = s->records[k].reason;
      char line[400];
      snprintf(line, sizeof line, "%s at %s: every one of the %d configurations measured failed "
                                  "(e.g. %.200s)", s->tune[i].variant, shape, s->tune[i].configs, why);
      fprintf(stderr, "benchtop tune: ");
      Text_print(stderr, line); /* the reason is the worker's text */
      fputc('\n', stderr);
      if (rc == BT_EXIT_OK) rc = BT_EXIT_FAILED;
    }
  if (cli->save_table) {
    TunedEntry *entries = NULL;
    int n = Tuner_tunedEntries(t, s, &entries);
    if (n > 0) {
      char path[4096];
      TunedTable_path(path, sizeof path);
      if (!TunedTable_store(entries, n, note, sizeof note, err, sizeof err)) {
        fprintf(stderr, "benchtop tune: the tuned table was not updated: %s\n", err);
        rc = rc == BT_EXIT_OK ? BT_EXIT_FAILED : rc;
      } else {
        if (note[0]) fprintf(stderr, "benchtop tune: %s\n", note);
        fprintf(stderr, "tuned table: %s (%d entr%s for --knob auto)\n", path, n, n == 1 ? "y" : "ies");
      }
    }
    free(entries);
  }
  /* Only a session that holds its records is named as one (the failed save was said above). */
  if (saved) {
    fprintf(stderr, "session: ");
    Text_print(stderr, s->path);
    fprintf(stderr, " (%d records)\n", s->nrecords);
  }
  return rc;
}

enum {
  TUNE_VARIANTS, TUNE_SHAPES, TUNE_KNOB, TUNE_STRATEGY, TUNE_BUDGET, TUNE_TIME, TUNE_METRICS,
  TUNE_REPS, TUNE_WARMUP, TUNE_COLD_L2, TUNE_GRAPH, TUNE_TIMING, TUNE_SEED, TUNE_WATCHDOG,
  TUNE_DEVICES, TUNE_JOBS, TUNE_NO_TABLE, TUNE_OUTPUT, TUNE_FORMAT, TUNE_SIMULATE, TUNE_RUNS, TUNE_NOISE,
  TUNE_L2_PERSIST, TUNE_KERNELS,
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
};

/* The plan from -v, -s, --knob (which narrows the space) and --metrics; false with the usage
 * error in err. */
static bool Tune_plan(const CommandArgs *a, Plan *plan, char *err, size_t errsize) {
  if (!Plan_setMetrics(plan, CommandArgs_text(a, TUNE_METRICS, "default"), err, errsize) ||
      !Plan_setVariants(plan, CommandArgs_text(a, TUNE_VARIANTS, ""), err, errsize) ||
      !Shape_parseList(CommandArgs_text(a, TUNE_SHAPES, ""), &plan->shapes, &plan->nshapes, err, errsize))
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
  if ((!simulate || CommandArgs_has(a, TUNE_VARIANTS)) && !Tune_plan(a, plan, err, sizeof err)) {
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
  struct sigaction sa, old_int, old_term, old_hup;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = Tune_onSignal;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  Tune_interrupted = 0;
  Tuner *t = Tuner_new(&cli.req);
  rc = Tune_loop(&cli, t, &s);
  rc = Tune_conclude(&cli, t, &s, rc);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  Tuner_free(t);
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
