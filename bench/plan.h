/* The runner's check of a plan read from a file (replay): the Plan itself, its expansion and
 * pinning are sessions/plan.h. */
#ifndef BENCHTOP_BENCH_PLAN_H
#define BENCHTOP_BENCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "sessions/plan.h"
#include "sessions/session.h" /* the plans it checks come from sessions */

/* Everything a plan from a file must be before it runs: Plan_expand's checks and options within
 * the command line's ranges (reps, warm-up, watchdog). */
bool Plan_check(const Plan *p, char *err, size_t errsize);

#endif
