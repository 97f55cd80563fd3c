/* The Plan in one module: what the user asked for (variants, each with its own knob sweeps,
 * times shapes, metrics and options) and everything done with it. Its type and data (here and
 * plan_json.c: lifecycle, JSON, equality, merging two runs' plans, reading /1 plans), building
 * it from the command line, its expansion into the entries the worker runs and the pinning of
 * what tuned knobs chose (plan.c). `run`, `replay`, `tune`, `merge` and the TUI all go through
 * it; nothing else expands a plan. Knob text is read and written by kernels/knobs.h only. */
#ifndef BENCHTOP_PLAN_H
#define BENCHTOP_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "kernels/knobs.h"
#include "sessions/record.h"

/* One variant of a plan with its own knob settings (two variants may share a knob name and
 * want different values) and, when they differ from the plan's, its own shapes. */
typedef struct PlanVariant {
  char *name;
  int nknobs;
  char **knobs;         /* "k=v" or a sweep "k=v1,v2", one per knob name */
  int nshapes;
  Shape *shapes;        /* 0: the plan's shapes */
} PlanVariant;

/* What the user asked for; replay re-runs exactly this: every variant with its knob sweeps,
 * times its shapes. */
typedef struct Plan {
  int nvariants;
  PlanVariant *variants; /* in the order asked (after expanding "all"); a name may repeat with
                            other knobs (runs appended to one session) */
  int nshapes;
  Shape *shapes;
  char metrics[512];    /* "default", "none" or "NAME,NAME" */
  RunOptions opts;
  bool knobs_auto;      /* --knob auto: each variant's tuned knobs where it names none */
} Plan;

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
void Plan_init(Plan *p);
void Plan_free(Plan *p);
void Plan_copy(Plan *dst, const Plan *src);
/* Appends a variant with no knobs (and the plan's shapes). */
PlanVariant *Plan_addVariant(Plan *p, const char *name);
/* Removes variant i (what it held is freed; the later ones move up). */
void Plan_removeVariant(Plan *p, int i);
/* Sets the variant's sweep of one knob ("k=v1,v2"), replacing one of the same name. */
void PlanVariant_setKnob(PlanVariant *v, const char *spec);
/* The shapes a variant of p runs. */
const Shape *Plan_shapesOf(const Plan *p, const PlanVariant *v, int *n);
/* Adds src's variants that dst does not hold yet (same name, knobs and shapes), each with its
 * own shapes where they differ from dst's: what two runs appended to one session asked for. */
void Plan_merge(Plan *dst, const Plan *src);

cJSON *Plan_toJson(const Plan *p);
/* version: the file's schema version. A /1 plan has one knob list for all variants: it is
 * returned in flat_knobs (caller frees) for Plan_upgradeV1. */
bool Plan_fromJson(const cJSON *j, int version, Plan *out, char ***flat_knobs, int *nflat,
                   const char *path, char *err, size_t errsize);
/* Gives each variant of a /1 plan its own knobs: the values its records ran with, else the
 * sweeps of the flat list that it has (values it allows). Says so in note when it mattered. */
void Plan_upgradeV1(Plan *p, char *const *flat, int nflat, const Record *recs, int nrecs,
                    char *note, size_t notesize);

bool Plan_equal(const Plan *a, const Plan *b, const char *path, char *where, size_t wsize);

#endif
