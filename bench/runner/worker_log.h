/* worker.log, bounded: the previous run's log is kept as worker.log.1 and each run (each
 * benchtop process that starts workers) begins a new one; within a run the workers may write
 * at most WORKER_LOG_MAX_BYTES (BENCHTOP_WORKER_LOG_MAX overrides it), what comes after is
 * dropped and a line at the log's end says so. A chatty worker cannot fill the disk. */
#ifndef BENCHTOP_WORKER_LOG_H
#define BENCHTOP_WORKER_LOG_H

#include <stdbool.h>
#include <stdint.h>

#define WORKER_LOG_MAX_BYTES (32ll << 20)

/* The cap in bytes for this run (the environment's override when it is a number >= 4096). */
int64_t WorkerLog_cap(void);
/* Once per process, before the first worker opens path: a previous run's log (a regular file,
 * never a link or anything else) is renamed to path.1, replacing the one before it. */
void WorkerLog_beginRun(const char *path);
/* In the child between fork and exec (async-signal-safe): files it writes stop growing at cap
 * bytes, writes past it fail (EFBIG) instead of killing it with SIGXFSZ. */
void WorkerLog_limitChild(int64_t cap);
/* When the log has reached the cap: appends one line saying so (once per process). */
void WorkerLog_noteIfFull(const char *path);

#endif
