/* Batch execution shared by `benchtop run` and `benchtop replay`: a plan through the runner,
 * records printed as they arrive, the session autosaved after every record, a progress bar on
 * a terminal, Ctrl-C keeping every finished record. */
#ifndef BENCHTOP_RUN_LOOP_H
#define BENCHTOP_RUN_LOOP_H

#include <stdbool.h>

#include "bench/runner/runner_pool.h"
#include "sessions/export.h"
#include "sessions/session.h"
#include "sessions/shard.h"

/* Where the records go (-o). */
typedef struct RunOutput {
  const char *path;     /* NULL: a new file under the sessions directory */
  bool force;           /* --force: replace what is at path instead of appending to it */
  const char *not_this; /* a file path must not be (replay's input), or NULL */
  bool append;          /* --append: add to a session already at path (without it: refused) */
} RunOutput;

/* Where the plan runs: a slice of it (--shard, sessions/shard.h), on several GPUs (--devices,
 * bench/runner/runner_pool.h). Zeroes: the whole plan on the default GPU. */
typedef struct RunSpread {
  ShardSpec shard;          /* count 0: the whole plan */
  int devices[RUNNER_POOL_MAX];
  int ndevices;
  bool all_devices;
} RunSpread;

/* Parses --shard (I/N or slurm) and --devices (all or 0,2,3) into *spread; NULL for an option
 * not given. False with err (one line) when one is malformed. */
bool RunLoop_parseSpread(const char *shard, const char *devices, RunSpread *spread, char *err,
                         size_t errsize);

/* Runs plan (spread: only a slice of it, on several GPUs; every record keeps its host, its GPU
 * and its entry's place in the whole plan; the session holds them in plan order); with tuned_by_default (run, not replay) a variant
 * given no knob runs the tuned knobs of each shape where this GPU has some
 * (TunedTable_resolve), and the session's plan records them as explicit knobs for replay
 * (Plan_pin); where those knobs come from another problem's entry, pick > 1 measures the knobs
 * of that many nearest tuned problems there first and runs the fastest (cmd/run_pick.h). Saves to output's file, claimed before anything runs: a new file, or with append
 * added to an existing session of the same GPU (SESSION_OUT_APPEND; a session with records
 * there without append is refused), or with force replacing it. When result
 * is not NULL it receives the session (caller frees). Returns the exit code: 0 all passed (or
 * n/a), 1 a record failed verification or errored, or something could not be saved, 2 a bad
 * plan, 3 no GPU, 130 interrupted (SIGINT, SIGTERM, SIGHUP: the finished records are saved).
 * A closed stdout does not stop the run: every record is still saved, and stderr says so. */
int RunLoop_run(const Plan *plan, const RunOutput *output, OutputFormat fmt, Session *result,
                bool tuned_by_default, int pick, const RunSpread *spread);
/* The base seed a sharded plan uses when none was given: the same on every host. */
uint64_t RunLoop_shardSeed(const Plan *plan);
/* Checks a --metrics spec's syntax (availability is decided per metric on the GPU). */
bool RunLoop_checkMetrics(const char *spec, char *err, size_t errsize);

/* False with one line in err when every variant asked for refuses one of the plan's problems
 * (with the knobs asked for and with its defaults): a usage error before any worker starts. */
bool RunLoop_problemsRunnable(const PlanEntry *entries, int n, char *err, size_t errsize);

#endif
