/* Replaying the search strategies against recorded measurements (`benchtop tune --simulate
 * SESSION.json`): the scores of an exhaustive tune stand in for the GPU, and each strategy
 * runs many times (different seeds) within a budget, to say how often it finds a
 * configuration within 2 % of the best and what it loses when it does not. A strategy's
 * settings matter as much as its choice (Willemsen et al., "Tuning the Tuner", 2025, who
 * replay recorded tuning data the same way); this is how benchtop's were checked on real
 * kernels. No GPU needed. */
#ifndef BENCHTOP_TUNE_SIM_H
#define BENCHTOP_TUNE_SIM_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/tune/tune.h"

#define TUNE_SIM_NEAR 0.02 /* a pick within this of the best counts as found */

typedef struct TuneSimResult {
  StrategyKind kind;
  int runs;
  int found;            /* picks within TUNE_SIM_NEAR of the best */
  double mean_loss;     /* pick / best - 1, averaged over the runs */
  double worst_loss;
  double mean_measured; /* measurements the search used (the leaders' re-measurements apart) */
  int budget;           /* per run, re-measurements included */
  int configs;          /* in the space */
  int scored;           /* of them, with a recorded score */
  double best;          /* the best recorded score (us) */
} TuneSimResult;

/* Replays kind `runs` times over sp with these scores (per configuration, +inf: failed or
 * not measured), each search with `budget` measurements of which `reserve` are kept for the
 * leaders, seeds seed, seed + 7919, ...; starts: the local search gets the variant's declared
 * settings as start points, as a tune does (false: the search alone, from random starts).
 * noise: each measurement is the recorded score times 1 + noise x a standard normal draw (0:
 * the recorded scores themselves); the leaders are re-measured and the pick is the best mean,
 * as a tune does, while the loss is still judged on the recorded scores.
 * Fills out's search fields (not configs, scored). */
void TuneSim_replay(const TuneSpace *sp, const double *scores, StrategyKind kind, int budget,
                    int reserve, int runs, uint64_t seed, bool starts, double noise,
                    TuneSimResult *out);
/* Replays kind `runs` times for variant v at shape with the request's budget and --knob
 * restrictions. False with one line in err when the session has nothing to replay there. */
bool TuneSim_run(const Session *s, const TuneRequest *req, const Variant *v, const Shape *shape,
                 StrategyKind kind, int runs, double noise, TuneSimResult *out, char *err,
                 size_t errsize);

#endif
