/* Several GPUs of one host: one Runner (one worker process, pinned with BENCHTOP_DEVICE) per
 * GPU, plan entries handed out one at a time as workers free up, events in the Runner's
 * vocabulary (bench/runner/runner.h) so that `run`, `replay` and `tune` drive one or several GPUs
 * alike. Without devices the pool is one Runner whose events pass through unchanged.
 *
 * Records arrive in the order they finish (not plan order): each carries the index of its entry
 * in what was submitted (record.plan_index) and its GPU (record.device.index, uuid, name). A
 * worker that dies or hangs costs its record and is replaced by its Runner; a GPU whose
 * records fail that way RUNNER_POOL_DROP_AFTER times in a row, or whose worker cannot start,
 * is dropped with a warning, its entry handed to another GPU; the rest go on. */
#ifndef BENCHTOP_RUNNER_POOL_H
#define BENCHTOP_RUNNER_POOL_H

#include "bench/runner/runner.h"

#define RUNNER_POOL_MAX 64
#define RUNNER_POOL_DROP_AFTER 3

typedef struct RunnerPool RunnerPool;

/* Parses --devices: "all" (*all set, no indices) or "0,2,3" (distinct, 0..RUNNER_POOL_MAX-1).
 * Returns the number of indices, or -1 with err (one line). */
int RunnerPool_parseDevices(const char *spec, int *indices, bool *all, char *err, size_t errsize);
/* ndevices 0 and !all: one worker on the default device, events passed through (no pool). With
 * all, the first worker's hello says how many GPUs there are and the others start then. */
RunnerPool *RunnerPool_new(const char *exe, const int *devices, int ndevices, bool all);
void RunnerPool_free(RunnerPool *p);
void RunnerPool_start(RunnerPool *p);
void RunnerPool_submit(RunnerPool *p, const PlanEntry *entries, int count);
void RunnerPool_cancel(RunnerPool *p);
void RunnerPool_wait(const RunnerPool *p, int max_ms);
/* As Runner_poll. The first RUNNER_HELLO is the only one passed on (later GPUs of another kind
 * are a warning); a --devices index the machine does not have is RUNNER_FAILED with one line,
 * before any entry ran. */
bool RunnerPool_poll(RunnerPool *p, RunnerEvent *ev);
/* True when several GPUs run the plan (records then carry their entry's index). */
bool RunnerPool_isPool(const RunnerPool *p);

#endif
