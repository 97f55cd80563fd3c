/* The parent's side of the engine: runs a plan through a worker process (`benchtop worker`),
 * one entry at a time, without blocking. A worker that dies or passes the watchdog costs one
 * record (REC_ERROR with the reason) and is replaced; the plan goes on. The parent never calls
 * CUDA. Used by `benchtop run` and by the TUI (which polls Runner_fd with its own input).
 *
 * Nothing the worker sends is trusted: lines are bounded (RUNNER_LINE_MAX), each must be one
 * protocol message for the request in flight, and a record is validated like a session record
 * (Record_fromJson) and must answer the request it claims to. What is not valid is skipped and
 * said (RUNNER_WARNING); when it may have been the answer, a ping finds out at once (the worker
 * answers pings in order, so a pong before the record means the record was the bad line).
 * Events never get lost: records and the end of a run always queue; progress and warnings,
 * the only kinds a worker can repeat at will, are merged into the newest queued one, so the
 * queue stays as small as the plan whatever a worker writes. One Runner drives one worker. */
#ifndef BENCHTOP_RUNNER_H
#define BENCHTOP_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/plan.h"
#include "sessions/record.h"

/* The longest line accepted from a worker: a record of 100000 samples is ~2.4 MB. */
#define RUNNER_LINE_MAX (8u << 20)
/* Workers that exit before saying hello this many times in a row end the run. */
#define RUNNER_START_FAILURES_MAX 4

typedef enum {
  RUNNER_NONE = 0,
  RUNNER_HELLO,     /* worker up: ev.device filled */
  RUNNER_PROGRESS,  /* ev.message says what runs now; ev.done / ev.total */
  RUNNER_RECORD,    /* ev.record is a finished record (the caller takes ownership) */
  RUNNER_NO_GPU,    /* the worker found no usable CUDA device: ev.message says why */
  RUNNER_FINISHED,  /* the plan is done (or cancelled) */
  RUNNER_BUILT,     /* a background build (Runner_prebuild) ended: ev.message says how */
  RUNNER_WARNING,   /* the worker sent something invalid (skipped): ev.message, ev.repeats */
  RUNNER_FAILED,    /* the worker cannot be started: the rest of the plan is dropped */
} RunnerEventKind;

typedef struct RunnerEvent {
  RunnerEventKind kind;
  Record record;
  DeviceInfo device;
  char message[512]; /* sanitised: safe to print */
  int done, total;
  int repeats;       /* RUNNER_WARNING: further warnings merged into this one */
  int devices;       /* RUNNER_HELLO: CUDA devices the worker's machine has (0: not said) */
  /* RUNNER_RECORD: the entry it answers, by the id of the request that carried it: its place
   * in what was submitted since the batch began (a RunnerPool: since the pool began); -1 for
   * none. Never found again from the record's variant, knobs or shape. */
  int request;
} RunnerEvent;

typedef struct Runner Runner;

/* Starts a worker (lazily: the first Runner_poll spawns it). exe: path of the benchtop binary
 * (NULL: $BENCHTOP_WORKER, else /proc/self/exe). */
Runner *Runner_new(const char *exe);
/* Stops the worker; queued events (and their records) are dropped. */
void Runner_free(Runner *r);
/* Starts the worker now, with nothing queued, so that its device is known (RUNNER_HELLO)
 * before entries are submitted: --knob auto and tune need the device to choose them. */
void Runner_start(Runner *r);
/* Starts the worker now, with nothing queued, so that its device is known (RUNNER_HELLO)
 * before entries are submitted: --knob auto and tune need the device to choose them. A worker
 * that cannot start ends in RUNNER_NO_GPU or RUNNER_FAILED. */
void Runner_start(Runner *r);
/* The worker runs on CUDA device index (BENCHTOP_DEVICE in its environment); call before it
 * starts. */
void Runner_setDevice(Runner *r, int index);
/* Queues a plan's entries (the runner keeps copies). */
void Runner_submit(Runner *r, const PlanEntry *entries, int count);
/* Drops queued entries and stops the record in flight (the worker is asked to cancel, then
 * killed if it does not answer within two seconds, or at once on a second call). A
 * RUNNER_FINISHED always follows. */
void Runner_cancel(Runner *r);
bool Runner_busy(const Runner *r);
/* Compiles (and loads) an entry's kernel in the worker in the background, so that running it
 * later finds it warm: the TUI calls this when a knob changes. Builds wait behind queued runs;
 * a newer build of the same variant replaces an older one still waiting. Ends in RUNNER_BUILT. */
void Runner_prebuild(Runner *r, const PlanEntry *e);
/* File descriptor to poll for input from the worker (-1 when none is running). */
int Runner_fd(const Runner *r);
/* Milliseconds until the runner needs a Runner_poll although its fd is quiet (watchdog, a
 * worker to restart, events still queued: 0); -1 when nothing is due. */
int Runner_timeoutMs(const Runner *r);
/* For loops with nothing else to watch: waits until the worker has something, the watchdog
 * needs attention, or max_ms passed (so the caller can look at its own flags). */
void Runner_wait(const Runner *r, int max_ms);
/* Handles what is ready without blocking (a bounded amount of input per call, so a worker that
 * floods its pipe cannot keep the caller from its own flags); fills ev and returns true when
 * there is an event. Call until it returns false after each wake-up. */
bool Runner_poll(Runner *r, RunnerEvent *ev);
/* Warm worker: device facts once hello arrived (NULL before). */
const DeviceInfo *Runner_device(const Runner *r);

#endif
