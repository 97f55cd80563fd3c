/* benchtop run: a plan (variants x knob sweeps x shapes) through the worker, records printed
 * as they arrive and autosaved to the session after each one. Ctrl-C keeps what finished. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/plan.h"
#include "cmd/run_loop.h"
#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/export.h"

static bool Run_parseInt(const char *opt, const char *text, int lo, int hi, int *out) {
  char *end;
  long v = strtol(text, &end, 10);
  if (*text == '\0' || *end || v < lo || v > hi) {
    fprintf(stderr, "benchtop run: %s must be a whole number from %d to %d, not '%s'\n", opt, lo,
            hi, text);
    return false;
  }
  *out = (int)v;
  return true;
}

static int Run_exec(int argc, char **argv) {
  static const struct option longopts[] = {
    {"variants", required_argument, NULL, 'v'}, {"shapes", required_argument, NULL, 's'},
    {"knob", required_argument, NULL, 'k'}, {"metrics", required_argument, NULL, 'm'},
    {"reps", required_argument, NULL, 'r'}, {"warmup", required_argument, NULL, 'w'},
    {"cold-l2", no_argument, NULL, 'c'}, {"graph", no_argument, NULL, 'g'},
    {"timing", required_argument, NULL, 'T'},
    {"output", required_argument, NULL, 'o'}, {"format", required_argument, NULL, 'f'},
    {"seed", required_argument, NULL, 'S'}, {"watchdog", required_argument, NULL, 'W'},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  Plan plan;
  memset(&plan, 0, sizeof plan);
  Plan_defaultOptions(&plan.opts);
  Util_strlcpy(plan.metrics, "default", sizeof plan.metrics);
  const char *variants = NULL, *shapes = NULL, *out_path = NULL;
  char *knobs[32];
  int nknobs = 0;
  OutputFormat fmt = FMT_TABLE;
  char err[512];
  int rc = BT_EXIT_USAGE;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "v:s:k:m:r:w:o:f:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'v': variants = optarg; break;
    case 's': shapes = optarg; break;
    case 'k':
      if (nknobs == 32) { fprintf(stderr, "benchtop run: too many --knob options (32 at most)\n"); goto out; }
      knobs[nknobs++] = optarg;
      break;
    case 'm': Util_strlcpy(plan.metrics, optarg, sizeof plan.metrics); break;
    case 'r': if (!Run_parseInt("--reps", optarg, 1, 100000, &plan.opts.reps)) goto out; break;
    case 'w': if (!Run_parseInt("--warmup", optarg, 0, 100000, &plan.opts.warmup)) goto out; break;
    case 'c': plan.opts.cold_l2 = true; break;
    case 'g': plan.opts.graph = true; break;
    case 'T':
      if (strcmp(optarg, "kernel") != 0 && strcmp(optarg, "events") != 0) {
        fprintf(stderr, "benchtop run: unknown --timing '%s' (kernel or events)\n", optarg);
        goto out;
      }
      plan.opts.event_timing = strcmp(optarg, "events") == 0;
      break;
    case 'o': out_path = optarg; break;
    case 'f':
      if (!Export_parseFormat(optarg, &fmt)) {
        fprintf(stderr, "benchtop run: unknown format '%s' (table, json, csv or md)\n", optarg);
        goto out;
      }
      break;
    case 'S': plan.opts.seed = strtoull(optarg, NULL, 10); break;
    case 'W': {
      int w;
      if (!Run_parseInt("--watchdog", optarg, 1, 3600, &w)) goto out;
      plan.opts.watchdog_s = w;
      break;
    }
    case 'h': printf("usage: benchtop run %s\n", Cmd_run.usage); rc = BT_EXIT_OK; goto out;
    default: goto out;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "benchtop run: unexpected argument '%s' (try benchtop run --help)\n", argv[optind]);
    goto out;
  }
  if (!variants || !shapes) {
    fprintf(stderr, "benchtop run: needs -v VARIANTS and -s SHAPES (e.g. -v mma -s 2x8x512x64)\n");
    goto out;
  }
  if (!Plan_setVariants(&plan, variants, err, sizeof err) ||
      !Shape_parseList(shapes, &plan.shapes, &plan.nshapes, err, sizeof err)) {
    fprintf(stderr, "benchtop run: %s\n", err);
    goto out;
  }
  for (int i = 0; i < nknobs; i++)
    if (!Plan_addKnob(&plan, knobs[i], err, sizeof err)) {
      fprintf(stderr, "benchtop run: %s\n", err);
      goto out;
    }
  if (strcmp(plan.metrics, "none") != 0 && !RunLoop_checkMetrics(plan.metrics, err, sizeof err)) {
    fprintf(stderr, "benchtop run: %s\n", err);
    goto out;
  }
  rc = RunLoop_run(&plan, out_path, fmt, NULL);
out:
  Plan_free(&plan);
  return rc;
}

const Command Cmd_run = {
  "run",
  "-v VARIANTS -s SHAPES [--knob k=v[,v2]] [--metrics default|none|NAME,...] [--reps N]\n"
  "               [--warmup N] [--cold-l2] [--graph] [--timing kernel|events] [--seed N]\n"
  "               [--watchdog SEC] [-o SESSION.json] [--format table|json|csv|md]",
  "time, verify and profile variants on this GPU; records autosaved to the session",
  Run_exec};
