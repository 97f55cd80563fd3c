/* The tune engine without a GPU: knob spaces (restrictions, refusals, lookups), the search
 * strategies on synthetic latency landscapes over real variants' spaces, the ranking of a
 * session's records and tuned knobs pinned into a plan. The tuned table: test_tune_table.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/plan.h"
#include "bench/tune/tune.h"
#include "bench/tune/tune_space.h"
#include "bench/tune/tune_strategy.h"
#include "check.h"
#include "common/util.h"
#include "plans.h"

static const DeviceProps test_h200 = {.cc = 90, .sm_count = 132, .l2_bytes = 60 << 20, .smem_optin = 232448};
static const DeviceProps test_l4 = {.cc = 89, .sm_count = 58, .l2_bytes = 48 << 20, .smem_optin = 101376};

static Shape test_shape(const char *text) {
  Shape s;
  char err[128];
  Shape_parse(text, &s, err, sizeof err);
  return s;
}

static void test_space(void) {
  TuneSpace sp;
  char err[256];
  Shape s = test_shape("2x8x512x64");
  const Variant *mma = Registry_find("mma");
  CHECK(TuneSpace_build(&sp, mma, &s, NULL, 0, &test_h200, err, sizeof err));
  CHECK(sp.nconfigs > 50 && sp.refused > 0 && sp.nconfigs + sp.refused == sp.combos);
  long combos = 1;
  for (int k = 0; k < mma->nknobs; k++) combos *= Registry_knobValueCount(&mma->knobs[k]);
  CHECK(sp.combos == combos);
  /* Every accepted configuration is one the registry accepts, found again by its values. */
  bool all_ok = true;
  for (int i = 0; i < sp.nconfigs; i++) {
    char why[256];
    all_ok &= Registry_refusal(mma, &s, &sp.configs[i], &test_h200, why, sizeof why) == NULL;
    all_ok &= TuneSpace_find(&sp, &sp.configs[i]) == i;
    all_ok &= TuneSpace_lookup(&sp, sp.genes + (size_t)i * sp.nknobs) == i;
  }
  CHECK(all_ok);
  char knobs[160];
  TuneSpace_format(&sp, 0, knobs, sizeof knobs);
  CHECK(strstr(knobs, "block_m=") != NULL);
  int full = sp.nconfigs;
  TuneSpace_free(&sp);

  /* Restrictions narrow it; a knob the variant lacks is another variant's business. */
  char *only64[] = {"block_m=64", "sched=plain"};
  CHECK(TuneSpace_build(&sp, mma, &s, only64, 2, &test_h200, err, sizeof err));
  CHECK(sp.nconfigs > 0 && sp.nconfigs < full);
  for (int i = 0; i < sp.nconfigs; i++) CHECK(Registry_knobNumber(mma, &sp.configs[i], Registry_knobIndex(mma, "block_m")) == 64);
  TuneSpace_free(&sp);
  char *two[] = {"block_m=64,128,64"};
  CHECK(TuneSpace_build(&sp, mma, &s, two, 1, &test_h200, err, sizeof err) && sp.nvals[0] == 2);
  TuneSpace_free(&sp);

  /* Bad input: one line each, nothing built. */
  char *bad_value[] = {"block_m=65"};
  CHECK(!TuneSpace_build(&sp, mma, &s, bad_value, 1, &test_h200, err, sizeof err) && strstr(err, "allowed"));
  char *bad_syntax[] = {"block_m"};
  CHECK(!TuneSpace_build(&sp, mma, &s, bad_syntax, 1, &test_h200, err, sizeof err) && strstr(err, "name=value"));
  CHECK(!TuneSpace_build(&sp, Registry_find("naive"), &s, NULL, 0, &test_h200, err, sizeof err) &&
        strstr(err, "no knobs"));
  char *refused[] = {"kv_split=2", "block_m=128"};
  CHECK(!TuneSpace_build(&sp, Registry_find("fa3"), &s, refused, 2, &test_h200, err, sizeof err) &&
        strstr(err, "refused") && strstr(err, "kv_split=2 needs"));
  /* The device's own limits refuse everything at once. */
  CHECK(!TuneSpace_build(&sp, Registry_find("fa3"), &s, NULL, 0, &test_l4, err, sizeof err) &&
        strstr(err, "sm_89"));
}

/* A synthetic latency landscape: a product of per-knob penalties around a hidden optimum, with
 * one interaction, so that single-knob moves and crossover both have something to find. */
static double test_latency(const TuneSpace *sp, int c, const int *opt) {
  const int *g = sp->genes + (size_t)c * sp->nknobs;
  double t = 10.0;
  for (int k = 0; k < sp->nknobs; k++) t *= 1.0 + 0.08 * (k + 1) * (g[k] != opt[k]);
  if (sp->nknobs > 1 && g[0] == opt[0] && g[1] != opt[1]) t *= 1.15;
  return t;
}

/* Runs a strategy to its budget; returns the best latency found (and checks the contract). */
static double test_search(StrategyKind kind, const TuneSpace *sp, int budget, uint64_t seed,
                          const int *opt, bool *no_repeats) {
  Strategy *st = Strategy_new(kind, sp, budget, seed);
  char *seen = calloc((size_t)sp->nconfigs, 1);
  int used = 0, batch[32];
  while (used < budget) {
    int n = Strategy_ask(st, batch, budget - used < 32 ? budget - used : 32);
    if (n == 0) break;
    for (int i = 0; i < n; i++) {
      if (seen[batch[i]]) *no_repeats = false;
      seen[batch[i]] = 1;
      /* Every 7th configuration "fails": a strategy must step around failures. */
      Strategy_tell(st, batch[i], batch[i] % 7 == 3 ? NAN : test_latency(sp, batch[i], opt));
      used++;
    }
  }
  double best;
  int b = Strategy_best(st, &best);
  CHECK(b >= 0 && Strategy_pending(st) == 0);
  free(seen);
  Strategy_free(st);
  return best;
}

static void test_strategies(void) {
  TuneSpace sp;
  char err[256];
  Shape s = test_shape("2x8x512x64");
  CHECK(TuneSpace_build(&sp, Registry_find("fa3"), &s, NULL, 0, &test_h200, err, sizeof err));
  StrategyKind k;
  CHECK(Strategy_parse("evolutionary", &k) && k == STRATEGY_EVOLUTIONARY);
  CHECK(Strategy_parse("genetic", &k) && k == STRATEGY_EVOLUTIONARY);
  CHECK(!Strategy_parse("bayes", &k));
  CHECK(strcmp(Strategy_name(STRATEGY_ANNEALING), "annealing") == 0);

  /* Exhaustive and random cover the whole space exactly once. */
  int opt[KNOB_MAX];
  memcpy(opt, sp.genes + (size_t)(sp.nconfigs / 2) * sp.nknobs, sizeof(int) * (size_t)sp.nknobs);
  double truth = INFINITY;
  for (int i = 0; i < sp.nconfigs; i++)
    if (i % 7 != 3 && test_latency(&sp, i, opt) < truth) truth = test_latency(&sp, i, opt);
  bool no_repeats = true;
  CHECK(test_search(STRATEGY_EXHAUSTIVE, &sp, sp.nconfigs + 10, 1, opt, &no_repeats) == truth);
  CHECK(test_search(STRATEGY_RANDOM, &sp, sp.nconfigs + 10, 1, opt, &no_repeats) == truth);
  CHECK(no_repeats);

  /* At a quarter of the space, over many hidden optima and seeds: the evolutionary search and
   * annealing find the optimum (within 2 %) more often than random sampling does, and never
   * propose a configuration twice. */
  int budget = sp.nconfigs / 4, trials = 60;
  int hits[STRATEGY_COUNT] = {0};
  StrategyKind kinds[] = {STRATEGY_RANDOM, STRATEGY_EVOLUTIONARY, STRATEGY_ANNEALING};
  for (int t = 0; t < trials; t++) {
    int pick = (t * 7919) % sp.nconfigs;
    if (pick % 7 == 3) pick++;
    memcpy(opt, sp.genes + (size_t)pick * sp.nknobs, sizeof(int) * (size_t)sp.nknobs);
    for (size_t j = 0; j < sizeof kinds / sizeof kinds[0]; j++) {
      double best = test_search(kinds[j], &sp, budget, (uint64_t)t + 1, opt, &no_repeats);
      hits[kinds[j]] += best <= 10.0 * 1.02;
    }
  }
  printf("optimum found in %d trials at budget %d of %d: random %d, evolutionary %d, annealing %d\n",
         trials, budget, sp.nconfigs, hits[STRATEGY_RANDOM], hits[STRATEGY_EVOLUTIONARY],
         hits[STRATEGY_ANNEALING]);
  CHECK(no_repeats);
  CHECK(hits[STRATEGY_EVOLUTIONARY] > hits[STRATEGY_RANDOM]);
  CHECK(hits[STRATEGY_ANNEALING] > hits[STRATEGY_RANDOM]);
  CHECK(hits[STRATEGY_EVOLUTIONARY] >= trials * 3 / 4);

  /* Same seed, same proposals. */
  int a[16], b[16];
  Strategy *s1 = Strategy_new(STRATEGY_EVOLUTIONARY, &sp, 40, 42);
  Strategy *s2 = Strategy_new(STRATEGY_EVOLUTIONARY, &sp, 40, 42);
  int na = Strategy_ask(s1, a, 16), nb = Strategy_ask(s2, b, 16);
  CHECK(na == nb && na > 0 && memcmp(a, b, sizeof(int) * (size_t)na) == 0);
  Strategy_free(s1);
  Strategy_free(s2);
  /* auto: exhaustive when the space fits the budget. */
  Strategy *sa = Strategy_new(STRATEGY_AUTO, &sp, sp.nconfigs, 1);
  int first[4];
  CHECK(Strategy_ask(sa, first, 4) == 4 && first[0] == 0 && first[3] == 3);
  Strategy_free(sa);
  TuneSpace_free(&sp);
}

/* A record of mma at shape with n samples around p50 (spread: relative half-width). */
static void test_record(Session *s, const char *shape, const char *knobs, RecordStatus st,
                        double p50, double spread, int seed) {
  Record r;
  Record_init(&r);
  Util_strlcpy(r.variant, "mma", sizeof r.variant);
  Util_strlcpy(r.knobs, knobs, sizeof r.knobs);
  r.shape = test_shape(shape);
  r.status = st;
  if (st == REC_FAIL) Util_strlcpy(r.reason, "verification failed", sizeof r.reason);
  r.timing.nsamples = 100;
  r.timing.samples = malloc(sizeof(double) * 100);
  unsigned x = (unsigned)seed * 2654435761u + 1;
  for (int i = 0; i < 100; i++) {
    x = x * 1103515245u + 12345u;
    r.timing.samples[i] = p50 * (1.0 + spread * (2.0 * ((x >> 8) & 0xffff) / 65535.0 - 1.0));
  }
  r.timing.p50 = p50;
  Util_strlcpy(r.timing.source, "kernel", sizeof r.timing.source);
  Session_add(s, &r);
  Record_free(&r);
}

/* Ranking from records alone: a configuration that ever failed never wins however fast; the
 * winner's record is its re-measurement; a runner-up within the noise is tied, one 10 %
 * behind is not; several shapes name the best over all of them; all of it survives a save
 * and a load. */
static void test_rank(void) {
  Session s;
  Session_init(&s);
  const char *A = "block_m=64,block_n=64,warps=4,stages=2,split=1";
  const char *B = "block_m=64,block_n=128,warps=4,stages=2,split=1";
  const char *C = "block_m=128,block_n=64,warps=8,stages=2,split=1";
  const char *F = "block_m=32,block_n=64,warps=2,stages=2,split=1";
  test_record(&s, "2x8x512x64", A, REC_PASS, 10.0, 0.01, 1);
  test_record(&s, "2x8x512x64", B, REC_PASS, 10.05, 0.01, 2);  /* within the noise of A */
  test_record(&s, "2x8x512x64", C, REC_PASS, 11.0, 0.01, 3);   /* clearly behind */
  test_record(&s, "2x8x512x64", F, REC_PASS, 8.0, 0.01, 4);    /* fastest, but ... */
  test_record(&s, "2x8x512x64", F, REC_FAIL, NAN, 0.01, 5);    /* ... fails once */
  test_record(&s, "2x8x512x64", A, REC_PASS, 10.01, 0.01, 6);  /* A re-measured */
  test_record(&s, "4x8x512x64", A, REC_PASS, 20.0, 0.01, 7);
  test_record(&s, "4x8x512x64", B, REC_PASS, 19.0, 0.01, 8);
  test_record(&s, "4x8x512x64", C, REC_PASS, 25.0, 0.01, 9);
  TuneSummary base[2];
  for (int i = 0; i < 2; i++) {
    TuneSummary_init(&base[i]);
    Util_strlcpy(base[i].variant, "mma", sizeof base[i].variant);
    base[i].shape = test_shape(i ? "4x8x512x64" : "2x8x512x64");
    Util_strlcpy(base[i].strategy, "exhaustive", sizeof base[i].strategy);
    base[i].complete = true;
  }
  Tune_finishSession(&s, base, 2);
  CHECK(s.ntune == 2 && s.noverall == 1);
  const TuneSummary *t = &s.tune[0];
  CHECK(t->winner == 5 && strcmp(t->winner_knobs, A) == 0 && s.records[5].tune.winner);
  CHECK(!s.records[0].tune.winner && s.records[0].tune.rank == 1 && s.records[0].tune.of == 3);
  CHECK(strcmp(t->runner_up, B) == 0 && strcmp(t->verdict, "tied") == 0 && t->tied == 1);
  CHECK(s.records[1].tune.tied && !s.records[2].tune.tied && s.records[2].tune.rank == 3);
  CHECK(s.records[3].tune.rank == -1 && t->failed == 1 && t->configs == 4 && t->remeasured == 2);
  CHECK(t->lead > 0 && t->lead_lo <= t->lead && t->lead <= t->lead_hi);
  const TuneSummary *u = &s.tune[1];
  CHECK(strcmp(u->winner_knobs, B) == 0 && strcmp(u->verdict, "faster") == 0 && u->tied == 0);
  CHECK(u->lead_lo > 0.02);
  /* Over both shapes B (10.05, 19) beats A (10.0, 20) by geometric mean; A loses 5 % at the
   * second shape with it... B loses about 0.5 % at the first. */
  const TuneOverall *o = &s.overall[0];
  CHECK(strcmp(o->knobs, B) == 0 && o->nshapes == 2);
  CHECK(o->loss[1] == 0.0 && o->loss[0] > 0.0 && o->loss[0] < 0.01);
  CHECK(fabs(o->geomean - sqrt(o->p50[0] * o->p50[1])) < 1e-9);

  char path[] = "/tmp/benchtop-rank-XXXXXX", err[512], where[256];
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  unlink(path); /* a unique name: Session_save replaces only sessions, not an empty file */
  CHECK(Session_save(&s, path, err, sizeof err));
  Session back;
  CHECK(Session_load(path, &back, err, sizeof err));
  CHECK(Session_equal(&s, &back, where, sizeof where));
  Session_free(&back);
  /* A winner index past the records is refused, with its place named. */
  s.tune[1].winner = 99;
  CHECK(Session_save(&s, path, err, sizeof err));
  CHECK(!Session_load(path, &back, err, sizeof err) && strstr(err, "tune[1].winner"));
  unlink(path);
  Session_free(&s);
}

/* Tuned knobs that ran where no knob was given become explicit settings of the plan, one
 * variant entry per setting with its shapes, so replay repeats them. */
static void test_pin(void) {
  Plan p;
  Test_plan(&p, "mma,naive", "2x8x512x64,2x8x512x64:causal,4x16x2048x128");
  char err[256];
  PlanEntry *e = NULL;
  int n = 0;
  CHECK(Plan_expand(&p, &e, &n, err, sizeof err) && n == 6);
  const Variant *mma = e[0].variant;
  const char *k1 = "block_m=64,block_n=128,warps=4,stages=2,split=1";
  const char *k2 = "block_m=128,block_n=64,warps=8,stages=3,split=1";
  PlanEntry pin = e[0];
  CHECK(Registry_applyKnobs(mma, k1, &pin.knobs, false, err, sizeof err));
  Plan_pin(&p, &pin); /* mma at 2x8x512x64 ran k1 */
  pin.shape = e[2].shape;
  Plan_pin(&p, &pin); /* and at 4x16x2048x128 */
  pin.shape = e[1].shape;
  CHECK(Registry_applyKnobs(mma, k2, &pin.knobs, false, err, sizeof err));
  Plan_pin(&p, &pin); /* k2 at the causal shape: the unset variant has no shape left */
  CHECK(p.nvariants == 3 && strcmp(p.variants[0].name, "naive") == 0 && p.variants[1].nshapes == 2 &&
        p.variants[2].nshapes == 1);
  free(e);
  CHECK(Plan_expand(&p, &e, &n, err, sizeof err) && n == 6);
  int k1_seen = 0, k2_seen = 0;
  for (int i = 0; i < n; i++) {
    if (e[i].variant != mma) continue;
    char knobs[160];
    Registry_formatKnobs(mma, &e[i].knobs, knobs, sizeof knobs);
    k1_seen += strcmp(knobs, k1) == 0 && !e[i].shape.causal;
    k2_seen += strcmp(knobs, k2) == 0 && e[i].shape.causal;
    CHECK(e[i].knobs_given != 0);
  }
  CHECK(k1_seen == 2 && k2_seen == 1);
  free(e);
  Plan_free(&p);
}

int main(void) {
  test_pin();
  test_space();
  test_rank();
  test_strategies();
  return Check_done("test_tune");
}
