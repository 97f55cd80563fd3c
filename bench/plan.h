/* Plans: variants x knob settings x shapes x options, expanded into entries the worker runs
 * one at a time. Pure C, no CUDA: the parent builds and checks plans. */
#ifndef BENCHTOP_PLAN_H
#define BENCHTOP_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/registry.h"
#include "sessions/session.h"

typedef struct PlanEntry {
  const Variant *variant;
  KnobValues knobs;
  Shape shape;
  RunOptions opts;
  char metrics[512];  /* "default", "none" or names */
} PlanEntry;

/* The options' ranges, one place for `benchtop run` and the TUI's run options. */
enum {
  PLAN_REPS_MIN = 1, PLAN_REPS_MAX = 100000, PLAN_WARMUP_MIN = 0, PLAN_WARMUP_MAX = 100000,
  PLAN_WATCHDOG_MIN = 1, PLAN_WATCHDOG_MAX = 3600,
};

/* Default options: 100 reps, 10 warm-up launches, watchdog 10 s, seed from the clock. */
void Plan_defaultOptions(RunOptions *o);
/* Parses "-v" text ("all", "naive,mma") into plan->variants; unknown names give one line. */
bool Plan_setVariants(Plan *p, const char *text, char *err, size_t errsize);
/* Adds one --knob "k=v" or "k=v1,v2" (a sweep). Unknown knobs (in no selected variant) or
 * values outside the allowed set give one line. Call after Plan_setVariants. */
bool Plan_addKnob(Plan *p, const char *text, char *err, size_t errsize);
/* Expands to entries: every variant x every combination of its swept knobs x every shape. */
bool Plan_expand(const Plan *p, PlanEntry **out, int *count, char *err, size_t errsize);

#endif
