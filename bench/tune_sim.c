#include "bench/tune_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* One search as Tuner runs it, with the recorded scores for measurements: the strategy gets
 * the budget less the leaders' share and the declared settings as start points; the pick is
 * the best it was told (re-measuring the leaders changes nothing when the scores are the
 * recorded ones). */
static int TuneSim_once(const TuneSpace *sp, const double *scores, StrategyKind kind, int budget,
                        int reserve, uint64_t seed, bool starts, int *measured) {
  Strategy *st = Strategy_new(kind, sp, budget - reserve, seed);
  if (starts) {
    int *declared = Util_xmalloc(sizeof(int) * (size_t)(sp->nconfigs + 1));
    int n = Strategy_declared(sp, declared, sp->nconfigs);
    for (int i = 0; i < n; i++) Strategy_hint(st, declared[i]);
    free(declared);
  }
  int asked = 0, batch[64];
  while (asked < budget - reserve) {
    int want = budget - reserve - asked;
    int n = Strategy_ask(st, batch, want < 64 ? want : 64);
    if (n == 0) break;
    for (int i = 0; i < n; i++)
      Strategy_tell(st, batch[i], isfinite(scores[batch[i]]) ? scores[batch[i]] : NAN);
    asked += n;
  }
  *measured = asked;
  int best = Strategy_best(st, NULL);
  Strategy_free(st);
  return best;
}

void TuneSim_replay(const TuneSpace *sp, const double *scores, StrategyKind kind, int budget,
                    int reserve, int runs, uint64_t seed, bool starts, TuneSimResult *out) {
  out->kind = kind;
  out->budget = budget;
  out->runs = runs;
  out->found = 0;
  out->mean_loss = out->worst_loss = out->mean_measured = 0;
  out->best = INFINITY;
  for (int c = 0; c < sp->nconfigs; c++)
    if (scores[c] < out->best) out->best = scores[c];
  for (int r = 0; r < runs; r++) {
    int measured;
    int pick = TuneSim_once(sp, scores, kind, budget, reserve, seed + (uint64_t)r * 7919u, starts,
                            &measured);
    double loss = pick >= 0 ? scores[pick] / out->best - 1.0 : INFINITY;
    out->found += loss <= TUNE_SIM_NEAR;
    out->mean_loss += loss / runs;
    if (loss > out->worst_loss) out->worst_loss = loss;
    out->mean_measured += (double)measured / runs;
  }
}

bool TuneSim_run(const Session *s, const TuneRequest *req, const Variant *v, const Shape *shape,
                 StrategyKind kind, int runs, TuneSimResult *out, char *err, size_t errsize) {
  memset(out, 0, sizeof *out);
  TuneSpace sp;
  const PlanVariant *pv = NULL; /* the variant's own knob restrictions, if the plan has it */
  for (int i = 0; i < req->plan.nvariants && !pv; i++)
    if (strcmp(req->plan.variants[i].name, v->name) == 0) pv = &req->plan.variants[i];
  if (!TuneSpace_build(&sp, v, shape, pv ? pv->knobs : NULL, pv ? pv->nknobs : 0, NULL, err, errsize))
    return false;
  double *scores = Util_xmalloc(sizeof(double) * (size_t)sp.nconfigs);
  out->scored = Tune_scores(s, &sp, scores);
  out->configs = sp.nconfigs;
  char name[64];
  Shape_format(shape, name, sizeof name);
  if (out->scored == 0) {
    snprintf(err, errsize, "the session has no passing record of %s at %s to replay", v->name, name);
    free(scores);
    TuneSpace_free(&sp);
    return false;
  }
  int reserve;
  StrategyKind chosen;
  Tune_budgetFor(req, sp.nconfigs, &chosen, &out->budget, &reserve);
  TuneSim_replay(&sp, scores, kind != STRATEGY_AUTO ? kind : chosen, out->budget, reserve, runs,
                 req->plan.opts.seed, true, out);
  free(scores);
  TuneSpace_free(&sp);
  return true;
}
