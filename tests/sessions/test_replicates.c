/* Verdicts on replicate data: tests/sessions/data/replicates-synthetic.json (SYNTHETIC, made
 * by make_replicates_synthetic.py in the shape of a measured between-process spread: per
 * replicate p50 of about 218 or 233 us, tight samples). The old interval (one run's samples)
 * calls the same configuration slower or faster; the interval with the between-replicate
 * component does not, and still finds a real 3 % change where the replicates agree. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"
#include "sessions/compare_stats.h"
#include "sessions/record_replicates.h"
#include "sessions/session.h"

/* Non-tied verdicts over the pairs (i < j, or every i against every j when cross) of the
 * records of knobs ka and kb at shape; *pairs counts the pairs; slower counts B slower. */
static int Verdicts(const Session *s, const char *shape, const char *ka, const char *kb,
                    bool with_replicates, int *pairs, int *slower) {
  int wrong = 0;
  *pairs = *slower = 0;
  for (int i = 0; i < s->nrecords; i++)
    for (int j = 0; j < s->nrecords; j++) {
      const Record *a = &s->records[i], *b = &s->records[j];
      char sa[64], sb[64];
      Shape_format(&a->shape, sa, sizeof sa);
      Shape_format(&b->shape, sb, sizeof sb);
      if (strcmp(sa, shape) || strcmp(sb, shape) || strcmp(a->knobs, ka) || strcmp(b->knobs, kb))
        continue;
      if (strcmp(ka, kb) == 0 && j <= i) continue;
      Comparison c;
      if (with_replicates) CompareStats_records(a, b, NULL, &c);
      else CompareStats_samples(a->timing.samples, a->timing.nsamples, b->timing.samples,
                                b->timing.nsamples, NULL, &c);
      (*pairs)++;
      wrong += c.verdict != VERDICT_TIED;
      *slower += c.verdict == VERDICT_SLOWER;
      CHECK(c.verdict != VERDICT_NA);
      CHECK(c.replicated == with_replicates);
    }
  return wrong;
}

static void Test_synthetic(const char *path) {
  Session s;
  char err[512];
  bool ok = Session_load(path, &s, err, sizeof err);
  CHECKF(ok, "%s", err);
  if (!ok) return;
  static const char *const shapes[2] = {"4x16x2048x128", "2x8x512x64"};
  static const char *const knobs[2] = {"exp_poly=4", "exp_poly=8"};
  int pairs, slower, old_false = 0;
  for (int sh = 0; sh < 2; sh++)
    for (int k = 0; k < 2; k++) {
      int now = Verdicts(&s, shapes[sh], knobs[k], knobs[k], true, &pairs, &slower);
      CHECKF(pairs == 15 && now == 0, "%s %s: %d of %d same-configuration pairs not tied",
             shapes[sh], knobs[k], now, pairs);
      int before = Verdicts(&s, shapes[sh], knobs[k], knobs[k], false, &pairs, &slower);
      if (sh == 0) old_false += before;
      printf("%s %s: same configuration, %d of %d pairs not tied (old interval %d)\n", shapes[sh],
             knobs[k], now, pairs, before);
    }
  /* What the issue saw: one run's samples alone call noise a change. */
  CHECKF(old_false > 0, "old interval: %d false verdicts at the bimodal shape", old_false);
  /* A real 3 % change where the replicates agree: slower in every pair, old and new. */
  int wrong = Verdicts(&s, shapes[1], knobs[0], knobs[1], true, &pairs, &slower);
  CHECKF(pairs == 36 && slower == 36, "3 %% at %s: %d of %d pairs slower", shapes[1], slower, pairs);
  printf("%s: 3 %% change, %d of %d pairs slower\n", shapes[1], slower, pairs);
  /* At the bimodal shape 8 replicates a side cannot resolve 3 % against a 2 % margin; what the
   * new interval must not do there is call it faster. */
  wrong = Verdicts(&s, shapes[0], knobs[0], knobs[1], true, &pairs, &slower);
  CHECKF(wrong == slower, "3 %% at %s: %d pairs faster", shapes[0], wrong - slower);
  printf("%s: 3 %% change, %d of %d pairs slower (the rest tied)\n", shapes[0], slower, pairs);
  Session_free(&s);
}

/* The interval widens only with a spread to show, and the t quantiles are Student's. */
static void Test_widening(void) {
  CHECK(fabs(CompareStats_tQuantile(0.975, 1) - 12.706) < 0.01);
  CHECK(fabs(CompareStats_tQuantile(0.975, 2) - 4.303) < 0.01);
  CHECK(fabs(CompareStats_tQuantile(0.975, 6) - 2.447) < 0.01);
  CHECK(fabs(CompareStats_tQuantile(0.975, 1000) - 1.962) < 0.01);
  double a[40], b[40];
  for (int i = 0; i < 40; i++) {
    a[i] = 100 + 0.01 * (i % 7);
    b[i] = 106 + 0.01 * (i % 5);
  }
  SampleSummary sa, sb;
  CompareStats_summarize(a, 40, NULL, &sa);
  CompareStats_summarize(b, 40, NULL, &sb);
  Comparison c;
  CompareStats_compare(&sa, &sb, NULL, &c);
  CHECK(c.verdict == VERDICT_SLOWER && !c.replicated);
  /* Replicates that agree leave the interval as it was; replicates that spread widen it. */
  const double ra[4] = {100, 100, 100, 100}, rb[4] = {106, 106, 106, 106};
  const double spread[4] = {90, 110, 90, 110};
  CompareStats_addReplicates(&sa, ra, 4);
  CompareStats_addReplicates(&sb, rb, 4);
  Comparison d;
  CompareStats_compare(&sa, &sb, NULL, &d);
  CHECK(d.verdict == VERDICT_SLOWER && d.replicated && d.lo == c.lo && d.hi == c.hi);
  CompareStats_addReplicates(&sa, spread, 4);
  CompareStats_compare(&sa, &sb, NULL, &d);
  CHECK(d.verdict == VERDICT_TIED && d.lo < c.lo && d.hi > c.hi && d.ratio == c.ratio);
  CompareStats_freeSummary(&sa);
  CompareStats_freeSummary(&sb);
}

/* timing.replicate_p50 in JSON: more than the limit and non-numbers refused in one line. */
static void Test_json(void) {
  Timing t;
  memset(&t, 0, sizeof t);
  char err[256] = "";
  cJSON *o = cJSON_Parse("{\"replicate_p50\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}");
  CHECK(!Replicates_read(o, &t, "r", err, sizeof err) && strstr(err, "at most 16"));
  cJSON_Delete(o);
  o = cJSON_Parse("{\"replicate_p50\":[1,\"x\"]}");
  CHECK(!Replicates_read(o, &t, "r", err, sizeof err) && strstr(err, "replicate_p50[1]"));
  cJSON_Delete(o);
  o = cJSON_Parse("{\"replicate_p50\":[218.5,233.25]}");
  CHECK(Replicates_read(o, &t, "r", err, sizeof err) && t.nreplicates == 2);
  cJSON *made = cJSON_CreateObject();
  Replicates_write(made, &t);
  char *text = cJSON_PrintUnformatted(made);
  cJSON *w = cJSON_Parse(text);
  cJSON_free(text);
  cJSON_Delete(made);
  Timing u;
  memset(&u, 0, sizeof u);
  CHECK(Replicates_read(w, &u, "r", err, sizeof err) && Replicates_equal(&t, &u, "r", err, sizeof err));
  cJSON_Delete(w);
  cJSON_Delete(o);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_replicates replicates-synthetic.json\n");
    return 2;
  }
  Test_synthetic(argv[1]);
  Test_widening();
  Test_json();
  return Check_done("replicates");
}
