/* The chart model apart from drawing (sessions/chart.h): roofline coordinates and ceilings, log
 * axes and their ticks, n/a values left out, one record, 10,000 records, the sweep's lines and
 * the tune's best-so-far; the cell grid (too small, ASCII) and the SVG's escaping. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../unit/check.h"
#include "common/util.h"
#include "sessions/chart.h"
#include "sessions/chart_grid.h"

static void Add(Session *s, const char *variant, const char *knobs, const char *shape, double p50) {
  Record r;
  Record_init(&r);
  char err[100];
  Util_strlcpy(r.variant, variant, sizeof r.variant);
  Util_strlcpy(r.knobs, knobs, sizeof r.knobs);
  Shape_parse(shape, &r.shape, err, sizeof err);
  r.status = REC_PASS;
  r.timing.p50 = p50;
  Session_add(s, &r);
  Record_free(&r);
}

static const ChartSeries *Find(const Chart *c, const char *name) {
  for (int i = 0; i < c->nseries; i++)
    if (strcmp(c->series[i].name, name) == 0) return &c->series[i];
  return NULL;
}

static double Seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void TestRoofline(void) {
  Session s;
  Session_init(&s);
  s.has_device = true;
  Device_init(&s.device);
  Util_strlcpy(s.device.name, "NVIDIA H200", sizeof s.device.name);
  s.device.peak_tflops = 656;
  s.device.peak_gbs = 4270;
  s.device.launch_us = 2.0;
  Add(&s, "mma", "block_m=64", "2x8x512x64", 10.0);
  Add(&s, "mma", "block_m=64", "2x8x512x64", NAN); /* n/a */
  s.records[1].status = REC_NA;
  Add(&s, "naive", "", "2x8x512x64", 400.0);
  s.records[2].status = REC_FAIL; /* failed: no point */
  ChartInput in = {.session = &s, .cursor = 0};
  Chart c;
  Chart_build(&c, CHART_ROOFLINE, &in);
  double flops = 4.0 * 2 * 8 * 512 * 512 * 64, bytes = 8.0 * 2 * 8 * 512 * 64;
  const ChartSeries *mma = Find(&c, "mma");
  CHECK(mma && mma->npoints == 1);
  CHECKF(mma && fabs(mma->points[0].x - flops / bytes) < 1e-9, "x %g", mma ? mma->points[0].x : 0);
  CHECKF(mma && fabs(mma->points[0].y - flops / 10e-6 / 1e12) < 1e-9, "y %g", mma ? mma->points[0].y : 0);
  CHECK(mma && (mma->points[0].flags & CHART_PT_CURSOR) && c.cursor == 0);
  CHECKF(c.plotted == 1 && c.skipped == 2, "plotted %d skipped %d", c.plotted, c.skipped);
  CHECK(c.x.log && c.y.log);
  /* Measured ceilings: the copy roof meets the tensor one at the ridge (656e3/4270 FLOP/B). */
  const ChartSeries *copy = Find(&c, "copy 4270 GB/s"), *tensor = Find(&c, "fp16 tensor 656 TFLOP/s");
  CHECK(copy && tensor && strstr(c.note, "measured"));
  if (copy && tensor) {
    CHECK(fabs(copy->points[1].x - 656e3 / 4270) < 1e-9 && fabs(copy->points[1].y - 656) < 1e-9);
    CHECK(fabs(tensor->points[0].x - copy->points[1].x) < 1e-9);
  }
  /* One shape: its launch floor as a rate. */
  const ChartSeries *launch = Find(&c, "launch floor 2.0 us");
  CHECK(launch && fabs(launch->points[0].y - flops / 2e-6 / 1e12) < 1e-9);
  /* Every point and ceiling inside the axes. */
  for (int i = 0; i < c.nseries; i++)
    for (int k = 0; k < c.series[i].npoints; k++) {
      double px = Chart_position(&c.x, c.series[i].points[k].x), py = Chart_position(&c.y, c.series[i].points[k].y);
      CHECKF(px >= 0 && px <= 1 && py >= 0 && py <= 1, "%s point %d at %g,%g", c.series[i].name, k, px, py);
    }
  Chart_free(&c);
  /* Not measured: the datasheet's, said so. */
  s.device.peak_tflops = NAN;
  s.device.peak_gbs = 0;
  Chart_build(&c, CHART_ROOFLINE, &in);
  CHECK(Find(&c, "fp16 tensor 989 TFLOP/s (datasheet)") && strstr(c.note, "datasheet"));
  Chart_free(&c);
  /* The session's device without ceilings, its records with the ones measured beside them (as
   * the worker writes them): the measured ones. */
  s.records[0].device.peak_tflops = 700;
  s.records[0].device.peak_gbs = 4000;
  Chart_build(&c, CHART_ROOFLINE, &in);
  CHECKF(Find(&c, "fp16 tensor 700 TFLOP/s") && Find(&c, "copy 4000 GB/s") && strstr(c.note, "measured"),
         "note %s", c.note);
  Chart_free(&c);
  Session_free(&s);
}

static void TestAxes(void) {
  ChartAxis a = {.log = true, .lo = 0.5, .hi = 2000};
  double t[CHART_TICKS_MAX];
  int n = Chart_ticks(&a, t, CHART_TICKS_MAX);
  CHECKF(n == 4 && t[0] == 1 && t[3] == 1000, "n %d", n);
  CHECK(fabs(Chart_position(&a, 0.5)) < 1e-12 && fabs(Chart_position(&a, 2000) - 1) < 1e-12);
  CHECK(isnan(Chart_position(&a, 0)) && isnan(Chart_position(&a, -3)) && isnan(Chart_position(&a, NAN)));
  ChartAxis few = {.log = true, .lo = 3, .hi = 60};
  n = Chart_ticks(&few, t, CHART_TICKS_MAX);
  CHECKF(n == 4 && t[0] == 5 && t[3] == 50, "n %d", n); /* 5 10 20 50: with 2 and 5 */
  ChartAxis lin = {.log = false, .lo = 0, .hi = 9.3};
  n = Chart_ticks(&lin, t, CHART_TICKS_MAX);
  CHECKF(n == 5 && t[0] == 0 && t[1] == 2, "n %d", n);
  char b[32];
  Chart_tickLabel(1500, b, sizeof b);
  CHECK(strcmp(b, "1.5k") == 0);
  Chart_tickLabel(0.5, b, sizeof b);
  CHECK(strcmp(b, "0.5") == 0);
}

static void TestSweepAndOne(void) {
  Session s;
  Session_init(&s);
  /* One record: a chart with a widened range, drawable. */
  Add(&s, "mma", "block_m=64,warps=4", "2x8x512x64", 12.0);
  ChartInput in = {.session = &s, .cursor = -1, .x_axis = "S"};
  Chart c;
  Chart_build(&c, CHART_SWEEP, &in);
  CHECK(c.plotted == 1 && c.x.lo < c.x.hi && c.y.lo < c.y.hi);
  ChartGrid g;
  char err[128];
  CHECK(ChartGrid_render(&c, 60, 20, true, &g, err, sizeof err));
  char *text = ChartGrid_text(&g);
  CHECK(strstr(text, "mma block_m=64,warps=4 2x8x*x64 (1)") != NULL);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) CHECK(*p < 128); /* ASCII */
  free(text);
  ChartGrid_free(&g);
  CHECK(!ChartGrid_render(&c, 30, 8, false, &g, err, sizeof err) && strstr(err, "needs"));
  Chart_free(&c);
  /* S from 512 to 4096, two lines by block_m; a record without the knob is left out of a knob
   * axis. */
  Add(&s, "mma", "block_m=64,warps=4", "2x8x2048x64", 150.0);
  Add(&s, "mma", "block_m=64,warps=4", "2x8x1024x64", 40.0);
  Add(&s, "mma", "block_m=64,warps=4", "2x8x4096x64", 600.0);
  Add(&s, "mma", "block_m=128,warps=4", "2x8x1024x64", 35.0);
  Add(&s, "naive", "", "2x8x512x64", 500.0);
  Chart_build(&c, CHART_SWEEP, &in);
  const ChartSeries *l = Find(&c, "mma block_m=64,warps=4 2x8x*x64");
  CHECK(l && l->npoints == 4 && l->points[0].x == 512 && l->points[3].x == 4096);
  CHECK(l && l->points[1].y == 40.0);
  CHECK(c.x.log && c.y.log && c.nseries == 3);
  Chart_free(&c);
  char axes[CHART_AXES_MAX][CHART_AXIS_NAME];
  in.x_axis = NULL;
  int n = Chart_sweepAxes(&in, axes, CHART_AXES_MAX);
  CHECKF(n >= 7 && strcmp(axes[0], "S") == 0 && strcmp(axes[1], "block_m") == 0, "%d %s %s", n, axes[0], axes[1]);
  in.x_axis = "block_m";
  Chart_build(&c, CHART_SWEEP, &in);
  CHECK(c.plotted == 5 && c.skipped == 1 && !c.x.log);
  Chart_free(&c);
  Session_free(&s);
}

static void TestTune(void) {
  Session s;
  Session_init(&s);
  const double p50[] = {9.1, 8.4, NAN, 7.2, 7.0, 7.05};
  for (int i = 0; i < 6; i++) {
    char knobs[32];
    snprintf(knobs, sizeof knobs, "block_m=%d", 16 * (i + 1));
    Add(&s, "mma", knobs, "2x8x512x64", p50[i]);
    s.records[i].tune.rank = i + 1;
    if (isnan(p50[i])) s.records[i].status = REC_FAIL;
  }
  s.records[4].tune.winner = true;
  s.records[5].tune.tied = true;
  Add(&s, "naive", "", "2x8x512x64", 400); /* not tuned */
  ChartInput in = {.session = &s, .cursor = -1};
  Chart c;
  Chart_build(&c, CHART_TUNE, &in);
  const ChartSeries *l = Find(&c, "mma 2x8x512x64");
  static const double best[] = {9.1, 8.4, 8.4, 7.2, 7.0, 7.0};
  CHECK(l && l->npoints == 6);
  for (int i = 0; l && i < l->npoints; i++)
    CHECKF(l->points[i].x == i + 1 && l->points[i].y == best[i], "%d: %g %g", i, l->points[i].x, l->points[i].y);
  CHECK(l && (l->points[4].flags & CHART_PT_WINNER) && (l->points[5].flags & CHART_PT_TIED));
  const ChartSeries *m = Find(&c, "winner and tied: mma 2x8x512x64");
  CHECK(m && m->npoints == 2 && m->points[1].y == 7.05);
  CHECK(c.skipped == 1);
  Chart_free(&c);
  Session_free(&s);
}

static void TestMany(void) {
  Session s;
  Session_init(&s);
  Util_strlcpy(s.device.name, "NVIDIA H100 80GB HBM3", sizeof s.device.name);
  s.has_device = true;
  for (int i = 0; i < 10000; i++) {
    char knobs[32], shape[32];
    snprintf(knobs, sizeof knobs, "block_m=%d", 16 << (i % 4));
    snprintf(shape, sizeof shape, "%dx8x%dx64", 1 + i % 7, 128 << (i % 6));
    Add(&s, i % 2 ? "mma" : "fa3", knobs, shape, 5.0 + i % 97);
  }
  double t0 = Seconds();
  for (int k = 0; k < CHART_KIND_COUNT; k++) {
    ChartInput in = {.session = &s, .cursor = 5000};
    Chart c;
    Chart_build(&c, (ChartKind)k, &in);
    if (k != CHART_TUNE) CHECKF(c.plotted == 10000, "%s: %d", Chart_kindName((ChartKind)k), c.plotted);
    ChartGrid g;
    char err[128];
    CHECK(ChartGrid_render(&c, 200, 60, false, &g, err, sizeof err));
    ChartGrid_free(&g);
    size_t len;
    free(Chart_svg(&c, &len));
    Chart_free(&c);
  }
  double dt = Seconds() - t0;
  CHECKF(dt < 3.0, "three charts of 10,000 records took %.2f s", dt);
  Session_free(&s);
}

static void TestSvgEscapes(void) {
  Session s;
  Session_init(&s);
  Add(&s, "a<b&\"c", "", "2x8x512x64", 10);
  ChartInput in = {.session = &s, .cursor = -1};
  Chart c;
  Chart_build(&c, CHART_ROOFLINE, &in);
  char *svg = Chart_svg(&c, NULL);
  CHECK(strstr(svg, "a&lt;b&amp;&quot;c") && !strstr(svg, "a<b"));
  free(svg);
  Chart_free(&c);
  Session_free(&s);
}

int main(void) {
  TestRoofline();
  TestAxes();
  TestSweepAndOne();
  TestTune();
  TestMany();
  TestSvgEscapes();
  return Check_done("chart");
}
