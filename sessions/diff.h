/* Comparing two sessions: records matched by variant, knobs and shape (Record_sameKey), in
 * order when a key repeats. Used by `benchtop diff` and `benchtop replay`. */
#ifndef BENCHTOP_DIFF_H
#define BENCHTOP_DIFF_H

#include <stdio.h>

#include "sessions/export.h"
#include "sessions/session.h"

/* Prints per-record deltas (Δp50 %, Δ rel error, Δ headline metrics), then the records only in
 * a or only in b, in fmt. Returns the number of regressions: matched records whose p50 got
 * slower by more than fail_above_pct percent, or that passed in a and do not pass in b.
 * fail_above_pct NAN: no threshold, returns 0. */
int Diff_print(FILE *out, const Session *a, const Session *b, double fail_above_pct,
               OutputFormat fmt);

#endif
