/* Comparing two sessions record by record (benchtop diff, benchtop replay): pairs as
 * diff_match.h describes, each p50 change with its confidence interval and a faster / slower /
 * tied verdict (compare_stats.h), the error and every metric's change. */
#ifndef BENCHTOP_DIFF_H
#define BENCHTOP_DIFF_H

#include <stdio.h>

#include "sessions/compare_stats.h"
#include "sessions/diff_match.h"
#include "sessions/export.h"
#include "sessions/session.h"

typedef struct DiffOptions {
  double fail_above_pct; /* a regression: the p50 interval lies wholly above +PCT %, or a record
                            that passed no longer passes; NAN: no gate */
  CompareOptions stats;  /* confidence, margin */
  DiffMatch match;
  bool wide;             /* table: every metric's change, not only the catalog's brief ones */
} DiffOptions;

/* No gate, the default statistics, matched by variant, knobs and shape. */
void Diff_defaultOptions(DiffOptions *o);

typedef struct DiffSummary {
  int matched, only_a, only_b, outside;
  int faster, slower, tied, na; /* verdicts of the matched pairs */
  int changed;                  /* verdict faster/slower, or a status that changed */
  int regressions;
} DiffSummary;

/* Prints the pairs in fmt and fills *sum. */
void Diff_print(FILE *out, const Session *a, const Session *b, const DiffOptions *o,
                OutputFormat fmt, DiffSummary *sum);

#endif
