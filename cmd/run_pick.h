/* A plain run's pick: at a problem no table has tuned, the knobs of the nearest tuned problems
 * (TunedTable_neighbours) are measured there first, as Triton's autotuner measures its configs
 * at a new key, with the nearest ones refitted to fewer rounds of waves at this problem
 * (bench/tune/tune_wavefit.h: what no neighbour's winner can carry), and farther winners that set
 * a knob all the nearest agree on otherwise (bench/tune/tune_dissent.h); the fastest that passes
 * runs, and the user's tuned table keeps it (picked_of), so the next run at that problem takes
 * it unmeasured. No transfer rule read off the grid comes as close (docs/tuning.md: the held-out
 * replay). */
#ifndef BENCHTOP_RUN_PICK_H
#define BENCHTOP_RUN_PICK_H

#include <stdbool.h>

#include "bench/plan.h"
#include "bench/runner/runner.h"
#include "bench/tune/tune_transfer.h"
#include "sessions/record.h"

#define RUN_PICK_DEFAULT TRANSFER_PICK_K
#define RUN_PICK_MAX 16

typedef struct RunPickGroup RunPickGroup;

typedef struct RunPick {
  PlanEntry *cands;    /* the candidates' entries, in submission order, a group's together */
  double *p50;         /* cands[i]'s p50 (NAN until it passed) */
  char (*clock)[8];
  int ncands, ngroups, answered;
  int nfit;            /* of the candidates, neighbours' knobs refitted to fewer waves */
  int ndissent;        /* ... farther winners unlike all the nearest in a knob (bench/tune/tune_dissent.h) */
  RunPickGroup *groups;
} RunPick;

/* After TunedTable_resolve: the entries whose knobs came from another problem's entry (left
 * alone or --knob auto, no knob given) get up to k candidates each; one group per variant,
 * problem and conditions. Returns the candidates to measure first (0: nothing to pick). */
int RunPick_plan(RunPick *p, const PlanEntry *entries, int n, const DeviceInfo *d, int k);
/* A record of candidate i (its request's index); any other index is ignored. */
void RunPick_onRecord(RunPick *p, int i, const Record *r);
/* Every candidate answered: each group's entries take the fastest candidate that passed, their
 * notes say so, and the user's table keeps it. A group none of whose candidates passed keeps
 * the transfer rule's knobs and says so. Prints one line per group on stderr (tty: clear the
 * progress bar first). */
void RunPick_apply(RunPick *p, PlanEntry *entries, int n, const DeviceInfo *d,
                   char (*notes)[RECORD_AUTO_NOTE_MAX], bool tty);
void RunPick_free(RunPick *p);

#endif
