/* benchtop tune --simulate SESSION.json: the strategies replayed against the measurements of an
 * exhaustive tune (bench/tune/tune_sim.h), no GPU needed. Part of cmd_tune.c's command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tune/tune_sim.h"
#include "cmd/cmd_tune.h"
#include "common/util.h"

/* The variant x shape pairs to replay: those asked for, else every one the session tuned
 * (its summaries), else every one it has records of. */
static int TuneSim_pairs(const Session *s, const Plan *asked, const Variant ***vs, Shape **shapes) {
  int n = 0, cap = s->nrecords + s->ntune + 1, ns;
  for (int i = 0; i < asked->nvariants; i++) {
    Plan_shapesOf(asked, &asked->variants[i], &ns);
    cap += ns;
  }
  *vs = Util_xcalloc((size_t)cap, sizeof **vs);
  *shapes = Util_xcalloc((size_t)cap, sizeof **shapes);
  for (int i = 0; i < asked->nvariants; i++) {
    const Shape *sh = Plan_shapesOf(asked, &asked->variants[i], &ns);
    for (int j = 0; j < ns; j++) {
      (*vs)[n] = Registry_find(asked->variants[i].name);
      (*shapes)[n++] = sh[j];
    }
  }
  if (n > 0) return n;
  for (int i = 0; i < s->ntune + s->nrecords; i++) {
    const char *name = i < s->ntune ? s->tune[i].variant : s->records[i - s->ntune].variant;
    const Shape *shape = i < s->ntune ? &s->tune[i].shape : &s->records[i - s->ntune].shape;
    const Variant *v = Registry_find(name);
    bool dup = !v || (i >= s->ntune && s->ntune > 0);
    for (int k = 0; k < n && !dup; k++) dup = (*vs)[k] == v && Shape_equal(&(*shapes)[k], shape);
    if (dup) continue;
    (*vs)[n] = v;
    (*shapes)[n++] = *shape;
  }
  return n;
}

/* Unscored configurations stand as failed ones: "found" then means found among the scored few,
 * which says little about the strategy when they are a small part of the space. */
static void TuneSim_sayCoverage(const char *variant, const char *shape, const TuneSimResult *res) {
  double pct = 100.0 * res->scored / res->configs;
  printf("  coverage: only %d of the %d configurations (%.0f %%) have a score; \"the best\" is the "
         "best of those, the others count as failed\n", res->scored, res->configs, pct);
  fprintf(stderr, "benchtop tune: warning: %s at %s: only %d of %d configurations (%.0f %%) have a "
          "score; the strategies are judged on those alone (an exhaustive tune scores "
          "them all)\n", variant, shape, res->scored, res->configs, pct);
}

int TuneCmd_simulate(const char *path, const TuneRequest *req, bool strategy_given, int runs,
                     double noise) {
  Session s;
  char err[1024];
  if (!Session_load(path, &s, err, sizeof err)) {
    fprintf(stderr, "benchtop tune: %s\n", err);
    return BT_EXIT_FAILED;
  }
  /* The space as the session's tune narrowed it, unless --knob narrows it here. */
  TuneRequest r = *req;
  bool narrowed = false; /* (each variant's own restrictions: TuneSim_run looks them up) */
  for (int i = 0; i < r.plan.nvariants; i++) narrowed |= r.plan.variants[i].nknobs > 0;
  if (!narrowed) {
    r.plan.variants = s.plan.variants;
    r.plan.nvariants = s.plan.nvariants;
  }
  const Variant **vs;
  Shape *shapes;
  int n = TuneSim_pairs(&s, &req->plan, &vs, &shapes), rc = BT_EXIT_OK, replayed = 0;
  StrategyKind kinds[] = {STRATEGY_RANDOM, STRATEGY_EVOLUTIONARY, STRATEGY_ANNEALING, STRATEGY_LOCAL};
  int nkinds = 4;
  if (strategy_given) {
    kinds[0] = req->strategy;
    nkinds = 1;
  }
  for (int i = 0; i < n; i++) {
    char shape[64];
    Shape_format(&shapes[i], shape, sizeof shape);
    for (int k = 0; k < nkinds; k++) {
      TuneSimResult res;
      if (!TuneSim_run(&s, &r, vs[i], &shapes[i], kinds[k], runs, noise, &res, err,
                       sizeof err)) {
        fprintf(stderr, "benchtop tune: %s\n", err);
        rc = BT_EXIT_FAILED;
        break;
      }
      if (k == 0)
        printf("replaying %s at %s: %d configurations, %d with a score, best %.4g us; budget %d "
               "per search, %d runs each%s\n", vs[i]->name, shape, res.configs, res.scored, res.best,
               res.budget, res.runs, noise > 0 ? ", measurements noisy" : "");
      if (k == 0 && res.scored < res.configs)
        TuneSim_sayCoverage(vs[i]->name, shape, &res);
      printf("  %-13s within %.0f %% of the best in %3d of %d runs, mean loss %5.2f %%, worst "
             "%5.1f %%, %.0f measurements searched\n", Strategy_name(res.kind), 100 * TUNE_SIM_NEAR,
             res.found, res.runs, 100 * res.mean_loss, 100 * res.worst_loss, res.mean_measured);
      replayed++;
    }
  }
  if (n == 0) {
    fprintf(stderr, "benchtop tune: %s holds no records to replay\n", path);
    rc = BT_EXIT_FAILED;
  } else if (replayed > 0 && s.has_device) {
    char dev[96];
    Util_strlcpy(dev, s.device.name, sizeof dev);
    for (char *c = dev; *c; c++)
      if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    printf("(scores recorded on %s; a pick within %.0f %% of the best counts as found)\n", dev,
           100 * TUNE_SIM_NEAR);
  }
  free(vs);
  free(shapes);
  /* The knob list belongs to the session: the copy of the request only borrowed it. */
  Session_free(&s);
  return rc;
}
