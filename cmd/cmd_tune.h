/* benchtop tune's parts: the search on a GPU (cmd_tune.c) and the replay of recorded
 * measurements (cmd_tune_simulate.c). */
#ifndef BENCHTOP_CMD_TUNE_H
#define BENCHTOP_CMD_TUNE_H

#include <stdbool.h>

#include "bench/tune/tune.h"

/* --simulate SESSION.json: the strategies replayed `runs` times each against the session's
 * scores (the one given with --strategy, else random, evolutionary, annealing and local). */
int TuneCmd_simulate(const char *path, const TuneRequest *req, bool strategy_given, int runs,
                     double noise);

#endif
