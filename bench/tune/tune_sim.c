#include "bench/tune/tune_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* One measurement of a configuration whose recorded score is `score`: that, times 1 + noise
 * times a standard normal draw (Box-Muller), kept above a tenth of it. */
static double TuneSim_measure(double score, double noise, uint64_t *rng) {
  if (!isfinite(score) || noise <= 0) return score;
  double u = Strategy_random01(rng), v = Strategy_random01(rng);
  double z = sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
  double f = 1.0 + noise * z;
  return score * (f > 0.1 ? f : 0.1);
}

/* One search as Tuner runs it, with the recorded scores (made noisy) for measurements: the
 * strategy gets the budget less the leaders' share and the declared settings as start points;
 * then the leaders (the best by their mean so far, as many as the budget left allows, at most
 * TUNE_LEADERS) are measured once more, and the pick is the configuration with the best mean. */
static int TuneSim_once(const TuneSpace *sp, const double *scores, StrategyKind kind, int budget,
                        int reserve, uint64_t seed, bool starts, double noise, int *measured) {
  Strategy *st = Strategy_new(kind, sp, budget - reserve, seed);
  uint64_t rng = seed ^ 0x6a09e667f3bcc909ull;
  double *sum = Util_xcalloc((size_t)sp->nconfigs, sizeof(double));
  int *nrec = Util_xcalloc((size_t)sp->nconfigs, sizeof(int));
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
    for (int i = 0; i < n; i++) {
      double m = TuneSim_measure(scores[batch[i]], noise, &rng);
      Strategy_tell(st, batch[i], isfinite(m) ? m : NAN);
      if (isfinite(m)) {
        sum[batch[i]] += m;
        nrec[batch[i]]++;
      }
    }
    asked += n;
  }
  *measured = asked;
  Strategy_free(st);
  int room = budget - asked < TUNE_LEADERS ? budget - asked : TUNE_LEADERS, leaders[TUNE_LEADERS];
  for (int k = 0; k < room; k++) {
    leaders[k] = -1;
    for (int c = 0; c < sp->nconfigs; c++) {
      bool taken = false;
      for (int j = 0; j < k; j++) taken |= leaders[j] == c;
      if (!taken && nrec[c] > 0 && (leaders[k] < 0 || sum[c] / nrec[c] < sum[leaders[k]] / nrec[leaders[k]]))
        leaders[k] = c;
    }
  }
  for (int k = 0; k < room; k++)
    if (leaders[k] >= 0) {
      sum[leaders[k]] += TuneSim_measure(scores[leaders[k]], noise, &rng);
      nrec[leaders[k]]++;
    }
  int best = -1;
  for (int c = 0; c < sp->nconfigs; c++)
    if (nrec[c] > 0 && (best < 0 || sum[c] / nrec[c] < sum[best] / nrec[best])) best = c;
  free(sum);
  free(nrec);
  return best;
}

void TuneSim_replay(const TuneSpace *sp, const double *scores, StrategyKind kind, int budget,
                    int reserve, int runs, uint64_t seed, bool starts, double noise,
                    TuneSimResult *out) {
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
                            noise, &measured);
    double loss = pick >= 0 ? scores[pick] / out->best - 1.0 : INFINITY;
    out->found += loss <= TUNE_SIM_NEAR;
    out->mean_loss += loss / runs;
    if (loss > out->worst_loss) out->worst_loss = loss;
    out->mean_measured += (double)measured / runs;
  }
}

bool TuneSim_run(const Session *s, const TuneRequest *req, const Variant *v, const Shape *shape,
                 StrategyKind kind, int runs, double noise, TuneSimResult *out, char *err,
                 size_t errsize) {
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
                 req->plan.opts.seed, true, noise, out);
  free(scores);
  TuneSpace_free(&sp);
  return true;
}
