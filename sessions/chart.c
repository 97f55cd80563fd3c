/* The chart model (chart.h): series of points built from a session's records; the kinds'
 * builders are here, the axes and ticks in chart_axis.c. */
#include "sessions/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/registry.h"
#include "sessions/datasheet.h"
#include "sessions/floors.h"

static const char *const Chart_kindNames[CHART_KIND_COUNT] = {"roofline", "sweep", "tune"};

const char *Chart_kindName(ChartKind k) {
  return k >= 0 && k < CHART_KIND_COUNT ? Chart_kindNames[k] : "?";
}

bool Chart_kindParse(const char *s, ChartKind *out) {
  for (int k = 0; k < CHART_KIND_COUNT; k++)
    if (strcmp(s, Chart_kindNames[k]) == 0) {
      *out = (ChartKind)k;
      return true;
    }
  return false;
}

void Chart_free(Chart *c) {
  for (int i = 0; i < c->nseries; i++) free(c->series[i].points);
  free(c->series);
  memset(c, 0, sizeof *c);
  c->cursor = -1;
}

/* The series named name (added at the end when new). */
static ChartSeries *Chart_series(Chart *c, const char *name, SeriesStyle style) {
  for (int i = 0; i < c->nseries; i++)
    if (c->series[i].style == style && strcmp(c->series[i].name, name) == 0) return &c->series[i];
  c->series = Util_xrealloc(c->series, (size_t)(c->nseries + 1) * sizeof *c->series);
  ChartSeries *s = &c->series[c->nseries++];
  memset(s, 0, sizeof *s);
  Util_strlcpy(s->name, name, sizeof s->name);
  s->style = style;
  return s;
}

static void Chart_addPoint(ChartSeries *s, double x, double y, int record, unsigned flags) {
  if (s->npoints == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 8;
    s->points = Util_xrealloc(s->points, (size_t)s->cap * sizeof *s->points);
  }
  s->points[s->npoints++] = (ChartPoint){x, y, record, flags};
}

static int Chart_recordAt(const ChartInput *in, int i) { return in->records ? in->records[i] : i; }
static int Chart_count(const ChartInput *in) {
  return in->records ? in->nrecords : in->session->nrecords;
}

static unsigned Chart_flags(const ChartInput *in, int idx) {
  unsigned f = 0;
  if (idx == in->cursor) f |= CHART_PT_CURSOR;
  if (in->marked && in->marked[idx]) f |= CHART_PT_MARKED;
  return f;
}

/* A record that has a time to plot. */
static bool Chart_timed(const Record *r) {
  return r->status == REC_PASS && r->timing.p50 > 0 && isfinite(r->timing.p50);
}

/* ---- roofline --------------------------------------------------------------------------- */

/* The ceilings: measured where the session has them, else the datasheet's (said in note). */
static void Chart_rooflineCeilings(Chart *c, const DeviceInfo *d, bool any_fp8,
                                   const Shape *one_shape, double xlo, double xhi) {
  double tflops = d->peak_tflops, gbs = d->peak_gbs;
  const Datasheet *ds = Datasheet_find(d);
  bool declared = false;
  if (!(tflops > 0) && ds) { tflops = ds->fp16_tflops; declared = true; }
  if (!(gbs > 0) && ds) { gbs = ds->dram_gbs; declared = true; }
  snprintf(c->note, sizeof c->note, "%s", !(tflops > 0) && !(gbs > 0) ? "no ceilings: the device "
           "measured none and is not in the datasheet table"
           : declared ? "ceilings: the datasheet's (this session measured none)"
                      : "ceilings: measured on the device");
  const char *suffix = declared ? " (datasheet)" : "";
  char name[160];
  double ridge = tflops > 0 && gbs > 0 ? tflops * 1e3 / gbs : NAN;
  if (gbs > 0) {
    snprintf(name, sizeof name, "copy %.0f GB/s%s", gbs, suffix);
    ChartSeries *s = Chart_series(c, name, SERIES_CEILING);
    double end = isnan(ridge) ? xhi : ridge;
    Chart_addPoint(s, xlo, xlo * gbs / 1e3, -1, 0);
    Chart_addPoint(s, end, end * gbs / 1e3, -1, 0);
  }
  if (tflops > 0) {
    snprintf(name, sizeof name, "fp16 tensor %.0f TFLOP/s%s", tflops, suffix);
    ChartSeries *s = Chart_series(c, name, SERIES_CEILING);
    Chart_addPoint(s, isnan(ridge) ? xlo : ridge, tflops, -1, 0);
    Chart_addPoint(s, xhi, tflops, -1, 0);
    double ratio = Datasheet_fp8Ratio(d);
    if (any_fp8 && ratio > 0) {
      /* As the floors count it: QK^T (half the FLOPs) at the fp8 rate, PV at fp16. */
      double mix = 2.0 / (1.0 / tflops + 1.0 / (tflops * ratio));
      snprintf(name, sizeof name, "fp8 QK + fp16 PV %.0f TFLOP/s%s", mix, suffix);
      s = Chart_series(c, name, SERIES_CEILING);
      Chart_addPoint(s, isnan(ridge) ? xlo : mix * 1e3 / gbs, mix, -1, 0);
      Chart_addPoint(s, xhi, mix, -1, 0);
    }
  }
  if (one_shape && d->launch_us > 0) {
    /* One shape: its launch floor is a rate too (its FLOPs in one empty kernel's time). */
    double rate = Shape_flops(one_shape) / (d->launch_us * 1e-6) / 1e12;
    snprintf(name, sizeof name, "launch floor %.1f us", d->launch_us);
    ChartSeries *s = Chart_series(c, name, SERIES_CEILING);
    Chart_addPoint(s, xlo, rate, -1, 0);
    Chart_addPoint(s, xhi, rate, -1, 0);
  }
}

static void Chart_roofline(Chart *c, const ChartInput *in) {
  const Session *ss = in->session;
  Util_strlcpy(c->x.label, "arithmetic intensity (FLOP/byte)", sizeof c->x.label);
  Util_strlcpy(c->y.label, "achieved TFLOP/s", sizeof c->y.label);
  c->x.log = c->y.log = true;
  const DeviceInfo *dev = ss->has_device ? &ss->device : NULL;
  bool any_fp8 = false, one = true;
  Shape shape = {0};
  double xlo = INFINITY, xhi = -INFINITY;
  DeviceInfo peaks = {.peak_tflops = NAN, .peak_gbs = NAN};
  for (int i = 0, n = Chart_count(in); i < n; i++) {
    int idx = Chart_recordAt(in, i);
    const Record *r = &ss->records[idx];
    Floors f;
    Floors_compute(r, &f);
    double ai = f.flops / f.bytes, rate = f.flops / (r->timing.p50 * 1e-6) / 1e12;
    if (!Chart_timed(r) || !(ai > 0) || !(rate > 0) || !isfinite(rate)) {
      c->skipped++;
      continue;
    }
    if (!dev) dev = &r->device;
    /* The session's device says who ran it; the ceilings were measured with each record. */
    if (!(peaks.peak_tflops > 0) && r->device.peak_tflops > 0) peaks.peak_tflops = r->device.peak_tflops;
    if (!(peaks.peak_gbs > 0) && r->device.peak_gbs > 0) peaks.peak_gbs = r->device.peak_gbs;
    const Variant *v = Registry_find(r->variant);
    any_fp8 |= v && v->qk_fp8;
    if (c->plotted == 0) shape = r->shape;
    else one = one && Shape_equal(&shape, &r->shape);
    Chart_addPoint(Chart_series(c, r->variant, SERIES_POINTS), ai, rate, idx, Chart_flags(in, idx));
    c->plotted++;
    if (ai < xlo) xlo = ai;
    if (ai > xhi) xhi = ai;
  }
  if (c->plotted == 0) return;
  /* Room for the ridge and the roof's slope either side of the points. */
  xlo /= 4;
  xhi *= 4;
  if (dev) {
    DeviceInfo d = *dev;
    if (!(d.peak_tflops > 0)) d.peak_tflops = peaks.peak_tflops;
    if (!(d.peak_gbs > 0)) d.peak_gbs = peaks.peak_gbs;
    double ridge_t = d.peak_tflops, ridge_g = d.peak_gbs;
    const Datasheet *ds = Datasheet_find(&d);
    if (!(ridge_t > 0) && ds) ridge_t = ds->fp16_tflops;
    if (!(ridge_g > 0) && ds) ridge_g = ds->dram_gbs;
    double ridge = ridge_t > 0 && ridge_g > 0 ? ridge_t * 1e3 / ridge_g : NAN;
    if (ridge > 0 && ridge * 2 > xhi) xhi = ridge * 2;
    if (ridge > 0 && ridge / 8 < xlo) xlo = ridge / 8;
    Chart_rooflineCeilings(c, &d, any_fp8, one ? &shape : NULL, xlo, xhi);
  }
}

/* ---- sweep ------------------------------------------------------------------------------ */

/* The value of knob name in "k=v,k=v" text; NAN when absent or not a number. */
static double Chart_knobValue(const char *knobs, const char *name) {
  size_t len = strlen(name);
  for (const char *p = knobs; p && *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n > len && strncmp(p, name, len) == 0 && p[len] == '=') {
      char val[64], *stop;
      size_t vl = n - len - 1;
      if (vl == 0 || vl >= sizeof val) return NAN;
      memcpy(val, p + len + 1, vl);
      val[vl] = 0;
      double v = strtod(val, &stop);
      return *stop == 0 ? v : NAN;
    }
    p = end ? end + 1 : NULL;
  }
  return NAN;
}

double Chart_axisValue(const Record *r, const char *axis) {
  const Shape *s = &r->shape;
  if (strcmp(axis, "S") == 0) return s->S;
  if (strcmp(axis, "B") == 0) return s->B;
  if (strcmp(axis, "H") == 0) return s->H;
  if (strcmp(axis, "D") == 0) return s->D;
  if (strcmp(axis, "BH") == 0) return (double)s->B * s->H;
  return Chart_knobValue(r->knobs, axis);
}

static bool Chart_isShapeAxis(const char *axis) {
  return strcmp(axis, "S") == 0 || strcmp(axis, "B") == 0 || strcmp(axis, "H") == 0 ||
         strcmp(axis, "D") == 0 || strcmp(axis, "BH") == 0;
}

/* A line's name: the variant, its other knobs and its shape with the swept part as '*'. */
static void Chart_sweepKey(const Record *r, const char *axis, char *buf, size_t size) {
  char knobs[RECORD_KNOBS_MAX] = "";
  size_t len = strlen(axis), kl = 0;
  for (const char *p = r->knobs; p && *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (!(n > len && strncmp(p, axis, len) == 0 && p[len] == '=') && kl + n + 2 < sizeof knobs) {
      if (kl) knobs[kl++] = ',';
      memcpy(knobs + kl, p, n);
      kl += n;
      knobs[kl] = 0;
    }
    p = end ? end + 1 : NULL;
  }
  const Shape *s = &r->shape;
  char b[16], h[16], sq[16], d[16];
  bool bh = strcmp(axis, "BH") == 0;
  snprintf(b, sizeof b, bh || strcmp(axis, "B") == 0 ? "*" : "%d", s->B);
  snprintf(h, sizeof h, bh || strcmp(axis, "H") == 0 ? "*" : "%d", s->H);
  snprintf(sq, sizeof sq, strcmp(axis, "S") == 0 ? "*" : "%d", s->S);
  snprintf(d, sizeof d, strcmp(axis, "D") == 0 ? "*" : "%d", s->D);
  /* The key/value part and the dtype as the shape grammar writes them (docs/problems.md). */
  char hkv[16] = "", skv[16] = "";
  if (Shape_hkv(s) != s->H) snprintf(hkv, sizeof hkv, "/%d", Shape_hkv(s));
  if (Shape_skv(s) != s->S) snprintf(skv, sizeof skv, "/%d", Shape_skv(s));
  snprintf(buf, size, "%s%s%s %sx%s%sx%s%sx%s%s%s", r->variant, kl ? " " : "", knobs, b, h, hkv,
           sq, skv, d, s->causal ? ":causal" : "", s->dtype == SHAPE_BF16 ? ":bf16" : "");
}

int Chart_sweepAxes(const ChartInput *in, char names[][CHART_AXIS_NAME], int max) {
  char all[CHART_AXES_MAX][CHART_AXIS_NAME];
  int n = 0;
  static const char *const dims[] = {"S", "B", "H", "D", "BH"};
  for (int i = 0; i < 5; i++) Util_strlcpy(all[n++], dims[i], CHART_AXIS_NAME);
  for (int i = 0, cnt = Chart_count(in); i < cnt; i++) {
    const Record *r = &in->session->records[Chart_recordAt(in, i)];
    for (const char *p = r->knobs; p && *p && n < CHART_AXES_MAX;) {
      const char *eq = strchr(p, '='), *end = strchr(p, ',');
      if (!eq || (end && eq > end)) break;
      char name[CHART_AXIS_NAME];
      size_t len = (size_t)(eq - p);
      if (len > 0 && len < sizeof name) {
        memcpy(name, p, len);
        name[len] = 0;
        int k = 0;
        while (k < n && strcmp(all[k], name) != 0) k++;
        if (k == n && !isnan(Chart_knobValue(r->knobs, name))) Util_strlcpy(all[n++], name, CHART_AXIS_NAME);
      }
      p = end ? end + 1 : NULL;
    }
  }
  /* Those with more than one value first, each group in the order found. */
  int out = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < n && out < max; k++) {
      double first = NAN;
      bool varies = false;
      for (int i = 0, cnt = Chart_count(in); i < cnt && !varies; i++) {
        double v = Chart_axisValue(&in->session->records[Chart_recordAt(in, i)], all[k]);
        if (isnan(v)) continue;
        if (isnan(first)) first = v;
        else varies = v != first;
      }
      if (varies == (pass == 0)) Util_strlcpy(names[out++], all[k], CHART_AXIS_NAME);
    }
  return out;
}

static int Chart_pointCmp(const void *a, const void *b) {
  const ChartPoint *p = a, *q = b;
  return p->x < q->x ? -1 : p->x > q->x ? 1 : p->record - q->record;
}

static double Chart_p50(const Record *r, void *ctx) {
  (void)ctx;
  return r->timing.p50;
}

static void Chart_sweep(Chart *c, const ChartInput *in) {
  char axes[CHART_AXES_MAX][CHART_AXIS_NAME];
  const char *axis = in->x_axis;
  if (!axis || !axis[0]) axis = Chart_sweepAxes(in, axes, CHART_AXES_MAX) > 0 ? axes[0] : "S";
  double (*get)(const Record *, void *) = in->y_value ? in->y_value : Chart_p50;
  snprintf(c->x.label, sizeof c->x.label, "%s", strcmp(axis, "BH") == 0 ? "B*H" : axis);
  snprintf(c->y.label, sizeof c->y.label, "%s", in->y_value && in->y_label ? in->y_label : "p50 (us)");
  snprintf(c->title + strlen(c->title), sizeof c->title - strlen(c->title), " of %s", c->x.label);
  for (int i = 0, n = Chart_count(in); i < n; i++) {
    int idx = Chart_recordAt(in, i);
    const Record *r = &in->session->records[idx];
    double x = Chart_axisValue(r, axis), y = r->status == REC_PASS ? get(r, in->y_ctx) : NAN;
    if (!isfinite(x) || !isfinite(y)) {
      c->skipped++;
      continue;
    }
    char key[160];
    Chart_sweepKey(r, axis, key, sizeof key);
    Chart_addPoint(Chart_series(c, key, SERIES_LINE), x, y, idx, Chart_flags(in, idx));
    c->plotted++;
  }
  for (int i = 0; i < c->nseries; i++)
    qsort(c->series[i].points, (size_t)c->series[i].npoints, sizeof(ChartPoint), Chart_pointCmp);
  c->x.log = Chart_isShapeAxis(axis);
}

/* ---- tune ------------------------------------------------------------------------------- */

static void Chart_tune(Chart *c, const ChartInput *in) {
  Util_strlcpy(c->x.label, "measurements", sizeof c->x.label);
  Util_strlcpy(c->y.label, "best p50 so far (us)", sizeof c->y.label);
  /* Each variant and shape's records in the order measured: how many so far, the best. */
  for (int i = 0, n = Chart_count(in); i < n; i++) {
    int idx = Chart_recordAt(in, i);
    const Record *r = &in->session->records[idx];
    if (r->tune.rank < 0) {
      c->skipped++;
      continue;
    }
    char shape[64], key[160];
    Shape_format(&r->shape, shape, sizeof shape);
    snprintf(key, sizeof key, "%s %s", r->variant, shape);
    ChartSeries *s = Chart_series(c, key, SERIES_LINE);
    double count = 1, best = INFINITY;
    for (int k = s->npoints - 1; k >= 0; k--)
      if (s->points[k].record >= 0) {
        count = s->points[k].x + 1;
        best = s->points[k].y;
        break;
      }
    /* A failed measurement still counts; it draws nothing until the first time. */
    if (Chart_timed(r) && r->timing.p50 < best) best = r->timing.p50;
    unsigned flags = Chart_flags(in, idx);
    if (r->tune.winner) flags |= CHART_PT_WINNER;
    if (r->tune.tied) flags |= CHART_PT_TIED;
    if (isfinite(best)) {
      Chart_addPoint(s, count, best, idx, flags);
      c->plotted++;
    } else {
      c->skipped++;
    }
    if ((r->tune.winner || r->tune.tied) && Chart_timed(r)) {
      snprintf(key, sizeof key, "winner and tied: %s %s", r->variant, shape);
      Chart_addPoint(Chart_series(c, key, SERIES_POINTS), count, r->timing.p50, idx, flags);
    }
  }
  if (c->plotted == 0 && c->skipped > 0)
    snprintf(c->note, sizeof c->note, "no tuned records here (benchtop tune writes them)");
}

/* ---- the whole ---------------------------------------------------------------------------- */

void Chart_build(Chart *c, ChartKind kind, const ChartInput *in) {
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->cursor = -1;
  const Session *s = in->session;
  static const char *const titles[CHART_KIND_COUNT] = {"roofline", "p50 sweep", "tune"};
  Util_strlcpy(c->title, titles[kind], sizeof c->title);
  if (in->y_value && in->y_label && kind == CHART_SWEEP)
    snprintf(c->title, sizeof c->title, "%s sweep", in->y_label);
  const DeviceInfo *d = s->has_device ? &s->device : s->nrecords > 0 ? &s->records[0].device : NULL;
  char date[16] = "";
  Util_strlcpy(date, s->created, 11); /* YYYY-MM-DD */
  snprintf(c->subtitle, sizeof c->subtitle, "%s%s%s", d && d->name[0] ? d->name : "unknown device",
           date[0] ? ", " : "", date);
  if (kind == CHART_ROOFLINE) Chart_roofline(c, in);
  else if (kind == CHART_SWEEP) Chart_sweep(c, in);
  else Chart_tune(c, in);
  if (c->plotted == 0 && !c->note[0])
    snprintf(c->note, sizeof c->note, "nothing to plot: no record here has the values (%d left out)",
             c->skipped);
  for (int i = 0; i < c->nseries; i++)
    for (int k = 0; k < c->series[i].npoints; k++)
      if (c->series[i].points[k].flags & CHART_PT_CURSOR) c->cursor = c->series[i].points[k].record;
  Chart_fitAxes(c);
}
