/* The local search of tune_strategy.h (STRATEGY_LOCAL), the default: docs/tuning.md says why. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tune/tune_strategy_impl.h"

#define LOCAL_STARTS_DIV 4     /* the start points take at most a quarter of the budget */
#define LOCAL_KICK 2           /* a restart's jump: at most this many knobs from the best */

/* ---- local search ------------------------------------------------------------------------
 * Start at what is known to be good: the caller's hints (another shape's winner, the variant's
 * declared defaults and its presets: the kernel author's shortlist), at most a quarter of the
 * budget, topped up with random configurations when there are fewer. Then, from the best configuration so far, measure every one-knob neighbour
 * not measured yet (one batch, compiled together) and move to the best of them (steepest
 * descent). At a local optimum (every neighbour measured, none better) restart, alternately
 * from the best measured configuration whose neighbourhood is not measured yet (another basin
 * the start points or the climb touched) and by a jump to a random unmeasured configuration
 * at most LOCAL_KICK knobs from the best (iterated local search). */

/* The configuration a "k=v,..." setting (NULL: the defaults) names in this space: knobs the space narrowed to other
 * values take their first allowed one, so the declared settings still start a restricted
 * search. -1 when refused there or malformed. */
static int Strategy_declaredOne(const TuneSpace *sp, const char *spec) {
  KnobValues kv;
  char err[256];
  Registry_defaults(sp->variant, &kv);
  if (spec && !Registry_applyKnobs(sp->variant, spec, &kv, true, err, sizeof err)) return -1;
  int genes[KNOB_MAX];
  for (int k = 0; k < sp->nknobs; k++) {
    genes[k] = 0;
    for (int j = 0; j < sp->nvals[k]; j++)
      if (sp->vals[k][j] == kv.idx[k]) genes[k] = j;
  }
  return TuneSpace_lookup(sp, genes);
}

int Strategy_declared(const TuneSpace *sp, int *out, int max) {
  int n = 0;
  const Variant *v = sp->variant;
  for (int i = -1; i < VARIANT_MAX_PRESETS && n < max && (i < 0 || v->presets[i]); i++) {
    int c = Strategy_declaredOne(sp, i < 0 ? NULL : v->presets[i]);
    bool dup = c < 0;
    for (int j = 0; j < n && !dup; j++) dup = out[j] == c;
    if (!dup) out[n++] = c;
  }
  return n;
}

void Strategy_hint(Strategy *st, int config) {
  if (st->kind != STRATEGY_LOCAL || st->batch != BATCH_NONE || config < 0 ||
      config >= st->sp->nconfigs)
    return;
  for (int i = 0; i < st->nstarts; i++)
    if (st->starts[i] == config) return;
  st->starts[st->nstarts++] = config;
}

/* The one-knob neighbours of c in state `state` into out; returns how many. */
static int Strategy_neighbours(const Strategy *st, int c, int state, int *out) {
  const TuneSpace *sp = st->sp;
  int nk = sp->nknobs, n = 0, g[KNOB_MAX];
  for (int k = 0; k < nk; k++)
    for (int v = 0; v < sp->nvals[k]; v++) {
      memcpy(g, sp->genes + (size_t)c * nk, sizeof(int) * (size_t)nk);
      if (v == g[k]) continue;
      g[k] = v;
      int d = TuneSpace_lookup(sp, g);
      if (d >= 0 && st->state[d] == state) out[n++] = d;
    }
  return n;
}

static void Strategy_reserve(Strategy *st, int c) {
  st->gen[st->ngen++] = c;
  st->state[c] = RESERVED;
}

/* The jump of a restart: an unmeasured configuration at most LOCAL_KICK knobs from the best
 * (anywhere when there is none, or nothing passed yet). */
static int Strategy_kick(Strategy *st) {
  const TuneSpace *sp = st->sp;
  int nk = sp->nknobs, near = 0, best = st->best;
  if (best < 0) return Strategy_randomUnseen(st);
  const int *gb = sp->genes + (size_t)best * nk;
  for (int pass = 0; pass < 2; pass++) {
    int pick = pass ? Strategy_below(st, near) : 0;
    for (int c = 0; c < sp->nconfigs; c++) {
      if (st->state[c] != UNSEEN) continue;
      int d = 0;
      for (int k = 0; k < nk; k++) d += sp->genes[(size_t)c * nk + k] != gb[k];
      if (d > LOCAL_KICK) continue;
      if (pass == 0) near++;
      else if (pick-- == 0) return c;
    }
    if (near == 0) break;
  }
  return Strategy_randomUnseen(st);
}

/* The next batch, after the last one was told in full: 0 when nothing is left to measure. */
static int Strategy_localBatch(Strategy *st) {
  st->ngen = st->gen_next = st->gen_told = 0;
  if (st->batch == BATCH_NONE) {
    st->batch = BATCH_STARTS;
    int cap = st->budget / LOCAL_STARTS_DIV > 1 ? st->budget / LOCAL_STARTS_DIV : 1;
    for (int i = 0; i < st->nstarts && st->ngen < cap; i++)
      if (st->state[st->starts[i]] == UNSEEN) Strategy_reserve(st, st->starts[i]);
    /* Fewer start points than that (none declared, a narrowed space): random ones, so the
     * climb begins at the best of several. */
    for (int c; st->ngen < cap && (c = Strategy_randomUnseen(st)) >= 0;) Strategy_reserve(st, c);
    return st->ngen;
  }
  /* Where the last batch leaves the climb: the starts and a neighbourhood move it to the best
   * they found; a jump lands where it jumped, if that ran. */
  if (st->batch == BATCH_STARTS) {
    st->current = st->best;
  } else if (st->batch == BATCH_NEIGHBOURS) {
    int nb[KNOB_MAX * KNOB_MAX_VALUES], n = Strategy_neighbours(st, st->current, TOLD, nb);
    for (int i = 0; i < n; i++)
      if (st->score[nb[i]] < st->score[st->current]) st->current = nb[i];
  } else if (st->current >= 0 && isinf(st->score[st->current])) {
    st->current = st->best;
  }
  for (int guard = 0; guard <= st->sp->nconfigs; guard++) {
    if (st->current >= 0) {
      int n = Strategy_neighbours(st, st->current, UNSEEN, st->gen);
      if (n > 0) {
        Strategy_shuffle(st, st->gen, n);
        for (int i = 0; i < n; i++) st->state[st->gen[i]] = RESERVED;
        st->ngen = n;
        st->batch = BATCH_NEIGHBOURS;
        return n;
      }
      st->explored[st->current] = 1;
    }
    if (st->best >= 0 && !st->explored[st->best]) {
      st->current = st->best;
      continue;
    }
    if (++st->restarts % 2 == 1) {
      /* Another basin: the best measured configuration with unmeasured neighbours. */
      int next = -1, tmp[KNOB_MAX * KNOB_MAX_VALUES];
      for (int c = 0; c < st->sp->nconfigs; c++) {
        if (st->state[c] != TOLD || st->explored[c] || isinf(st->score[c]) ||
            (next >= 0 && st->score[c] >= st->score[next]))
          continue;
        if (Strategy_neighbours(st, c, UNSEEN, tmp) > 0) next = c;
        else st->explored[c] = 1;
      }
      if (next >= 0) {
        st->current = next;
        continue;
      }
    }
    int c = Strategy_kick(st);
    if (c < 0) return 0;
    Strategy_reserve(st, c);
    st->current = c;
    st->batch = BATCH_KICK;
    return 1;
  }
  return 0;
}

int Strategy_askLocal(Strategy *st, int *out, int max) {
  if (st->gen_next == st->ngen && st->gen_told == st->ngen && Strategy_localBatch(st) == 0)
    return 0;
  int n = 0;
  while (n < max && st->gen_next < st->ngen) {
    int c = st->gen[st->gen_next++];
    Strategy_propose(st, c);
    out[n++] = c;
  }
  return n;
}

