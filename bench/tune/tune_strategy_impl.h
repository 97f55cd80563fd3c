/* What the strategies of tune_strategy.c and tune_strategy_local.c share: the state of a
 * search and the random draws. Private to those files. */
#ifndef BENCHTOP_TUNE_STRATEGY_IMPL_H
#define BENCHTOP_TUNE_STRATEGY_IMPL_H

#include "bench/tune/tune_strategy.h"

enum { UNSEEN = 0, RESERVED, PROPOSED, TOLD }; /* RESERVED: in the generation being handed out */

struct Strategy {
  StrategyKind kind;
  const TuneSpace *sp;
  int budget;
  uint64_t rng;
  unsigned char *state; /* per configuration */
  double *score;        /* per configuration: p50, +inf failed, NAN not told */
  int pending, told, best;
  /* exhaustive, random: a fixed order */
  int *order, next;
  /* evolutionary: the population (told configurations, best first) and the generation in
   * the making */
  int *pop, npop, popsize;
  int *gen, ngen, gen_next, gen_told;
  /* annealing; local: the configuration whose neighbourhood is being measured */
  int current, candidate, steps;
  /* local: the start points (hints, in order), the configurations whose
   * neighbourhoods are all measured, the restarts so far and what the batch out is */
  int *starts, nstarts, restarts, batch;
  unsigned char *explored;
};

enum { BATCH_NONE, BATCH_STARTS, BATCH_NEIGHBOURS, BATCH_KICK }; /* local's batches */

double Strategy_uniform(Strategy *st);
int Strategy_below(Strategy *st, int n);
void Strategy_shuffle(Strategy *st, int *a, int n);
/* A configuration never proposed, uniformly at random; -1 when every one has been. */
int Strategy_randomUnseen(Strategy *st);
void Strategy_propose(Strategy *st, int c);
int Strategy_askLocal(Strategy *st, int *out, int max);

#endif
