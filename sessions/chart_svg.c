/* A chart as a standalone SVG document (chart.h): title with device and date, axes with ticks
 * and grid lines, ceilings dashed and named, points in a colour and marker per series, the
 * legend under the plot. Text from the session is escaped for XML. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "sessions/chart.h"
#include "sessions/chart_grid.h"

#define SVG_W 960
#define SVG_LEFT 84
#define SVG_RIGHT 36
#define SVG_TOP 64
#define SVG_PLOT_H 420
#define SVG_LEGEND_LINE 18

typedef struct Svg {
  char *buf;
  size_t len, cap;
} Svg;

static void Svg_add(Svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void Svg_add(Svg *s, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < s->cap - s->len) {
      s->len += (size_t)n;
      return;
    }
    s->cap = (s->cap + (size_t)n + 1) * 2;
    s->buf = Util_xrealloc(s->buf, s->cap);
  }
}

/* Text for an XML text node or attribute: & < > " ' escaped, control bytes dropped. */
static void Svg_text(Svg *s, const char *text) {
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    switch (*p) {
    case '&': Svg_add(s, "&amp;"); break;
    case '<': Svg_add(s, "&lt;"); break;
    case '>': Svg_add(s, "&gt;"); break;
    case '"': Svg_add(s, "&quot;"); break;
    case '\'': Svg_add(s, "&apos;"); break;
    default:
      if (*p >= 32 && *p != 127) Svg_add(s, "%c", *p);
    }
  }
}

static const char *Svg_colour(int i) {
  static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                        "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
  return palette[i % (int)(sizeof palette / sizeof palette[0])];
}

typedef struct SvgPlot {
  const Chart *c;
  double x0, y0, w, h;
} SvgPlot;

static bool Svg_xy(const SvgPlot *p, double x, double y, double *sx, double *sy) {
  double px = Chart_position(&p->c->x, x), py = Chart_position(&p->c->y, y);
  if (isnan(px) || isnan(py)) return false;
  *sx = p->x0 + px * p->w;
  *sy = p->y0 + (1 - py) * p->h;
  return true;
}

static void Svg_axes(Svg *s, const SvgPlot *p) {
  const Chart *c = p->c;
  double ticks[CHART_TICKS_MAX];
  char label[32];
  Svg_add(s, "<g font-size=\"12\" fill=\"#333\">\n");
  int n = Chart_ticks(&c->x, ticks, CHART_TICKS_MAX);
  for (int i = 0; i < n; i++) {
    double x = p->x0 + Chart_position(&c->x, ticks[i]) * p->w;
    Chart_tickLabel(ticks[i], label, sizeof label);
    Svg_add(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", x, p->y0, x, p->y0 + p->h);
    Svg_add(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, p->y0 + p->h + 18, label);
  }
  n = Chart_ticks(&c->y, ticks, CHART_TICKS_MAX);
  for (int i = 0; i < n; i++) {
    double y = p->y0 + (1 - Chart_position(&c->y, ticks[i])) * p->h;
    Chart_tickLabel(ticks[i], label, sizeof label);
    Svg_add(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", p->x0, y, p->x0 + p->w, y);
    Svg_add(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", p->x0 - 6, y + 4, label);
  }
  Svg_add(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
          p->x0, p->y0, p->w, p->h);
  Svg_add(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\">", p->x0 + p->w / 2, p->y0 + p->h + 38);
  Svg_text(s, c->x.label);
  Svg_add(s, "%s</text>\n", c->x.log ? " (log)" : "");
  Svg_add(s, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">",
          p->y0 + p->h / 2);
  Svg_text(s, c->y.label);
  Svg_add(s, "%s</text>\n</g>\n", c->y.log ? " (log)" : "");
}

static void Svg_series(Svg *s, const SvgPlot *p, int i) {
  const ChartSeries *se = &p->c->series[i];
  double x, y;
  if (se->style != SERIES_POINTS && se->npoints > 1) {
    Svg_add(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s points=\"",
            se->style == SERIES_CEILING ? "#555" : Svg_colour(i), se->style == SERIES_CEILING ? "1.5" : "1.8",
            se->style == SERIES_CEILING ? " stroke-dasharray=\"6 4\"" : "");
    for (int k = 0; k < se->npoints; k++)
      if (Svg_xy(p, se->points[k].x, se->points[k].y, &x, &y)) Svg_add(s, "%.1f,%.1f ", x, y);
    Svg_add(s, "\"/>\n");
  }
  if (se->style == SERIES_CEILING) {
    const ChartPoint *end = &se->points[se->npoints - 1];
    if (se->npoints > 0 && Svg_xy(p, end->x, end->y, &x, &y)) {
      Svg_add(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" fill=\"#555\">",
              x - 4, y < p->y0 + 14 ? y + 14 : y - 5);
      Svg_text(s, se->name);
      Svg_add(s, "</text>\n");
    }
    return;
  }
  for (int k = 0; k < se->npoints; k++) {
    const ChartPoint *pt = &se->points[k];
    if (!Svg_xy(p, pt->x, pt->y, &x, &y)) continue;
    /* A tune's winner and tied set are marked on their own series (SERIES_POINTS), not again
     * on the best-so-far line. */
    unsigned flags = se->style == SERIES_POINTS ? pt->flags : pt->flags & ~(unsigned)(CHART_PT_WINNER | CHART_PT_TIED);
    bool big = flags & (CHART_PT_CURSOR | CHART_PT_WINNER);
    Svg_add(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"%s><title>", x, y, big ? "6" : "3.5",
            flags & CHART_PT_TIED ? "none" : Svg_colour(i),
            big ? " stroke=\"#000\" stroke-width=\"1.5\"" : flags & CHART_PT_TIED ? " stroke=\"#d62728\" stroke-width=\"2\"" : "");
    Svg_text(s, se->name);
    Svg_add(s, ": %g, %g</title></circle>\n", pt->x, pt->y);
    if (flags & (CHART_PT_WINNER | CHART_PT_TIED | CHART_PT_MARKED | CHART_PT_CURSOR)) {
      Svg_add(s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">", x + 8, y - 6, Svg_colour(i));
      if (flags & (CHART_PT_WINNER | CHART_PT_TIED)) Svg_add(s, "%s", flags & CHART_PT_WINNER ? "winner" : "tied");
      else Svg_text(s, se->name);
      Svg_add(s, "</text>\n");
    }
  }
}

char *Chart_svg(const Chart *c, size_t *len_out) {
  Svg s = {Util_xmalloc(4096), 0, 4096};
  s.buf[0] = 0;
  int legend_lines = c->nseries + (c->note[0] || c->skipped ? 1 : 0);
  int height = SVG_TOP + SVG_PLOT_H + 60 + legend_lines * SVG_LEGEND_LINE + 12;
  SvgPlot p = {c, SVG_LEFT, SVG_TOP, SVG_W - SVG_LEFT - SVG_RIGHT, SVG_PLOT_H};
  Svg_add(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
          "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
          SVG_W, height, SVG_W, height);
  Svg_add(&s, "<title>");
  Svg_text(&s, c->title);
  Svg_add(&s, " - ");
  Svg_text(&s, c->subtitle);
  Svg_add(&s, "</title>\n<text x=\"%d\" y=\"28\" font-size=\"18\" font-weight=\"bold\">", SVG_LEFT);
  Svg_text(&s, c->title);
  Svg_add(&s, "</text>\n<text x=\"%d\" y=\"48\" font-size=\"13\" fill=\"#555\">", SVG_LEFT);
  Svg_text(&s, c->subtitle);
  Svg_add(&s, "</text>\n");
  Svg_axes(&s, &p);
  for (int i = 0; i < c->nseries; i++)
    if (c->series[i].style == SERIES_CEILING) Svg_series(&s, &p, i);
  for (int i = 0; i < c->nseries; i++)
    if (c->series[i].style != SERIES_CEILING) Svg_series(&s, &p, i);
  double y = SVG_TOP + SVG_PLOT_H + 62;
  Svg_add(&s, "<g font-size=\"12\">\n");
  for (int i = 0; i < c->nseries; i++, y += SVG_LEGEND_LINE) {
    const ChartSeries *se = &c->series[i];
    if (se->style == SERIES_CEILING)
      Svg_add(&s, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>\n",
              SVG_LEFT, y - 4, SVG_LEFT + 22, y - 4);
    else
      Svg_add(&s, "<circle cx=\"%d\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", SVG_LEFT + 11, y - 4, Svg_colour(i));
    Svg_add(&s, "<text x=\"%d\" y=\"%.1f\">", SVG_LEFT + 30, y);
    Svg_text(&s, se->name);
    if (se->style != SERIES_CEILING) Svg_add(&s, " (%d)", se->npoints);
    Svg_add(&s, "</text>\n");
  }
  if (c->note[0] || c->skipped) {
    Svg_add(&s, "<text x=\"%d\" y=\"%.1f\" fill=\"#555\">", SVG_LEFT, y);
    Svg_text(&s, c->note);
    if (c->skipped) Svg_add(&s, "%s%d records left out (no value here: n/a, failed, or not on this axis)", c->note[0] ? "; " : "", c->skipped);
    Svg_add(&s, "</text>\n");
  }
  Svg_add(&s, "</g>\n</svg>\n");
  if (len_out) *len_out = s.len;
  return s.buf;
}
