/* The strategies of tune_strategy.h. Scores are p50s (lower is better); a failed
 * configuration scores +inf, so it is never a parent or an annealing step's destination. */
#include "bench/tune/tune_strategy.h"
#include "bench/tune/tune_strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define STRATEGY_ELITES 3      /* the 3 best go to the next generation unchanged */
#define STRATEGY_TRIES 64      /* attempts at an unseen valid child before a random immigrant */
#define ANNEAL_T0 0.05         /* a 5 % worse step is taken with probability 1/e at the start */
#define ANNEAL_T1 0.002        /* ... and almost never at the end */

static const char *const Strategy_names_[STRATEGY_COUNT] = {
    "auto", "exhaustive", "random", "evolutionary", "annealing", "local"};

bool Strategy_parse(const char *name, StrategyKind *out) {
  for (int i = 0; i < STRATEGY_COUNT; i++)
    if (strcmp(name, Strategy_names_[i]) == 0) {
      *out = (StrategyKind)i;
      return true;
    }
  if (strcmp(name, "genetic") == 0 || strcmp(name, "ils") == 0) {
    *out = name[0] == 'g' ? STRATEGY_EVOLUTIONARY : STRATEGY_LOCAL;
    return true;
  }
  return false;
}

const char *Strategy_name(StrategyKind k) {
  return k >= 0 && k < STRATEGY_COUNT ? Strategy_names_[k] : "?";
}

const char *Strategy_names(void) { return "auto|exhaustive|random|evolutionary|annealing|local"; }

/* splitmix64: small, fast, and the same sequence on every machine for a given seed. */
double Strategy_random01(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (double)((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

double Strategy_uniform(Strategy *st) { return Strategy_random01(&st->rng); }

int Strategy_below(Strategy *st, int n) { return (int)(Strategy_uniform(st) * n); }

void Strategy_shuffle(Strategy *st, int *a, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = Strategy_below(st, i + 1), t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

/* A configuration never proposed, uniformly at random; -1 when every one has been. */
int Strategy_randomUnseen(Strategy *st) {
  int n = st->sp->nconfigs, unseen = 0;
  for (int i = 0; i < n; i++) unseen += st->state[i] == UNSEEN;
  if (unseen <= 0) return -1;
  int pick = Strategy_below(st, unseen);
  for (int i = 0; i < n; i++)
    if (st->state[i] == UNSEEN && pick-- == 0) return i;
  return -1;
}

Strategy *Strategy_new(StrategyKind k, const TuneSpace *sp, int budget, uint64_t seed) {
  Strategy *st = Util_xcalloc(1, sizeof *st);
  int n = sp->nconfigs;
  st->kind = k == STRATEGY_AUTO ? (n <= budget ? STRATEGY_EXHAUSTIVE : STRATEGY_LOCAL) : k;
  st->sp = sp;
  st->budget = budget > 0 ? budget : n;
  st->rng = seed ^ 0x5bd1e995u;
  st->state = Util_xcalloc((size_t)n, 1);
  st->score = Util_xmalloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) st->score[i] = NAN;
  st->best = -1;
  st->order = Util_xmalloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) st->order[i] = i;
  if (st->kind == STRATEGY_RANDOM) Strategy_shuffle(st, st->order, n);
  /* Small populations, many generations: with 3 elites kept, a population of a sixth of the
   * budget (4 to 8) found the best more often than larger ones (a third, up to 16: Kernel
   * Tuner's 30 would be all random at these budgets) in replays over 40 synthetic landscapes
   * of fa3's and mma's spaces at budgets of 12-40 % (docs/tuning.md). */
  st->popsize = st->budget / 6;
  if (st->popsize < 4) st->popsize = 4;
  if (st->popsize > 8) st->popsize = 8;
  st->pop = Util_xmalloc(sizeof(int) * (size_t)(n + 1));
  /* local's batches (a neighbourhood, the start points) may be larger than a generation */
  st->gen = Util_xmalloc(sizeof(int) * (size_t)(n > st->popsize ? n + 1 : st->popsize + 1));
  st->current = st->candidate = -1;
  if (st->kind == STRATEGY_LOCAL) {
    st->starts = Util_xmalloc(sizeof(int) * (size_t)(n + 1));
    st->explored = Util_xcalloc((size_t)n, 1);
  }
  return st;
}

void Strategy_free(Strategy *st) {
  if (!st) return;
  free(st->state);
  free(st->score);
  free(st->order);
  free(st->pop);
  free(st->gen);
  free(st->starts);
  free(st->explored);
  free(st);
}

int Strategy_pending(const Strategy *st) { return st->pending; }

int Strategy_best(const Strategy *st, double *score) {
  if (score) *score = st->best >= 0 ? st->score[st->best] : NAN;
  return st->best;
}

void Strategy_propose(Strategy *st, int c) {
  st->state[c] = PROPOSED;
  st->pending++;
}

/* ---- evolutionary ---------------------------------------------------------------------- */

static const Strategy *Strategy_sorting; /* qsort has no context argument */
static int Strategy_byScore(const void *a, const void *b) {
  double x = Strategy_sorting->score[*(const int *)a], y = Strategy_sorting->score[*(const int *)b];
  return x < y ? -1 : x > y ? 1 : *(const int *)a - *(const int *)b;
}

/* Rank-biased choice from the population (best first): index n*u^2 puts about half the
 * picks in the best quarter. */
static int Strategy_parent(Strategy *st) {
  double u = Strategy_uniform(st);
  int i = (int)(st->npop * u * u);
  return st->pop[i < st->npop ? i : st->npop - 1];
}

static int Strategy_child(Strategy *st) {
  const TuneSpace *sp = st->sp;
  int nk = sp->nknobs;
  for (int t = 0; t < STRATEGY_TRIES && st->npop > 0; t++) {
    int a = Strategy_parent(st), b = Strategy_parent(st);
    for (int again = 0; b == a && st->npop > 1 && again < 8; again++) b = Strategy_parent(st);
    const int *ga = sp->genes + (size_t)a * nk, *gb = sp->genes + (size_t)b * nk;
    int g[KNOB_MAX];
    for (int k = 0; k < nk; k++) g[k] = Strategy_uniform(st) < 0.5 ? ga[k] : gb[k];
    /* Each knob moves to another of its values with probability 1/knobs: one change a child
     * on average, so the search keeps exploring after the parents agree. */
    for (int k = 0; k < nk; k++)
      if (sp->nvals[k] > 1 && Strategy_uniform(st) * nk < 1.0) {
        int v = Strategy_below(st, sp->nvals[k] - 1);
        g[k] = v >= g[k] ? v + 1 : v;
      }
    int c = TuneSpace_lookup(sp, g);
    if (c >= 0 && st->state[c] == UNSEEN) return c;
  }
  return Strategy_randomUnseen(st);
}

/* The next generation: the elites stay (already measured), children fill the rest. */
static void Strategy_breed(Strategy *st) {
  int n = 0;
  for (int i = 0; i < st->sp->nconfigs; i++)
    if (st->state[i] == TOLD) st->pop[n++] = i;
  Strategy_sorting = st;
  qsort(st->pop, (size_t)n, sizeof(int), Strategy_byScore);
  /* The population: the elites, then the latest generation's children, best first. */
  int keep = n < STRATEGY_ELITES ? n : STRATEGY_ELITES;
  int np = keep;
  for (int i = 0; i < st->ngen; i++) {
    bool elite = false;
    for (int j = 0; j < keep; j++) elite |= st->pop[j] == st->gen[i];
    if (!elite) st->pop[np++] = st->gen[i];
  }
  qsort(st->pop, (size_t)np, sizeof(int), Strategy_byScore);
  st->npop = np;
  while (st->npop > 0 && isinf(st->score[st->pop[st->npop - 1]]) && st->npop > 1) st->npop--;
  st->ngen = st->gen_next = st->gen_told = 0;
  int want = st->popsize - keep;
  if (want < 1) want = 1;
  for (int i = 0; i < want; i++) {
    int c = Strategy_child(st);
    if (c < 0) break;
    st->gen[st->ngen++] = c;
    st->state[c] = RESERVED;
  }
}

static int Strategy_askEvolutionary(Strategy *st, int *out, int max) {
  int n = 0;
  if (st->ngen == 0 && st->told == 0 && st->pending == 0) {
    /* The first generation: a random sample as large as the population. */
    for (int i = 0; i < st->popsize; i++) {
      int c = Strategy_randomUnseen(st);
      if (c < 0) break;
      st->gen[st->ngen++] = c;
      st->state[c] = RESERVED;
    }
  } else if (st->gen_next == st->ngen && st->gen_told == st->ngen) {
    Strategy_breed(st);
  }
  while (n < max && st->gen_next < st->ngen) {
    int c = st->gen[st->gen_next++];
    Strategy_propose(st, c);
    out[n++] = c;
  }
  return n;
}

/* ---- annealing ------------------------------------------------------------------------- */

static double Strategy_temperature(const Strategy *st) {
  double frac = st->budget > 1 ? (double)st->told / (st->budget - 1) : 1.0;
  if (frac > 1) frac = 1;
  return ANNEAL_T0 * pow(ANNEAL_T1 / ANNEAL_T0, frac);
}

/* Moves the chain to `to` (already scored) by the Metropolis rule on the relative change. */
static void Strategy_step(Strategy *st, int to) {
  double cur = st->score[st->current], next = st->score[to];
  if (isinf(next)) return;
  if (next <= cur || isinf(cur) ||
      Strategy_uniform(st) < exp(-((next - cur) / cur) / Strategy_temperature(st)))
    st->current = to;
}

/* The chain's next measurement is c; none (0) where c < 0, every setting seen. */
static int Strategy_annealPropose(Strategy *st, int c, int *out) {
  if (c < 0) return 0;
  Strategy_propose(st, c);
  st->candidate = c;
  out[0] = c;
  return 1;
}

static int Strategy_askAnnealing(Strategy *st, int *out, int max) {
  if (max < 1 || st->pending > 0) return 0;
  const TuneSpace *sp = st->sp;
  int nk = sp->nknobs;
  if (st->current < 0) return Strategy_annealPropose(st, Strategy_randomUnseen(st), out);
  /* Walk: neighbours already measured cost nothing, so the chain may take many free steps
   * before it proposes one that needs a measurement. */
  for (int walk = 0; walk < 4 * STRATEGY_TRIES; walk++) {
    const int *g0 = sp->genes + (size_t)st->current * nk;
    int g[KNOB_MAX], c = -1;
    for (int t = 0; t < STRATEGY_TRIES && c < 0; t++) {
      memcpy(g, g0, sizeof(int) * (size_t)nk);
      int k = Strategy_below(st, nk);
      if (sp->nvals[k] < 2) continue;
      int v = Strategy_below(st, sp->nvals[k] - 1);
      g[k] = v >= g[k] ? v + 1 : v;
      c = TuneSpace_lookup(sp, g);
    }
    if (c < 0 || (st->state[c] == TOLD && walk >= 2 * STRATEGY_TRIES)) {
      /* Stuck (no valid neighbour, or all of them known): restart somewhere new. */
      c = Strategy_randomUnseen(st);
      if (c < 0) return 0;
      st->current = -1;
    }
    if (st->state[c] == UNSEEN) return Strategy_annealPropose(st, c, out);
    if (st->state[c] == TOLD) Strategy_step(st, c);
  }
  return Strategy_annealPropose(st, Strategy_randomUnseen(st), out);
}

/* ---- ask / tell ------------------------------------------------------------------------ */

int Strategy_ask(Strategy *st, int *out, int max) {
  switch (st->kind) {
  case STRATEGY_EVOLUTIONARY: return Strategy_askEvolutionary(st, out, max);
  case STRATEGY_ANNEALING: return Strategy_askAnnealing(st, out, max);
  case STRATEGY_LOCAL: return Strategy_askLocal(st, out, max);
  default: break;
  }
  int n = 0;
  while (n < max && st->next < st->sp->nconfigs) {
    int c = st->order[st->next++];
    if (st->state[c] != UNSEEN) continue;
    Strategy_propose(st, c);
    out[n++] = c;
  }
  return n;
}

void Strategy_tell(Strategy *st, int config, double score) {
  if (config < 0 || config >= st->sp->nconfigs || st->state[config] != PROPOSED) return;
  st->state[config] = TOLD;
  st->pending--;
  st->told++;
  st->score[config] = isnan(score) || score <= 0 ? INFINITY : score;
  if (!isinf(st->score[config]) && (st->best < 0 || st->score[config] < st->score[st->best]))
    st->best = config;
  if (st->kind == STRATEGY_EVOLUTIONARY || st->kind == STRATEGY_LOCAL) {
    for (int i = 0; i < st->ngen; i++)
      if (st->gen[i] == config) st->gen_told++;
  } else if (st->kind == STRATEGY_ANNEALING && config == st->candidate) {
    st->candidate = -1;
    if (st->current < 0) st->current = isinf(st->score[config]) ? -1 : config;
    else Strategy_step(st, config);
  }
}
