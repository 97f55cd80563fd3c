/* benchtop run: a plan (variants x knob sweeps x shapes) through the worker, records printed
 * as they arrive and autosaved to the session after each one. Ctrl-C keeps what finished.
 * -o names the session: a new file, or an existing session of the same GPU that the records
 * are appended to with --append; --force replaces whatever regular file is there instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "cmd/run_loop.h"
#include "cmd/run_pick.h"
#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/export.h"
#include "sessions/shard.h"

enum {
  RUN_VARIANTS, RUN_SHAPES, RUN_KNOB, RUN_METRICS, RUN_REPS, RUN_WARMUP, RUN_COLD_L2, RUN_GRAPH,
  RUN_TIMING, RUN_SEED, RUN_WATCHDOG, RUN_SHARD, RUN_DEVICES, RUN_OUTPUT, RUN_FORCE, RUN_FORMAT,
  RUN_KERNELS,
  RUN_L2_PERSIST,
  RUN_BASELINE,
  RUN_APPEND,
  RUN_SPAN,
  RUN_PICK,
  RUN_NOPTS
};

static const CommandOption run_options[] = {
  [RUN_VARIANTS] = {.name = "variants", .short_name = 'v', .value = CMD_TEXT, .arg = "VARIANTS",
                    .help = "variants to run, comma-separated, or all (benchtop list variants)",
                    .complete = CMD_COMPLETE_VARIANTS, .flags = CMD_OPT_REQUIRED},
  [RUN_SHAPES] = {.name = "shapes", .short_name = 's', .value = CMD_TEXT, .arg = "SHAPES",
                  .help = "shapes BxHq[/Hkv]xSq[/Skv]xD[:causal][:bf16], comma-separated (benchtop list shapes)",
                  .complete = CMD_COMPLETE_SHAPES, .flags = CMD_OPT_REQUIRED},
  [RUN_KNOB] = {.name = "knob", .short_name = 'k', .value = CMD_TEXT,
                .arg = "K=V[,V2]|auto|default",
                .help = "set a knob of the variants that have it; several values sweep it; auto: "
                        "the knobs benchtop tune found for each shape on this GPU, else the "
                        "defaults with a note; default: the shipped defaults, never tuned knobs "
                        "(without --knob a variant runs the tuned knobs where there are some)",
                .flags = CMD_OPT_REPEAT},
  [RUN_METRICS] = {.name = "metrics", .short_name = 'm', .value = CMD_TEXT,
                   .arg = "default|none|NAME,...",
                   .help = "hardware metrics to collect, by Nsight Compute name (benchtop list "
                           "metrics)"},
  [RUN_REPS] = {.name = "reps", .short_name = 'r', .value = CMD_INT, .arg = "N",
                .help = "timed launches per record", .lo = PLAN_REPS_MIN, .hi = PLAN_REPS_MAX},
  [RUN_WARMUP] = CMD_OPTION_WARMUP,
  [RUN_COLD_L2] = {.name = "cold-l2", .value = CMD_FLAG,
                   .help = "flush the L2 cache between timed launches"},
  [RUN_GRAPH] = CMD_OPTION_GRAPH,
  [RUN_TIMING] = CMD_OPTION_TIMING,
  [RUN_SEED] = {.name = "seed", .value = CMD_UINT64, .arg = "N",
                .help = "seed of the random inputs (default: a fresh one)"},
  [RUN_WATCHDOG] = CMD_OPTION_WATCHDOG,
  [RUN_SHARD] = {.name = "shard", .value = CMD_TEXT, .arg = "I/N|slurm",
                 .help = "run only slice I of N of the plan (slurm: this job array task's), for "
                         "benchtop merge; the seed then defaults to one derived from the plan"},
  [RUN_DEVICES] = CMD_OPTION_DEVICES,
  [RUN_OUTPUT] = {.name = "output", .short_name = 'o', .value = CMD_TEXT, .arg = "SESSION.json",
                  .help = "the session file, rewritten after every record (default: a new file "
                          "in the sessions directory); an existing session of this GPU is "
                          "appended to with --append, anything else refused", .complete = CMD_COMPLETE_SESSION},
  [RUN_FORCE] = {.name = "force", .value = CMD_FLAG,
                 .help = "replace the -o file (a session of another GPU, or another regular "
                         "file) instead of appending to it"},
  [RUN_FORMAT] = CMD_OPTION_FORMAT,
  [RUN_KERNELS] = CMD_OPTION_KERNELS,
  [RUN_L2_PERSIST] = CMD_OPTION_L2_PERSIST,
  [RUN_BASELINE] = {.name = "baseline", .value = CMD_TEXT, .arg = "VARIANT",
                    .help = "add this variant (cudnn: cuDNN's fused attention) to the plan if it "
                            "lacks it, so every record shows its ratio to it (vs cudnn)",
                    .complete = CMD_COMPLETE_VARIANTS},
  [RUN_APPEND] = {.name = "append", .value = CMD_FLAG,
                 .help = "add the records to the session already at -o (without it, -o onto a "
                         "session is refused)"},
  [RUN_SPAN] = CMD_OPTION_SPAN,
  [RUN_PICK] = {.name = "pick", .value = CMD_INT, .arg = "N", .lo = 0, .hi = RUN_PICK_MAX,
                .help = "where the tuned knobs come from another problem (none tuned at this "
                        "one on this GPU), measure the knobs of the N nearest tuned problems "
                        "here first, run the fastest and keep it in your tuned table (default "
                        "8; 0 or 1: the transfer rule's knobs, unmeasured)"},
};

static int Run_exec(const CommandArgs *a) {
  Command_kernelDirs(a, RUN_KERNELS);
  Plan plan;
  Plan_init(&plan);
  Plan_defaultOptions(&plan.opts);
  plan.opts.reps = (int)CommandArgs_int(a, RUN_REPS, plan.opts.reps);
  plan.opts.warmup = (int)CommandArgs_int(a, RUN_WARMUP, plan.opts.warmup);
  plan.opts.cold_l2 = CommandArgs_has(a, RUN_COLD_L2);
  plan.opts.graph = CommandArgs_has(a, RUN_GRAPH);
  Command_l2Persist(a, RUN_L2_PERSIST, &plan.opts);
  Command_span(a, RUN_SPAN, &plan.opts);
  plan.opts.event_timing = CommandArgs_choice(a, RUN_TIMING, 0) == 1;
  plan.opts.seed = CommandArgs_uint64(a, RUN_SEED, plan.opts.seed);
  if (CommandArgs_has(a, RUN_WATCHDOG)) plan.opts.watchdog_s = (double)CommandArgs_int(a, RUN_WATCHDOG, 10);
  char err[512];
  int rc = BT_EXIT_USAGE;
  /* --baseline: one more variant in the list (Plan_setVariants drops a duplicate) */
  const char *variants = CommandArgs_text(a, RUN_VARIANTS, "");
  char *with_base = CommandArgs_has(a, RUN_BASELINE) && strcmp(variants, "all") != 0
                        ? Util_asprintf("%s,%s", variants, CommandArgs_text(a, RUN_BASELINE, ""))
                        : NULL;
  bool variants_ok = Plan_setMetrics(&plan, CommandArgs_text(a, RUN_METRICS, "default"), err, sizeof err) &&
                     Plan_setVariants(&plan, with_base ? with_base : variants, err, sizeof err);
  free(with_base);
  if (!variants_ok ||
      !Shape_parseList(CommandArgs_text(a, RUN_SHAPES, ""), &plan.shapes, &plan.nshapes, err,
                       sizeof err)) {
    Command_usageError(&Cmd_run, "%s", err);
    goto out;
  }
  bool tuned_by_default = true; /* --knob default turns it off; it is no setting of a knob */
  for (int i = 0; i < CommandArgs_count(a, RUN_KNOB); i++) {
    const char *k = CommandArgs_nth(a, RUN_KNOB, i);
    if (strcmp(k, "default") == 0) tuned_by_default = false;
    else if (!Plan_addKnob(&plan, k, err, sizeof err)) {
      Command_usageError(&Cmd_run, "%s", err);
      goto out;
    }
  }
  if (!tuned_by_default && Plan_hasAuto(&plan)) {
    Command_usageError(&Cmd_run, "--knob auto and --knob default ask for opposite things: give one");
    goto out;
  }
  if (strcmp(plan.metrics, "none") != 0 && !RunLoop_checkMetrics(plan.metrics, err, sizeof err)) {
    Command_usageError(&Cmd_run, "%s", err);
    goto out;
  }
  RunSpread spread;
  const char *shard_text = CommandArgs_text(a, RUN_SHARD, NULL);
  if (!RunLoop_parseSpread(shard_text, CommandArgs_text(a, RUN_DEVICES, NULL), &spread, err,
                           sizeof err)) {
    Command_usageError(&Cmd_run, "%s", err);
    goto out;
  }
  if (shard_text) {
    if (strcmp(shard_text, "slurm") == 0 && spread.shard.count == 1)
      fprintf(stderr, "benchtop: note: a job array of one task: shard 1/1 is the whole plan (to "
                      "run shard I of N again, give --shard I/N)\n");
    /* Every host must draw the same inputs for the same entry: no seed from the clock. */
    if (!CommandArgs_has(a, RUN_SEED)) plan.opts.seed = RunLoop_shardSeed(&plan);
  } else if (getenv("SLURM_ARRAY_TASK_ID") && getenv("SLURM_ARRAY_TASK_ID")[0]) {
    fprintf(stderr, "benchtop: note: a Slurm array task running the whole plan (--shard slurm "
                    "runs this task's slice)\n");
  }
  RunOutput out = {CommandArgs_text(a, RUN_OUTPUT, NULL), CommandArgs_has(a, RUN_FORCE), NULL, CommandArgs_has(a, RUN_APPEND)};
  if (out.path && !out.path[0]) {
    Command_usageError(&Cmd_run, "-o needs a file name");
    goto out;
  }
  rc = RunLoop_run(&plan, &out, (OutputFormat)Command_format(a, RUN_FORMAT), NULL, tuned_by_default,
                   (int)CommandArgs_int(a, RUN_PICK, RUN_PICK_DEFAULT), &spread);
out:
  Plan_free(&plan);
  return rc;
}

const Command Cmd_run = {
  .name = "run",
  .summary = "time, verify and profile variants on this GPU; records autosaved to the session",
  .description = "Runs every variant x knob setting x shape of the plan in the worker process: "
                 "compiles the variant with NVRTC for this GPU, checks its output against the "
                 "fp32 reference, times it and collects the metrics. A variant given no --knob runs "
                 "the knobs benchtop tune found for each shape on this GPU where there are "
                 "some (the user's tuned table, then the one shipped for this GPU; one line "
                 "says so), else its defaults. Each record is printed as "
                 "it arrives and the session file is rewritten after every one; Ctrl-C keeps "
                 "the finished records. -o FILE: a new file is created before anything runs; "
                 "an existing session of this GPU gets the new records appended with --append "
                 "(without it, refused); --force "
                 "replaces it instead; links, devices, FIFOs, directories and other files are "
                 "refused, as is a session another benchtop is writing. A closed stdout does "
                 "not stop the run.\n\n"
                 "With --shard I/N it runs slice I of N of the plan: plan entry k (from 0, in "
                 "plan order) belongs to shard (k mod N) + 1, the same on every host. Run the N "
                 "shards anywhere (--shard slurm reads the task of a Slurm job array) and "
                 "combine their sessions with benchtop merge (docs/cluster.md).\n\n"
                 "With --devices all (or 0,2,3) every GPU of this host runs a worker of its "
                 "own; entries go to whichever is free, and the session holds the records in "
                 "plan order, each naming its GPU (index, UUID, name). A GPU whose worker keeps "
                 "dying is dropped and the others go on (docs/cluster.md).",
  .options = run_options, .noptions = RUN_NOPTS,
  .flags = CMD_NEEDS_GPU,
  .exec = Run_exec,
};
