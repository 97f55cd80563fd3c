/* benchtop diff: per-record deltas between two sessions; with --fail-above PCT it is a
 * regression gate (exit 1 when a matched p50 got more than PCT % slower). Needs no GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/diff.h"
#include "sessions/export.h"
#include "sessions/session.h"

enum { DIFF_FORMAT, DIFF_FAIL_ABOVE, DIFF_NOPTS };

static const CommandOption diff_options[] = {
  [DIFF_FORMAT] = CMD_OPTION_FORMAT,
  [DIFF_FAIL_ABOVE] = {.name = "fail-above", .value = CMD_NUMBER, .arg = "PCT",
                       .help = "exit 1 when a matched record's p50 got more than PCT % slower "
                               "(or it no longer passes)",
                       .lo = 0, .hi = 1e9},
};

static const CommandArg diff_args[] = {
  {"A.json", "the baseline session", NULL, CMD_COMPLETE_SESSION, 0},
  {"B.json", "the session compared with it", NULL, CMD_COMPLETE_SESSION, 0},
};

static int Diff_exec(const CommandArgs *a) {
  OutputFormat fmt = (OutputFormat)Command_format(a, DIFF_FORMAT);
  double pct = CommandArgs_number(a, DIFF_FAIL_ABOVE, NAN);
  Session sa, sb;
  char err[1024];
  if (!Session_load(a->pos[0], &sa, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return BT_EXIT_FAILED;
  }
  if (!Session_load(a->pos[1], &sb, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    Session_free(&sa);
    return BT_EXIT_FAILED;
  }
  int regressions = Diff_print(stdout, &sa, &sb, pct, fmt);
  Session_free(&sa);
  Session_free(&sb);
  return regressions > 0 ? BT_EXIT_FAILED : BT_EXIT_OK;
}

const Command Cmd_diff = {
  .name = "diff",
  .summary = "compare two sessions record by record (exit 1 past --fail-above)",
  .description = "Matches the records of two sessions by variant, knobs and shape and prints "
                 "the change of p50, error and the headline metrics of each pair, then the "
                 "records found in one session only. With --fail-above it is a regression "
                 "gate: a matched record that got slower by more than PCT %, or passed in A "
                 "and does not in B, makes it exit 1. Needs no GPU.",
  .options = diff_options, .noptions = DIFF_NOPTS,
  .args = diff_args, .nargs = CMD_COUNT(diff_args),
  .exec = Diff_exec,
};
