/* Shape parsing, plan parsing/expansion, registry knobs, statistics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "bench/protocol.h"
#include "bench/stats.h"
#include "check.h"
#include "devices.h"
#include "plans.h"
#include "kernels/registry.h"
#include "kernels/shape.h"

static void test_shapes(void) {
  Shape s;
  char err[256];
  CHECK(Shape_parse("2x8x512x64", &s, err, sizeof err));
  CHECK(s.B == 2 && s.H == 8 && s.S == 512 && s.D == 64 && !s.causal);
  CHECK(Shape_parse("2x8x512x64:causal", &s, err, sizeof err) && s.causal);
  CHECK(Shape_flops(&s) == 0.5 * 4.0 * 2 * 8 * 512.0 * 512 * 64);
  CHECK(Shape_parse("1x1x16384x128", &s, err, sizeof err));
  CHECK(!Shape_parse("1x1x16385x64", &s, err, sizeof err) && strstr(err, "S must be"));
  CHECK(!Shape_parse("0x1x1x64", &s, err, sizeof err));
  CHECK(!Shape_parse("2x8x512", &s, err, sizeof err));
  CHECK(!Shape_parse("2x8x512x64:causa", &s, err, sizeof err) && strstr(err, "suffix"));
  CHECK(!Shape_parse("2x8x512x60", &s, err, sizeof err) && strstr(err, "multiple of 8"));
  CHECK(!Shape_parse("2x8x512x64 ", &s, err, sizeof err));
  CHECK(!Shape_parse("99999999999999999999x1x1x64", &s, err, sizeof err));
  char buf[64];
  Shape_parse("3x4x300x128:causal", &s, err, sizeof err);
  Shape_format(&s, buf, sizeof buf);
  CHECK(strcmp(buf, "3x4x300x128:causal") == 0);
  Shape *list = NULL;
  int n = 0;
  CHECK(Shape_parseList("1x1x1x64,2x8x512x64:causal", &list, &n, err, sizeof err) && n == 2);
  free(list);
  CHECK(!Shape_parseList(",", &list, &n, err, sizeof err));
  for (int i = 0; i < Shape_presetCount; i++) CHECK(Shape_parse(Shape_presets[i], &s, err, sizeof err));
}

static void test_registry(void) {
  CHECK(Registry_count() >= 9);
  const char *ladder[] = {"naive", "smem", "swizzle", "cp_async", "wmma_qk", "wmma", "mma", "fp8", "cublas"};
  for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) CHECK(Registry_find(ladder[i]) != NULL);
  CHECK(Registry_find("nope") == NULL);
  const Variant *v = Registry_find("smem");
  KnobValues kv;
  char err[256];
  Registry_defaults(v, &kv);
  CHECK(Registry_applyKnobs(v, "pad=8", &kv, false, err, sizeof err));
  CHECK(Registry_knobIndex(v, "pad") == 0 && Registry_knobNumber(v, &kv, 0) == 8);
  CHECK(Registry_knobIndex(v, "pda") == -1); /* a typo is no silent fallback */
  CHECK(!Registry_applyKnobs(v, "pad=3", &kv, false, err, sizeof err) && strstr(err, "allowed"));
  CHECK(!Registry_applyKnobs(v, "bogus=1", &kv, false, err, sizeof err) && strstr(err, "no knob"));
  CHECK(Registry_applyKnobs(v, "bogus=1", &kv, true, err, sizeof err));
  Shape s = {.B = 1, .H = 1, .S = 64, .D = 96, .causal = false};
  char why[256];
  CHECK(Registry_refusal(v, &s, &kv, NULL, why, sizeof why) != NULL);
  /* Every shipped preset parses, and every variant's geometry covers every query row. */
  for (int i = 0; i < Registry_count(); i++) {
    const Variant *x = Registry_at(i);
    for (int p = 0; p < x->npresets; p++) {
      KnobValues k;
      Registry_defaults(x, &k);
      CHECK(Registry_applyKnobs(x, x->presets[p], &k, false, err, sizeof err));
    }
  }
}

static void test_plan(void) {
  Plan p;
  Plan_init(&p);
  char err[256];
  Plan_defaultOptions(&p.opts);
  CHECK(p.opts.reps == 100 && p.opts.warmup == 10 && p.opts.watchdog_s == 10.0);
  CHECK(!Plan_setVariants(&p, "naive,bogus", err, sizeof err) && strstr(err, "bogus"));
  CHECK(Plan_setVariants(&p, "all", err, sizeof err) && p.nvariants == Registry_count());
  CHECK(Plan_setVariants(&p, "smem,naive,smem", err, sizeof err) && p.nvariants == 2);
  CHECK(Shape_parseList("1x1x64x64,1x1x128x64", &p.shapes, &p.nshapes, err, sizeof err));
  CHECK(Plan_addKnob(&p, "pad=0,8", err, sizeof err));
  CHECK(!Plan_addKnob(&p, "pad=5", err, sizeof err));
  CHECK(!Plan_addKnob(&p, "stages=2", err, sizeof err) && strstr(err, "no selected variant"));
  CHECK(!Plan_addKnob(&p, "pad", err, sizeof err));
  PlanEntry *e = NULL;
  int n = 0;
  CHECK(Plan_expand(&p, &e, &n, err, sizeof err));
  CHECK(n == 2 * 2 + 1 * 2); /* smem x {pad 0, 8} x 2 shapes + naive x 2 shapes */
  free(e);
  /* A second --knob of the same knob is refused (it silently replaced the first). */
  CHECK(!Plan_addKnob(&p, "pad=8", err, sizeof err) && strstr(err, "given twice"));
  /* Repeated values run once, however many are given (never capped silently). */
  free(p.variants[0].knobs[0]);
  free(p.variants[0].knobs);
  p.variants[0].knobs = NULL;
  p.variants[0].nknobs = 0;
  CHECK(Plan_addKnob(&p, "pad=8,0,8,8,0,8,0,8,0,8,0", err, sizeof err));
  CHECK(Plan_expand(&p, &e, &n, err, sizeof err) && n == 2 * 2 + 1 * 2);
  CHECK(strcmp(p.variants[0].knobs[0], "pad=8,0") == 0);
  free(e);
  Plan_free(&p);
}

/* Each variant keeps its own knob settings: mma and fa3 share knob names. */
static void test_plan_per_variant(void) {
  Plan p;
  Test_plan(&p, "mma,fa3", "2x8x512x64");
  char err[256];
  PlanVariant_setKnob(&p.variants[1], "block_m=128");
  PlanVariant_setKnob(&p.variants[1], "block_n=128");
  PlanEntry *e = NULL;
  int n = 0;
  CHECK(Plan_expand(&p, &e, &n, err, sizeof err) && n == 2);
  KnobValues def;
  if (n == 2) {
    Registry_defaults(e[0].variant, &def);
    CHECK(strcmp(e[0].variant->name, "mma") == 0 && memcmp(&e[0].knobs, &def, sizeof def) == 0);
    CHECK(Registry_knobNumber(e[1].variant, &e[1].knobs, Registry_knobIndex(e[1].variant, "block_m")) == 128);
  }
  free(e);
  CHECK(Plan_check(&p, err, sizeof err));
  /* What a file may not hold: out-of-range options, unknown knobs or values. */
  p.opts.reps = 2147483647;
  CHECK(!Plan_check(&p, err, sizeof err) && strstr(err, "reps"));
  p.opts.reps = 100;
  p.opts.watchdog_s = 1e-9;
  CHECK(!Plan_check(&p, err, sizeof err) && strstr(err, "watchdog"));
  p.opts.watchdog_s = 10;
  p.opts.span_s = -0.5; /* --span from a file: 0 to PLAN_SPAN_MAX seconds or -1, NaN refused */
  CHECK(!Plan_check(&p, err, sizeof err) && strstr(err, "span_s"));
  p.opts.span_s = NAN;
  CHECK(!Plan_check(&p, err, sizeof err) && strstr(err, "span_s"));
  p.opts.span_s = PLAN_SPAN_MAX + 1;
  CHECK(!Plan_check(&p, err, sizeof err) && strstr(err, "span_s"));
  p.opts.span_s = -2;
  CHECK(!Plan_check(&p, err, sizeof err) && strstr(err, "span_s"));
  p.opts.span_s = -1; /* back to back */
  CHECK(Plan_check(&p, err, sizeof err));
  p.opts.span_s = 2.5;
  CHECK(Plan_check(&p, err, sizeof err));
  p.opts.span_s = 0;
  PlanVariant_setKnob(&p.variants[0], "bogus=1");
  CHECK(!Plan_check(&p, err, sizeof err) && strstr(err, "bogus"));
  Plan_free(&p);
  CHECK(Plan_setVariants(&p, "mma", err, sizeof err));
  CHECK(Shape_parseList("2x8x512x64", &p.shapes, &p.nshapes, err, sizeof err));
  Plan_defaultOptions(&p.opts);
  PlanVariant_setKnob(&p.variants[0], "block_m=96");
  CHECK(!Plan_check(&p, err, sizeof err) && strstr(err, "96"));
  Plan_free(&p);
}

static void test_stats(void) {
  double x[] = {5, 1, 4, 2, 3};
  Timing t;
  Stats_compute(x, 5, &t);
  CHECK(t.p50 == 3 && t.min == 1 && t.mean == 3);
  CHECK(fabs(t.p90 - 4.6) < 1e-12);
  CHECK(fabs(t.stddev - sqrt(2.5)) < 1e-12);
  Stats_compute(x, 0, &t);
  CHECK(isnan(t.p50) && isnan(t.mean));
  double one = 7;
  Stats_compute(&one, 1, &t);
  CHECK(t.p50 == 7 && t.p99 == 7 && t.stddev == 0);
}

/* The options reach the worker as they were given: --span's seconds, and -1 (back to back),
 * which a reader that took only non-negative spans turned into the default (pauses). */
static void test_options_wire(void) {
  const double spans[] = {0, -1, 2.5};
  for (int i = 0; i < 3; i++) {
    RunOptions o, back;
    Plan_defaultOptions(&o);
    o.span_s = spans[i];
    cJSON *j = Protocol_optionsToJson(&o);
    Protocol_optionsFromJson(j, &back);
    CHECK(back.span_s == spans[i]);
    cJSON_Delete(j);
  }
}

int main(void) {
  test_shapes();
  test_options_wire();
  test_registry();
  test_plan();
  test_plan_per_variant();
  test_stats();
  return Check_done("test_shape_plan");
}
