/* The chart view: the records the results table shows (its filter and order) as a roofline,
 * a sweep or a tune chart (sessions/chart.h), laid out on cells (sessions/chart_grid.h) and
 * painted in the theme's colours. The results cursor stays live here: moving it moves the
 * highlighted point, and the line under the chart names its record. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "sessions/chart.h"
#include "sessions/chart_grid.h"
#include "sessions/knob_label.h"
#include "tui/tui.h"

static void ViewChart_open(App *a, int ch) {
  (void)ch;
  if (a->results.norder == 0) {
    App_message(a, true, "no records on screen to chart (run some, or clear the filter)");
    return;
  }
  View_show(a, &View_chart);
}

static ThemeElem ViewChart_seriesElem(int series) {
  static const ThemeElem elems[] = {TH_PASS, TH_MARKED, TH_TITLE_FOCUS, TH_WORSE, TH_BETTER,
                                    TH_HEADER_SORT, TH_NORMAL};
  return elems[(series < 0 ? 0 : series) % (int)(sizeof elems / sizeof elems[0])];
}

static attr_t ViewChart_attr(const ChartCell *cell) {
  switch (cell->role) {
  case CELL_TITLE: return Theme_attr(TH_TITLE);
  case CELL_AXIS: return Theme_attr(TH_BORDER);
  case CELL_TICK: case CELL_NOTE: return Theme_attr(TH_DIM);
  case CELL_CEILING: return Theme_attr(TH_ACCENT);
  case CELL_CURSOR: return Theme_attr(TH_CURSOR);
  case CELL_POINT: case CELL_LINE: case CELL_LABEL: case CELL_LEGEND:
    return cell->series >= 0 ? Theme_attr(ViewChart_seriesElem(cell->series)) : Theme_attr(TH_NORMAL);
  default: return Theme_attr(TH_NORMAL);
  }
}

/* The chart's input: the records in display order, the cursor's and the marks. */
static void ViewChart_input(App *a, ChartInput *in) {
  const ResultsView *rv = &a->results;
  memset(in, 0, sizeof *in);
  in->session = &a->session;
  in->records = rv->order;
  in->nrecords = rv->norder;
  in->cursor = rv->norder > 0 && rv->cur.sel < rv->norder ? rv->order[rv->cur.sel] : -1;
  in->marked = rv->marked_cap >= a->session.nrecords ? rv->marked : NULL;
  in->x_axis = a->chart.axis[0] ? a->chart.axis : NULL;
}

/* The line under the chart: the cursor's record and where it sits, or why it is not drawn. */
static void ViewChart_cursorLine(App *a, const Chart *c, char *buf, size_t size) {
  const ResultsView *rv = &a->results;
  if (rv->norder == 0 || rv->cur.sel >= rv->norder) {
    snprintf(buf, size, "no record under the cursor");
    return;
  }
  const Record *r = &a->session.records[rv->order[rv->cur.sel]];
  char knobs[RECORD_KNOBS_MAX], shape[64], xs[32] = "n/a", ys[32] = "n/a";
  KnobLabel_compact(r->variant, r->knobs, knobs, sizeof knobs);
  Shape_format(&r->shape, shape, sizeof shape);
  const ChartPoint *pt = NULL;
  for (int i = 0; i < c->nseries && !pt; i++)
    for (int k = 0; k < c->series[i].npoints; k++)
      if (c->series[i].points[k].flags & CHART_PT_CURSOR) pt = &c->series[i].points[k];
  if (pt) {
    snprintf(xs, sizeof xs, "%.4g", pt->x);
    snprintf(ys, sizeof ys, "%.4g", pt->y);
  }
  snprintf(buf, size, "@ %s%s%s %s  x %s  y %s%s", r->variant, knobs[0] ? " " : "", knobs, shape,
           xs, ys, pt ? "" : "  (not on this chart: n/a values)");
}

static void ViewChart_paint(WINDOW *w, const ChartGrid *g, int top) {
  for (int y = 0; y < g->rows; y++)
    for (int x = 0; x < g->cols; x++) {
      const ChartCell *cell = &g->cells[(size_t)y * (size_t)g->cols + (size_t)x];
      if (cell->ch == ' ' && cell->role == CELL_BLANK) continue;
      wattrset(w, ViewChart_attr(cell));
      char utf8[5];
      ChartGrid_utf8(cell->ch, utf8);
      mvwaddstr(w, top + y, x, utf8);
    }
}

static void ViewChart_draw(App *a, unsigned dirty) {
  (void)dirty;
  WINDOW *w = a->w_body;
  werase(w);
  int h = getmaxy(w), width = getmaxx(w);
  ChartInput in;
  ViewChart_input(a, &in);
  Chart c;
  Chart_build(&c, (ChartKind)a->chart.kind, &in);
  ChartGrid g;
  char err[160], line[RECORD_KNOBS_MAX + 200];
  wattrset(w, Theme_attr(TH_NORMAL));
  if (!ChartGrid_render(&c, width, h - 1, a->ascii, &g, err, sizeof err)) {
    /* Too small for axes and a legend: one line, not a broken chart. */
    Draw_clip(w, 0, 0, width, err);
  } else {
    ViewChart_paint(w, &g, 0);
    ChartGrid_free(&g);
    ViewChart_cursorLine(a, &c, line, sizeof line);
    wattrset(w, Theme_attr(TH_CURSOR));
    Draw_text(w, h - 1, 0, width, true, line);
  }
  wattrset(w, Theme_attr(TH_NORMAL));
  Chart_free(&c);
  wnoutrefresh(w);
}

static void ViewChart_kind(App *a, int ch) {
  if (ch >= '1' && ch <= '3') a->chart.kind = ch - '1';
  else a->chart.kind = (a->chart.kind + (ch == KEY_BTAB ? CHART_KIND_COUNT - 1 : 1)) % CHART_KIND_COUNT;
  App_message(a, false, "%s chart", Chart_kindName((ChartKind)a->chart.kind));
  a->dirty |= DIRTY_BODY;
}

/* a / A: the sweep's next or previous axis among those the records offer. */
static void ViewChart_axis(App *a, int ch) {
  ChartInput in;
  ViewChart_input(a, &in);
  char axes[CHART_AXES_MAX][CHART_AXIS_NAME];
  int n = Chart_sweepAxes(&in, axes, CHART_AXES_MAX), at = 0;
  if (n == 0) return;
  while (a->chart.axis[0] && at < n && strcmp(axes[at], a->chart.axis) != 0) at++;
  if (at == n) at = 0; /* "" or gone: the first is the one drawn */
  at = (at + (ch == 'A' ? n - 1 : 1)) % n;
  Util_strlcpy(a->chart.axis, axes[at], sizeof a->chart.axis);
  a->chart.kind = CHART_SWEEP;
  App_message(a, false, "sweep against %s", a->chart.axis);
  a->dirty |= DIRTY_BODY;
}

static void ViewChart_move(App *a, int ch) {
  ResultsView *rv = &a->results;
  int delta = ch == KEY_UP || ch == 'k' ? -1 : ch == KEY_DOWN || ch == 'j' ? 1
              : ch == KEY_PPAGE ? -10 : ch == KEY_NPAGE ? 10 : ch == KEY_HOME ? -rv->norder
                                                                                : rv->norder;
  ListCursor_move(&rv->cur, rv->norder, delta);
  a->dirty |= DIRTY_BODY | DIRTY_RESULTS;
}

static void ViewChart_detail(App *a, int ch) {
  (void)ch;
  if (a->results.norder > 0) ViewDetail_open(a, &View_chart);
}

static void ViewChart_close(App *a, int ch) {
  (void)ch;
  View_show(a, &View_main);
}

static const KeyBinding ViewChart_bindings[] = {
  {{KEY_UP, KEY_DOWN, 'k', 'j'}, "Up Down / k j", "j/k record", "move the results cursor (the "
   "highlighted point)", ViewChart_move},
  {{KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END}, "PgUp PgDn Home End", NULL, "move the cursor further",
   ViewChart_move},
  {{'\t', KEY_BTAB}, "Tab / S-Tab", "Tab chart", "next / previous chart: roofline, sweep, tune",
   ViewChart_kind},
  {{'1', '2', '3'}, "1 2 3", NULL, "roofline, sweep, tune", ViewChart_kind},
  {{'a', 'A'}, "a A", "a axis", "sweep: next / previous x axis (S, B, H, D, B*H, the knobs)",
   ViewChart_axis},
  {{'\n', KEY_ENTER}, "Enter", "Enter detail", "detail of the cursor's record", ViewChart_detail},
  {{27, 'q', 'p'}, "Esc / q / p", "Esc back", "back to the main view", ViewChart_close},
};
static const KeyTable ViewChart_keys = KEY_TABLE("Chart", ViewChart_bindings);

const View View_chart = {
  .name = "chart", .layer = VIEW_SCREEN, .open_keys = {'p'}, .open_label = "p",
  .open_bar = "p plot",
  .help = "chart the records on screen: roofline, sweep, tune (docs/charts.md)",
  .open = ViewChart_open, .keys = &ViewChart_keys, .draw = ViewChart_draw,
  .region = DIRTY_BODY | DIRTY_RESULTS | DIRTY_SIDE,
};
