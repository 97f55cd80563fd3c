/* The runner's state, shared by runner.c (life cycle, queue, events),
 * runner_input.c (reading and judging the worker's lines) and runner_watchdog.c (deadlines).
 * Internal to bench/runner/. */
#ifndef BENCHTOP_RUNNER_PRIVATE_H
#define BENCHTOP_RUNNER_PRIVATE_H

#include <sys/types.h>

#include "bench/runner/runner.h"
#include "bench/runner/runner_events.h"

#define RUNNER_START_TIMEOUT_MS 120000.0 /* context creation */
#define RUNNER_PHASE_SENT "waiting for the worker" /* no word about the request yet */

typedef enum { W_NONE, W_STARTING, W_IDLE, W_BUSY, W_CANCELLING } WorkerState;

struct Runner {
  char *exe;
  char logpath[4200];       /* the worker's stderr ("" when there is no cache directory) */
  bool log_warned;
  pid_t pid;
  int to_fd, from_fd;
  WorkerState state;
  char phase[32];
  double deadline, last_armed; /* Util_nowMs() values; deadline 0 = none */
  double launch_ms;         /* one launch of the request in flight, as the worker measured it;
                               NAN until it says */
  /* Input: at most RUNNER_LINE_MAX bytes of one unfinished line. */
  char *buf;
  size_t len, cap;
  bool discarding;          /* inside an over-long line: dropped up to its newline */
  bool drained;             /* the last read found the pipe empty */
  bool armed;               /* the last read brought a message that moved the watchdog */
  /* Requests. */
  PlanEntry *queue;
  int nqueue, head, next_id, done, total;
  PlanEntry inflight;
  int inflight_id;
  int inflight_pos;         /* the request in flight's place in the batch (-1: a build) */
  bool building;            /* the request in flight is a background build */
  bool batch_active;        /* runs were submitted and FINISHED has not been said yet */
  PlanEntry *builds;
  int nbuilds;
  int ping_id;              /* request a ping was sent for after an invalid line (0: none) */
  char bad_line[200];       /* what was wrong with that line */
  int start_failures;       /* workers in a row that ended before hello */
  bool want_start;          /* Runner_start: a worker wanted with nothing queued */
  int warn_held;            /* warnings held back (at most one a second is said) */
  double warn_next_ms;
  double respawn_at;
  /* The worker. */
  bool have_device, no_gpu;
  char device_env[32];      /* "BENCHTOP_DEVICE=N" for the worker, "" to inherit */
  char no_gpu_why[512];     /* the worker's words, repeated to every later run */
  DeviceInfo device;
  /* Events not yet taken by Runner_poll. */
  RunnerEvents events;
};

/* runner.c */
RunnerEvent *Runner_push(Runner *r, RunnerEventKind kind);
void Runner_say(Runner *r, RunnerEventKind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void Runner_failInflight(Runner *r, RecordStatus st, const char *why);
void Runner_finish(Runner *r);
void Runner_builtEvent(Runner *r, bool ok, const char *detail);
void Runner_send(Runner *r, char *line);
/* The worker's measured time of one launch (capped): the watchdog scales with it. */
void Runner_setLaunchMs(Runner *r, double ms);
void Runner_sendNext(Runner *r);
void Runner_workerGone(Runner *r, const char *why);
void Runner_stopWorker(Runner *r, bool kill_it);
/* Names how a worker whose pipe closed ended (exit status, signal) in why, when it has. */
void Runner_reap(Runner *r, char *why, size_t size);
/* The rest of the plan cannot run: said once, then the batch ends. */
void Runner_abandon(Runner *r, const char *why);

/* runner_watchdog.c: the deadline of the phase in flight, and what passing it means. */
void Runner_armWatchdog(Runner *r);
double Runner_watchdogMs(const Runner *r);
/* The watchdog, the start timeout and the cancel timeout: ends the worker past its deadline. */
void Runner_checkDeadline(Runner *r);

/* runner_input.c: reads what the pipe holds (a bounded amount) and acts on each line. */
void Runner_read(Runner *r);

#endif
