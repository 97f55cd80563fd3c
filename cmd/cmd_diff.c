/* benchtop diff: per-record deltas between two sessions; with --fail-above PCT it is a
 * regression gate (exit 1 when a matched p50 got more than PCT % slower). Needs no GPU. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/diff.h"
#include "sessions/export.h"
#include "sessions/session.h"

static int Cmd_diff_exec(int argc, char **argv) {
  static const struct option longopts[] = {
    {"format", required_argument, NULL, 'f'}, {"fail-above", required_argument, NULL, 'F'},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
  };
  OutputFormat fmt = FMT_TABLE;
  double pct = NAN;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "f:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'f':
      if (!Export_parseFormat(optarg, &fmt)) {
        fprintf(stderr, "benchtop diff: unknown format '%s' (table, json, csv or md)\n", optarg);
        return BT_EXIT_USAGE;
      }
      break;
    case 'F': {
      char *end;
      pct = strtod(optarg, &end);
      if (end == optarg || *end != '\0' || !isfinite(pct) || pct < 0) {
        fprintf(stderr, "benchtop diff: --fail-above wants a percentage >= 0, not '%s'\n", optarg);
        return BT_EXIT_USAGE;
      }
      break;
    }
    case 'h': printf("usage: benchtop diff %s\n", Cmd_diff.usage); return BT_EXIT_OK;
    default: return BT_EXIT_USAGE;
    }
  }
  if (argc - optind != 2) {
    fprintf(stderr, "benchtop diff: expected two session files (usage: benchtop diff %s)\n",
            Cmd_diff.usage);
    return BT_EXIT_USAGE;
  }
  Session a, b;
  char err[1024];
  if (!Session_load(argv[optind], &a, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return BT_EXIT_FAILED;
  }
  if (!Session_load(argv[optind + 1], &b, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    Session_free(&a);
    return BT_EXIT_FAILED;
  }
  int regressions = Diff_print(stdout, &a, &b, pct, fmt);
  Session_free(&a);
  Session_free(&b);
  return regressions > 0 ? BT_EXIT_FAILED : BT_EXIT_OK;
}

const Command Cmd_diff = {"diff", "A.json B.json [--fail-above PCT] [--format table|json|csv|md]",
                          "compare two sessions record by record (exit 1 past --fail-above)",
                          Cmd_diff_exec};
