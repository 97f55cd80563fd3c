/* The p50-ratio interval and verdicts on synthetic sample sets whose truth is known. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"
#include "sessions/compare_stats.h"

/* The test's own generator, apart from the module's. */
static uint64_t rng_state;
static double Rng_uniform(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}
static double Rng_normal(void) {
  const double two_pi = 6.283185307179586;
  return sqrt(-2 * log(Rng_uniform())) * cos(two_pi * Rng_uniform());
}

/* n samples around `center` with relative normal noise `noise` (1 % -> 0.01). */
static double *Make(int n, double center, double noise) {
  double *x = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  for (int i = 0; i < n; i++) x[i] = center * (1 + noise * Rng_normal());
  return x;
}

static Comparison Compare(const double *a, int na, const double *b, int nb, double margin) {
  CompareOptions o;
  CompareStats_defaults(&o);
  if (!isnan(margin)) o.margin = margin;
  Comparison c;
  CompareStats_samples(a, na, b, nb, &o, &c);
  return c;
}

/* Verdicts over `trials` independent draws: counts[verdict]. */
static void Trials(int trials, int n, double shift, double noise, double margin, int counts[4]) {
  memset(counts, 0, sizeof(int) * 4);
  for (int t = 0; t < trials; t++) {
    double *a = Make(n, 10.0, noise), *b = Make(n, 10.0 * (1 + shift), noise);
    Comparison c = Compare(a, n, b, n, margin);
    counts[c.verdict]++;
    free(a);
    free(b);
  }
}

static void Test_verdicts(void) {
  int k[4];
  /* The same distribution: tied every time (the margin absorbs what the interval allows). */
  Trials(40, 100, 0.0, 0.02, NAN, k);
  CHECK(k[VERDICT_TIED] == 40);
  /* 10 % slower with 1 % noise: found every time, and the other way round. */
  Trials(40, 100, 0.10, 0.01, NAN, k);
  CHECK(k[VERDICT_SLOWER] == 40);
  Trials(40, 100, -0.10, 0.01, NAN, k);
  CHECK(k[VERDICT_FASTER] == 40);
  /* 1 % inside 5 % noise at the default 100 reps: tied every time. */
  Trials(40, 100, 0.01, 0.05, NAN, k);
  CHECK(k[VERDICT_TIED] == 40);
  /* 1 % with 0.1 % noise: a real difference, but inside the 2 % margin: tied and equivalent. */
  double *a = Make(200, 10.0, 0.001), *b = Make(200, 10.1, 0.001);
  Comparison c = Compare(a, 200, b, 200, NAN);
  CHECK(c.verdict == VERDICT_TIED && c.equivalent);
  CHECK(c.lo > 1.0 && c.hi < 1.02);
  /* ... and slower with no margin. */
  c = Compare(a, 200, b, 200, 0.0);
  CHECK(c.verdict == VERDICT_SLOWER);
  free(a);
  free(b);
}

/* With no margin, two draws of one distribution are called different about 5 % of the time at
 * 95 %: the interval is neither too narrow (false verdicts, nvbench's trouble) nor useless. */
static void Test_calibration(void) {
  int k[4];
  Trials(200, 100, 0.0, 0.03, 0.0, k);
  int wrong = k[VERDICT_FASTER] + k[VERDICT_SLOWER];
  printf("calibration: %d of 200 identical pairs called different at 95 %%\n", wrong);
  CHECK(wrong <= 20);
  /* Power: a shift of 2 standard errors is found more often than not. */
  Trials(100, 100, 0.01, 0.03, 0.0, k);
  printf("power: 1 %% in 3 %% noise found in %d of 100\n", k[VERDICT_SLOWER]);
  CHECK(k[VERDICT_SLOWER] >= 40 && k[VERDICT_FASTER] == 0);
}

static void Test_interval(void) {
  double *a = Make(100, 10.0, 0.01), *b = Make(100, 11.0, 0.01);
  Comparison c = Compare(a, 100, b, 100, NAN);
  CHECK(c.lo <= c.ratio && c.ratio <= c.hi);
  CHECK(c.lo > 1.08 && c.hi < 1.12);
  CHECK(c.lo < 1.10 && c.hi > 1.10); /* covers the truth */
  CHECK(fabs(c.confidence - 0.95) < 1e-12 && fabs(c.margin - 0.02) < 1e-12);
  CHECK(CompareStats_above(&c, 5) && !CompareStats_above(&c, 10) && !CompareStats_above(&c, NAN));
  char buf[64];
  CompareStats_formatChange(&c, buf, sizeof buf);
  char expect[16];
  snprintf(expect, sizeof expect, "%+.1f%% [", (c.ratio - 1) * 100);
  CHECK(strncmp(buf, expect, strlen(expect)) == 0 && buf[strlen(buf) - 1] == ']');
  CompareStats_formatInterval(&c, buf, sizeof buf);
  CHECK(buf[0] == '[' && buf[strlen(buf) - 1] == '%');
  CHECK(strcmp(CompareStats_verdictName(c.verdict), "slower") == 0);
  /* Determinism: the same inputs give the same interval, bit for bit. */
  Comparison d = Compare(a, 100, b, 100, NAN);
  CHECK(memcmp(&c.lo, &d.lo, sizeof c.lo) == 0 && memcmp(&c.hi, &d.hi, sizeof c.hi) == 0);
  /* Identical sample sets: ratio exactly 1, tied. */
  c = Compare(a, 100, a, 100, NAN);
  CHECK(c.ratio == 1.0 && c.verdict == VERDICT_TIED && c.equivalent);
  free(a);
  free(b);
}

static void Test_smallAndEmpty(void) {
  double a3[] = {10.0, 10.1, 9.9}, b3[] = {11.0, 11.1, 10.9};
  Comparison c = Compare(a3, 3, b3, 3, NAN);
  CHECK(c.verdict == VERDICT_NA && strstr(c.reason, "too few") && isnan(c.lo));
  CHECK(fabs(c.ratio - 1.1) < 1e-9); /* the point estimate is still there */
  char buf[64];
  CompareStats_formatChange(&c, buf, sizeof buf);
  CHECK(strcmp(buf, "+10.0%") == 0);
  double a5[] = {10.0, 10.1, 9.9, 10.05, 9.95}, b5[] = {11.0, 11.1, 10.9, 11.05, 10.95};
  c = Compare(a5, 5, b5, 5, NAN);
  CHECK(c.verdict == VERDICT_SLOWER);
  c = Compare(NULL, 0, b5, 5, NAN);
  CHECK(c.verdict == VERDICT_NA && isnan(c.ratio) && strstr(c.reason, "no samples"));
  CompareStats_formatChange(&c, buf, sizeof buf);
  CHECK(strcmp(buf, "n/a") == 0);
  c = Compare(NULL, 0, NULL, 0, NAN);
  CHECK(c.verdict == VERDICT_NA);
  c = Compare(a5, -3, b5, 5, NAN);
  CHECK(c.verdict == VERDICT_NA);
  SampleSummary s;
  CompareStats_summarize(NULL, 0, NULL, &s);
  CHECK(s.n == 0 && isnan(s.median) && !s.boot);
  CompareStats_freeSummary(&s);
  /* Medians as Stats_percentile computes them. */
  double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2};
  CompareStats_summarize(odd, 3, NULL, &s);
  CHECK(s.median == 2);
  CompareStats_freeSummary(&s);
  CompareStats_summarize(even, 4, NULL, &s);
  CHECK(s.median == 2.5);
  CompareStats_freeSummary(&s);
}

static void Test_badSamples(void) {
  double *a = Make(100, 10.0, 0.01), *b = Make(100, 11.0, 0.01);
  Comparison clean = Compare(a, 100, b, 100, NAN);
  double *dirty = malloc(sizeof(double) * 105);
  memcpy(dirty, b, sizeof(double) * 100);
  dirty[100] = NAN;
  dirty[101] = INFINITY;
  dirty[102] = -1.0;
  dirty[103] = 0.0;
  dirty[104] = -INFINITY;
  SampleSummary s;
  CompareStats_summarize(dirty, 105, NULL, &s);
  CHECK(s.n == 100 && s.dropped == 5);
  CompareStats_freeSummary(&s);
  Comparison c = Compare(a, 100, dirty, 105, NAN);
  CHECK(c.verdict == clean.verdict && c.ratio == clean.ratio);
  CHECK(memcmp(&c.lo, &clean.lo, sizeof c.lo) == 0); /* the same valid samples, the same draws */
  /* All NaN: no samples. */
  for (int i = 0; i < 100; i++) dirty[i] = NAN;
  c = Compare(a, 100, dirty, 100, NAN);
  CHECK(c.verdict == VERDICT_NA && !isnan(c.margin));
  free(dirty);
  free(a);
  free(b);
}

/* Lognormal bodies with 5 % of launches 10x slower (a preempted launch, a clock dip). */
static double *HeavyTail(int n, double center) {
  double *x = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) {
    x[i] = center * exp(0.02 * Rng_normal());
    if (Rng_uniform() < 0.05) x[i] *= 1 + 9 * Rng_uniform();
  }
  return x;
}

static void Test_heavyTails(void) {
  int tied = 0, slower = 0;
  for (int t = 0; t < 30; t++) {
    double *a = HeavyTail(100, 10.0), *b = HeavyTail(100, 10.0), *c = HeavyTail(100, 11.0);
    tied += Compare(a, 100, b, 100, NAN).verdict == VERDICT_TIED;
    slower += Compare(a, 100, c, 100, NAN).verdict == VERDICT_SLOWER;
    free(a);
    free(b);
    free(c);
  }
  CHECK(tied == 30);
  CHECK(slower == 30);
}

/* Launch order matters: a slow drift across the run widens the interval (block bootstrap);
 * the same values shuffled do not. */
static void Test_serialCorrelation(void) {
  int n = 400;
  double *a = malloc(sizeof(double) * (size_t)n), *b = Make(n, 10.0, 0.002);
  for (int i = 0; i < n; i++) a[i] = 10.0 * (1 + 0.03 * sin(6.283185307179586 * i / n)) *
                                     (1 + 0.002 * Rng_normal());
  Comparison ordered = Compare(a, n, b, n, NAN);
  for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
    int j = (int)(Rng_uniform() * (i + 1));
    double t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  Comparison shuffled = Compare(a, n, b, n, NAN);
  printf("drifting run: interval width %.4f in launch order, %.4f shuffled\n",
         ordered.hi - ordered.lo, shuffled.hi - shuffled.lo);
  CHECK(ordered.hi - ordered.lo > 1.5 * (shuffled.hi - shuffled.lo));
  free(a);
  free(b);
}

/* Above the resample cap the interval still shrinks with n, and still finds a 1 % shift in 1 %
 * noise (a tight interval of many samples). */
static void Test_largeN(void) {
  int n = 50000;
  double *a = Make(n, 10.0, 0.01), *b = Make(n, 10.0 * 1.03, 0.01);
  Comparison c = Compare(a, n, b, n, NAN);
  CHECK(c.verdict == VERDICT_SLOWER && c.lo < 1.03 && c.hi > 1.03);
  double *a2 = Make(1000, 10.0, 0.01), *b2 = Make(1000, 10.0 * 1.03, 0.01);
  Comparison c2 = Compare(a2, 1000, b2, 1000, NAN);
  printf("width at n=50000: %.5f, at n=1000: %.5f\n", c.hi - c.lo, c2.hi - c2.lo);
  CHECK(c.hi - c.lo < 0.5 * (c2.hi - c2.lo));
  free(a);
  free(b);
  free(a2);
  free(b2);
}

static void Test_records(void) {
  Record a, b;
  Record_init(&a);
  Record_init(&b);
  a.timing.samples = Make(100, 10.0, 0.01);
  a.timing.nsamples = 100;
  b.timing.samples = Make(100, 12.0, 0.01);
  b.timing.nsamples = 100;
  strcpy(a.timing.source, "kernel");
  strcpy(b.timing.source, "kernel");
  Comparison c;
  CompareStats_records(&a, &b, NULL, &c);
  CHECK(c.verdict == VERDICT_SLOWER);
  /* Different clocks: no interval, the event p50s give the ratio. */
  strcpy(b.timing.source, "events");
  a.timing.event_p50 = 12.0;
  b.timing.p50 = 15.0;
  CompareStats_records(&a, &b, NULL, &c);
  CHECK(c.verdict == VERDICT_NA && fabs(c.ratio - 1.25) < 1e-12 && strstr(c.reason, "clocks"));
  /* A record without samples (failed, or older): n/a. */
  strcpy(b.timing.source, "kernel");
  free(b.timing.samples);
  b.timing.samples = NULL;
  b.timing.nsamples = -1;
  CompareStats_records(&a, &b, NULL, &c);
  CHECK(c.verdict == VERDICT_NA);
  Record_free(&a);
  Record_free(&b);
}

static void Test_options(void) {
  double *a = Make(100, 10.0, 0.01), *b = Make(100, 10.5, 0.01);
  CompareOptions o;
  CompareStats_defaults(&o);
  Comparison c95, c99, bad;
  CompareStats_samples(a, 100, b, 100, &o, &c95);
  o.confidence = 0.99;
  CompareStats_samples(a, 100, b, 100, &o, &c99);
  CHECK(c99.lo <= c95.lo && c99.hi >= c95.hi);
  o.confidence = 1.5; /* nonsense falls back to the defaults */
  o.resamples = -4;
  o.margin = NAN;
  CompareStats_samples(a, 100, b, 100, &o, &bad);
  CHECK(bad.confidence == 0.95 && bad.margin == 0.02 && bad.lo == c95.lo);
  /* Summaries of different resample counts are not compared. */
  SampleSummary sa, sb;
  o.confidence = 0.95;
  o.resamples = 500;
  CompareStats_summarize(a, 100, &o, &sa);
  o.resamples = 600;
  CompareStats_summarize(b, 100, &o, &sb);
  CompareStats_compare(&sa, &sb, &o, &c95);
  CHECK(c95.verdict == VERDICT_NA);
  CompareStats_freeSummary(&sa);
  CompareStats_freeSummary(&sb);
  free(a);
  free(b);
}

int main(void) {
  rng_state = 12345;
  Test_verdicts();
  Test_calibration();
  Test_interval();
  Test_smallAndEmpty();
  Test_badSamples();
  Test_heavyTails();
  Test_serialCorrelation();
  Test_largeN();
  Test_records();
  Test_options();
  return Check_done("compare_stats");
}
