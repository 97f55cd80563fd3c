/* Search strategies over a TuneSpace, in ask/tell form: the strategy proposes configurations,
 * the caller measures them (in any order, on a worker) and tells each one's score (its p50;
 * lower is better). No configuration is proposed twice: a repeated proposal would be a
 * measurement spent on something already known (Kernel Tuner counts unique evaluations the
 * same way). Deterministic for a given seed. docs/tuning.md says why these strategies. */
#ifndef BENCHTOP_TUNE_STRATEGY_H
#define BENCHTOP_TUNE_STRATEGY_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/tune/tune_space.h"

typedef enum {
  STRATEGY_AUTO = 0,     /* exhaustive when the space fits the budget, else local */
  STRATEGY_EXHAUSTIVE,   /* every configuration, in enumeration order */
  STRATEGY_RANDOM,       /* a uniform sample without repeats */
  STRATEGY_EVOLUTIONARY, /* genetic: elites kept, rank-biased parents, uniform crossover */
  STRATEGY_ANNEALING,    /* simulated annealing over one-knob neighbours, restarts */
  STRATEGY_LOCAL,        /* from the declared settings, best one-knob moves, restarts */
  STRATEGY_COUNT,
} StrategyKind;

/* "auto", "exhaustive", "random", "evolutionary" (also "genetic"), "annealing", "local" (also
 * "ils"). */
bool Strategy_parse(const char *name, StrategyKind *out);
const char *Strategy_name(StrategyKind k);
/* The names a user may type, "a|b|c", for messages and --help. */
const char *Strategy_names(void);

typedef struct Strategy Strategy;

/* budget: measurements the caller will allow (shapes the population and the cooling; the
 * caller enforces it). The space must outlive the strategy. */
Strategy *Strategy_new(StrategyKind k, const TuneSpace *sp, int budget, uint64_t seed);
void Strategy_free(Strategy *st);
/* A configuration to start from (another shape's winner, a declared setting), measured first
 * in the order given: call before the first Strategy_ask. Only the local search uses them. */
void Strategy_hint(Strategy *st, int config);
/* The variant's declared settings as configurations of sp: its defaults, then its presets (a
 * knob the space narrowed takes its first allowed value); refused ones left out. Returns how
 * many (at most max). */
int Strategy_declared(const TuneSpace *sp, int *out, int max);
/* Up to max configuration indices to measure next (none proposed before). 0: nothing more
 * until the pending ones are told, or (Strategy_pending() == 0) nothing more at all. */
int Strategy_ask(Strategy *st, int *out, int max);
/* The score of a proposed configuration: its p50 in us; NAN when it failed or did not run. */
void Strategy_tell(Strategy *st, int config, double score);
/* Proposed and not yet told. */
int Strategy_pending(const Strategy *st);
/* A uniform draw in [0, 1) from a splitmix64 state: the strategies' generator, the same
 * sequence on every machine (the replay draws its measurement noise from it too). */
double Strategy_random01(uint64_t *state);
/* Best told configuration (-1 when none passed) and its score. */
int Strategy_best(const Strategy *st, double *score);

#endif
