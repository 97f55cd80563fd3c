/* benchtop tune --grid: every variant tuned at every problem of a grid, one search per variant
 * and problem (a unit), several units at a time so that --devices keeps every GPU busy; the
 * session is the grid's record (a rerun with it skips the units it holds complete); at the end
 * the tuned table. cmd_tune_grid.c sets it up, resumes and concludes; cmd_tune_grid_loop.c runs
 * the units. */
#ifndef BENCHTOP_CMD_TUNE_GRID_H
#define BENCHTOP_CMD_TUNE_GRID_H

#include <stdbool.h>

#include "bench/runner/runner_pool.h"
#include "bench/tune/tune_grid.h"
#include "bench/tune/tune_prebuild.h"
#include "cmd/cmd_tune.h"

enum { UNIT_TODO, UNIT_RUNNING, UNIT_DONE, UNIT_SKIPPED };

/* One variant at one problem of the grid. */
typedef struct GridUnit {
  int problem, variant;  /* indices into the grid's problems and the plan's variants */
  int state;             /* UNIT_* */
  bool from_session;     /* complete in the session before this run */
  Tuner *t;              /* from the worker's hello until it ends */
  Prebuild *pb;          /* its batch compiling */
  PlanEntry *batch;      /* its batch (TUNE_GRID_BATCH entries) */
  int nbatch, out;       /* entries asked of the tuner; submitted and not back yet */
  int measured, budget;
} GridUnit;

#define TUNE_GRID_BATCH 64

typedef struct GridRun {
  TuneCli *cli;
  const TuneGrid *grid;
  Session *s;
  GridUnit *units;
  char **skip_notes;     /* per unit, why the check before the worker skipped it (or NULL) */
  int nunits, next, active, max_active, jobs, cc, rc;
  RunnerPool *r;
  bool ready, cancelled, finished, tty, unsaved, resumed;
  bool seed_given;        /* --seed; else the grid's own (of what it tunes, or its session's when it grew) */
  double t0, deadline, saved_ms, drawn_ms, save_cost_ms;
  int measured_now, planned_now; /* measurements of this run, taken and planned (the ETA) */
  int done_now, done_before, skipped;
} GridRun;

/* The unit's search (its own seed, one variant, one problem); NULL with one line in err when
 * the variant has nothing to search there on device d. */
Tuner *Grid_unitTuner(const GridRun *g, const GridUnit *u, const DeviceInfo *d, char *err,
                      size_t errsize);
/* Says why units were skipped (notes[i]: unit i's reason, NULL when not skipped now): a line
 * each, or one for a variant skipped at every problem. */
void Grid_saySkipped(const GridRun *g, char **notes);
/* Runs the units still to do, to their end, a stop by --time or a signal. Returns the exit
 * code. */
int Grid_loop(GridRun *g);

#endif
