/* The events said but not yet taken, oldest first: the runner's and the pool's own share one
 * queue, so that adding (zeroed, with the progress counts), taking and freeing (the records
 * not taken included) are written once. Internal to bench/. */
#ifndef BENCHTOP_RUNNER_EVENTS_H
#define BENCHTOP_RUNNER_EVENTS_H

#include "bench/runner/runner.h"

typedef struct RunnerEvents {
  RunnerEvent *items;
  int n, cap;
} RunnerEvents;

/* A new event at the end: zeroed but for kind, done and total. */
RunnerEvent *RunnerEvents_push(RunnerEvents *q, RunnerEventKind kind, int done, int total);
/* The oldest event into *ev (the caller then owns its record); false when there is none. */
bool RunnerEvents_take(RunnerEvents *q, RunnerEvent *ev);
void RunnerEvents_free(RunnerEvents *q);

#endif
