/* benchtop tune's parts: the command line (cmd_tune.c), the search on a GPU
 * (cmd_tune_search.c) and the replay of recorded measurements (cmd_tune_simulate.c). */
#ifndef BENCHTOP_CMD_TUNE_H
#define BENCHTOP_CMD_TUNE_H

#include <stdbool.h>

#include "bench/tune/tune.h"
#include "bench/tune/tune_grid.h"
#include "cmd/run_loop.h"
#include "sessions/export.h"

/* What the command line asked of a search. */
typedef struct TuneCli {
  TuneRequest req;
  const char *out_path;
  OutputFormat fmt;
  int jobs;           /* prebuild processes; -1: Prebuild_defaultJobs() */
  bool save_table;
  RunSpread spread;   /* --devices: the measurements spread over several GPUs */
} TuneCli;


/* The search on a GPU into s (claimed already), to its end or Ctrl-C; then ranked, summarised,
 * saved, and its winners written to the tuned table. Returns the exit code. */
int TuneCmd_search(TuneCli *cli, Session *s);

/* --simulate SESSION.json: the strategies replayed `runs` times each against the session's
 * scores (the one given with --strategy, else random, evolutionary, annealing and local). */
int TuneCmd_simulate(const char *path, const TuneRequest *req, bool strategy_given, int runs,
                     double noise);

/* --grid: every variant tuned at every problem of the grid (cmd_tune_grid.c), the session going
 * on from cli->out_path when it holds this grid; the tuned table written once all are done, and
 * the shipped form to table_out (NULL: none). Returns the exit code. */
/* --transfer-eval SESSION.json: the transfer rules (rule: all or one name) replayed on a grid
 * session (cmd_tune_transfer.c), leaving each grid point out in turn, or scored on the nheld
 * --heldout sessions' problems; variant NULL: every one. Returns the exit code. */
int TuneCmd_transfer(const char *path, const char *const *held, int nheld, const char *rule, int k,
                     const char *variant);
int TuneCmd_grid(TuneCli *cli, const TuneGrid *grid, const char *table_out, bool seed_given);

#endif
