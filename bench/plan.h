/* Plans: variants x knob settings x shapes x options, expanded into entries the worker runs
 * one at a time. Pure C, no CUDA: the parent builds and checks plans. */
#ifndef BENCHTOP_PLAN_H
#define BENCHTOP_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/registry.h"
#include "sessions/session.h"

/* How an entry's knobs may still change once the device is known (TunedTable_resolve). */
enum {
  PLAN_AUTO_NONE = 0, /* as given: --knob values or the variant's defaults */
  PLAN_AUTO_ASKED,    /* --knob auto: the tuned knobs, or the defaults with a note why not */
  PLAN_AUTO_IF_TUNED, /* no --knob for the variant: the tuned knobs where there are some */
};

typedef struct PlanEntry {
  const Variant *variant;
  KnobValues knobs;
  Shape shape;
  RunOptions opts;
  char metrics[512];  /* "default", "none" or names */
  int knobs_auto;     /* PLAN_AUTO_*: whether tuned knobs replace the defaults */
  unsigned knobs_given; /* bit k: knob k was set by --knob k=v (auto leaves it alone) */
} PlanEntry;

/* The options' ranges, one place for `benchtop run`, the TUI's run options and plans read from
 * files (replay). */
enum {
  PLAN_REPS_MIN = 1, PLAN_REPS_MAX = 100000, PLAN_WARMUP_MIN = 0, PLAN_WARMUP_MAX = 100000,
  PLAN_WATCHDOG_MIN = 1, PLAN_WATCHDOG_MAX = 3600, PLAN_SPAN_MAX = 600,
  PLAN_ENTRIES_MAX = 100000, /* runs one plan may expand to (each a worker request and a record) */
};

/* Default options: 100 reps, 10 warm-up launches, watchdog 10 s, seed from the clock. */
void Plan_defaultOptions(RunOptions *o);
/* Parses "-v" text ("all", "naive,mma") into plan->variants; unknown names give one line. */
bool Plan_setVariants(Plan *p, const char *text, char *err, size_t errsize);
/* Adds one --knob "k=v" or "k=v1,v2" (a sweep) to every selected variant that has knob k;
 * repeated values count once (a second --knob of the same knob is refused); or "auto" (each
 * variant's tuned knobs for the shape, see
 * bench/tune/tune_table.h). Unknown knobs (in no selected variant) or values outside the allowed set
 * give one line. Call after Plan_setVariants. */
bool Plan_addKnob(Plan *p, const char *text, char *err, size_t errsize);
/* Sets --metrics text; a list longer than Plan.metrics holds is refused (one line), never cut. */
bool Plan_setMetrics(Plan *p, const char *text, char *err, size_t errsize);
/* The plan asks for --knob auto (the device must be known before its entries are final). */
bool Plan_hasAuto(const Plan *p);
/* Expands to entries: every variant x every combination of its own swept knobs x its shapes.
 * An unknown variant, knob or value is an error (one line), never dropped; so is a plan of more
 * than PLAN_ENTRIES_MAX runs (counted before anything is expanded). */
bool Plan_expand(const Plan *p, PlanEntry **out, int *count, char *err, size_t errsize);
/* The plan runs e's knobs at e's shape as explicit settings of e's variant, no longer the
 * variant's unset knobs there (what ran with tuned knobs is replayed with those knobs). */
void Plan_pin(Plan *p, const PlanEntry *e);
/* Everything a plan from a file must be before it runs: Plan_expand's checks and options within
 * the command line's ranges (reps, warm-up, watchdog). */
bool Plan_check(const Plan *p, char *err, size_t errsize);

#endif
