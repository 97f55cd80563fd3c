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

enum { DIFF_FORMAT, DIFF_FAIL_ABOVE, DIFF_MATCH, DIFF_MARGIN, DIFF_WIDE, DIFF_NOPTS };

static const CommandOption diff_options[] = {
  [DIFF_FORMAT] = CMD_OPTION_FORMAT,
  [DIFF_FAIL_ABOVE] = {.name = "fail-above", .value = CMD_NUMBER, .arg = "PCT",
                       .help = "exit 1 when a matched record's p50 interval lies wholly above "
                               "+PCT % (or it no longer passes)",
                       .lo = 0, .hi = 1e9},
  [DIFF_MATCH] = {.name = "match", .short_name = 'm', .value = CMD_TEXT, .arg = "HOW",
                  .help = "pair records that differ: variant (any knobs), shape (any variant), "
                          "or 'SEL vs SEL' such as 'mma block_m=64 vs mma block_m=128'"},
  [DIFF_MARGIN] = {.name = "margin", .value = CMD_NUMBER, .arg = "PCT",
                   .help = "changes smaller than PCT % count as tied (default 2)",
                   .lo = 0, .hi = 99},
  [DIFF_WIDE] = {.name = "wide", .value = CMD_FLAG,
                 .help = "the table shows every metric's change, not only the brief ones"},
};

static const CommandArg diff_args[] = {
  {"A.json", "the baseline session", NULL, CMD_COMPLETE_SESSION, 0},
  {"B.json", "the session compared with it (left out: A itself, with --match 'SEL vs SEL')",
   NULL, CMD_COMPLETE_SESSION, CMD_ARG_OPTIONAL},
};

static int Diff_exec(const CommandArgs *a) {
  OutputFormat fmt = (OutputFormat)Command_format(a, DIFF_FORMAT);
  DiffOptions o;
  Diff_defaultOptions(&o);
  o.fail_above_pct = CommandArgs_number(a, DIFF_FAIL_ABOVE, NAN);
  o.stats.margin = CommandArgs_number(a, DIFF_MARGIN, o.stats.margin * 100) / 100;
  o.wide = CommandArgs_has(a, DIFF_WIDE);
  char err[1024];
  if (!DiffMatch_parse(CommandArgs_text(a, DIFF_MATCH, NULL), &o.match, err, sizeof err))
    return Command_usageError(&Cmd_diff, "%s", err);
  bool one_file = a->npos == 1;
  if (one_file && o.match.mode != MATCH_PAIR)
    return Command_usageError(&Cmd_diff, "one session file compares two selections of it: "
                                         "give --match 'SEL vs SEL', or a second file");
  Session sa, sb;
  if (!Session_load(a->pos[0], &sa, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return BT_EXIT_FAILED;
  }
  if (!one_file && !Session_load(a->pos[1], &sb, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    Session_free(&sa);
    return BT_EXIT_FAILED;
  }
  DiffSummary sum;
  Diff_print(stdout, &sa, one_file ? &sa : &sb, &o, fmt, &sum);
  if (sum.matched == 0)
    fprintf(stderr, "benchtop diff: no record of A matched one of B%s\n",
            o.match.mode == MATCH_KEY ? " (same variant, knobs and shape); --match pairs records "
                                        "that differ"
                                      : "");
  Session_free(&sa);
  if (!one_file) Session_free(&sb);
  return sum.regressions > 0 || sum.matched == 0 ? BT_EXIT_FAILED : BT_EXIT_OK;
}

const Command Cmd_diff = {
  .name = "diff",
  .summary = "compare two sessions record by record: p50 change with its interval, faster, "
             "slower or tied",
  .description = "Pairs the records of two sessions by variant, knobs and shape (or as --match "
                 "says) and prints, for each pair, the p50 change with its 95 % confidence "
                 "interval (a bootstrap of the two records' samples) and a verdict: faster or "
                 "slower when the whole interval lies beyond the margin, else tied; then the "
                 "change of the error and of every metric, and the records found in one "
                 "session only.\n\n"
                 "--match pairs records that differ: 'variant' (same variant and shape, any "
                 "knobs), 'shape' (any variant), or two selectors 'SEL vs SEL', each a variant "
                 "(or *) and knob settings, e.g. 'mma block_m=64 vs mma block_m=128': the "
                 "records each selects, at the same shape and with the same values of the knobs "
                 "neither names. With one session file, both selections come from it.\n\n"
                 "With --fail-above it is a regression gate: a pair whose interval lies wholly "
                 "above +PCT %, or that passed in A and does not in B, makes it exit 1. It also "
                 "exits 1 when nothing matched. Needs no GPU.",
  .options = diff_options, .noptions = DIFF_NOPTS,
  .args = diff_args, .nargs = CMD_COUNT(diff_args),
  .exec = Diff_exec,
};
