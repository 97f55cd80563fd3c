/* The chart's axes (chart.h): ranges that hold every point, log or linear, and their ticks. */
#include <math.h>
#include <stdio.h>

#include "sessions/chart.h"

/* The smallest and largest of the points' x (or y) values, positive ones only when positive. */
static bool Chart_extent(const Chart *c, bool y, bool positive, double *lo, double *hi) {
  *lo = INFINITY;
  *hi = -INFINITY;
  for (int i = 0; i < c->nseries; i++)
    for (int k = 0; k < c->series[i].npoints; k++) {
      double v = y ? c->series[i].points[k].y : c->series[i].points[k].x;
      if (!isfinite(v) || (positive && v <= 0)) continue;
      if (v < *lo) *lo = v;
      if (v > *hi) *hi = v;
    }
  return *lo <= *hi;
}

static void Chart_fitAxis(const Chart *c, ChartAxis *a, bool y, bool auto_log) {
  double lo, hi;
  if (auto_log) {
    double plo, phi;
    bool all_positive = Chart_extent(c, y, false, &lo, &hi) && lo > 0;
    a->log = all_positive && Chart_extent(c, y, true, &plo, &phi) && phi / plo >= (y ? 20 : 8);
  }
  if (!Chart_extent(c, y, a->log, &lo, &hi)) {
    a->lo = a->log ? 1 : 0;
    a->hi = a->log ? 10 : 1;
    return;
  }
  if (a->log) {
    a->lo = lo / 1.3;
    a->hi = hi * 1.3;
    return;
  }
  double pad = (hi - lo) * 0.06;
  if (pad == 0) pad = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1;
  a->lo = lo - pad;
  a->hi = hi + pad;
  /* A quantity that cannot go below zero starts at zero when that is close. */
  if (lo >= 0 && a->lo < 0) a->lo = 0;
  if (lo >= 0 && lo < (hi - lo) * 0.5) a->lo = 0;
}

void Chart_fitAxes(Chart *c) {
  bool auto_log = c->kind != CHART_ROOFLINE;
  /* A sweep's x is log only on a shape axis (set by its builder), and only with range. */
  Chart_fitAxis(c, &c->x, false, c->kind == CHART_SWEEP && c->x.log);
  Chart_fitAxis(c, &c->y, true, auto_log);
  if (c->kind != CHART_ROOFLINE) return;
  /* Room above the ceilings for their names; each ceiling drawn across the whole axis: the
   * copy roof from the left edge (y = bandwidth x intensity), the flat ones to the right. */
  if (c->y.log) c->y.hi *= 2.5;
  for (int i = 0; i < c->nseries; i++) {
    ChartSeries *s = &c->series[i];
    if (s->style != SERIES_CEILING || s->npoints < 2) continue;
    ChartPoint *first = &s->points[0], *last = &s->points[s->npoints - 1];
    if (first->y != last->y && first->x > 0) {
      double slope = first->y / first->x;
      first->x = c->x.lo;
      first->y = c->x.lo * slope;
    } else {
      last->x = c->x.hi;
    }
  }
}

double Chart_position(const ChartAxis *a, double v) {
  if (!isfinite(v)) return NAN;
  if (a->log) {
    if (v <= 0 || a->lo <= 0) return NAN;
    return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
  }
  return (v - a->lo) / (a->hi - a->lo);
}

int Chart_ticks(const ChartAxis *a, double *out, int max) {
  int n = 0;
  if (!(a->hi > a->lo)) return 0;
  if (a->log) {
    int d0 = (int)floor(log10(a->lo)), d1 = (int)ceil(log10(a->hi));
    /* Few decades: 1, 2 and 5 of each; many: every decade, or every other. */
    static const double steps[] = {1, 2, 5};
    int nsteps = d1 - d0 <= 2 ? 3 : 1;
    int every = d1 - d0 > 8 ? 2 : 1;
    for (int d = d0; d <= d1 && n < max; d++) {
      if ((d - d0) % every) continue;
      for (int k = 0; k < nsteps && n < max; k++) {
        double v = steps[k] * pow(10, d);
        if (v >= a->lo * 0.999 && v <= a->hi * 1.001) out[n++] = v;
      }
    }
    return n;
  }
  double raw = (a->hi - a->lo) / 5, mag = pow(10, floor(log10(raw))), step = mag;
  if (raw / mag > 5) step = 10 * mag;
  else if (raw / mag > 2) step = 5 * mag;
  else if (raw / mag > 1) step = 2 * mag;
  for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9 && n < max; v += step)
    out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
  return n;
}

void Chart_tickLabel(double v, char *buf, size_t size) {
  static const char *const units[] = {"", "k", "M", "G", "T"};
  double a = fabs(v);
  int u = 0;
  while (a >= 1000 && u < 4) {
    a /= 1000;
    v /= 1000;
    u++;
  }
  if (a == 0) snprintf(buf, size, "0");
  else if (a < 0.01) snprintf(buf, size, "%.0e", v);
  else if (a < 1) snprintf(buf, size, "%.2g", v);
  else snprintf(buf, size, "%.3g%s", v, units[u]);
}
