/* The parent's side of the engine: runs a plan through a worker process (`benchtop worker`),
 * one entry at a time, without blocking. A worker that dies or passes the watchdog costs one
 * record (REC_ERROR with the reason) and is replaced; the plan goes on. The parent never calls
 * CUDA. Used by `benchtop run` and by the TUI (which polls Runner_fd with its own input). */
#ifndef BENCHTOP_RUNNER_H
#define BENCHTOP_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/plan.h"
#include "sessions/record.h"

typedef enum {
  RUNNER_NONE = 0,
  RUNNER_HELLO,     /* worker up: ev.device filled */
  RUNNER_PROGRESS,  /* ev.message says what runs now; ev.done / ev.total */
  RUNNER_RECORD,    /* ev.record is a finished record (the caller takes ownership) */
  RUNNER_NO_GPU,    /* the worker found no usable CUDA device: ev.message says why */
  RUNNER_FINISHED,  /* the plan is done (or cancelled) */
  RUNNER_BUILT,     /* a background build (Runner_prebuild) ended: ev.message says how */
} RunnerEventKind;

typedef struct RunnerEvent {
  RunnerEventKind kind;
  Record record;
  DeviceInfo device;
  char message[512];
  int done, total;
} RunnerEvent;

typedef struct Runner Runner;

/* Starts a worker (lazily: the first Runner_poll spawns it). exe: path of the benchtop binary
 * (NULL: /proc/self/exe). */
Runner *Runner_new(const char *exe);
void Runner_free(Runner *r);
/* Starts the worker now, with nothing queued, so that its device is known (RUNNER_HELLO)
 * before entries are submitted: --knob auto and tune need the device to choose them. */
void Runner_start(Runner *r);
/* Queues a plan's entries (the runner keeps copies). */
void Runner_submit(Runner *r, const PlanEntry *entries, int count);
/* Drops queued entries and stops the record in flight (the worker is asked to cancel, then
 * killed if it does not answer within a second). */
void Runner_cancel(Runner *r);
bool Runner_busy(const Runner *r);
/* Compiles (and loads) an entry's kernel in the worker in the background, so that running it
 * later finds it warm: the TUI calls this when a knob changes. Builds wait behind queued runs;
 * a newer build of the same variant replaces an older one still waiting. Ends in RUNNER_BUILT. */
void Runner_prebuild(Runner *r, const PlanEntry *e);
/* File descriptor to poll for input from the worker (-1 when none is running). */
int Runner_fd(const Runner *r);
/* Milliseconds until the watchdog needs attention (-1: no deadline). */
int Runner_timeoutMs(const Runner *r);
/* For loops with nothing else to watch: waits until the worker has something, the watchdog
 * needs attention, or max_ms passed (so the caller can look at its own flags). */
void Runner_wait(const Runner *r, int max_ms);
/* Handles whatever is ready without blocking; fills ev and returns true when there is an
 * event. Call until it returns false after each poll wake-up. */
bool Runner_poll(Runner *r, RunnerEvent *ev);
/* Warm worker: device facts once hello arrived (NULL before). */
const DeviceInfo *Runner_device(const Runner *r);

#endif
