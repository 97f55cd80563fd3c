/* Charts on a grid of cells (chart_grid.h): title, axes with ticks, the plot (braille or ASCII
 * lines, marker letters for points), labels of ceilings and marked points, a legend. */
#include "sessions/chart_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define BRAILLE 0x2800u

char Chart_marker(int series) {
  static const char markers[] = "ox+#%&$s=^~v";
  return markers[(series < 0 ? 0 : series) % (int)(sizeof markers - 1)];
}

static ChartCell *Grid_at(ChartGrid *g, int x, int y) {
  if (x < 0 || y < 0 || x >= g->cols || y >= g->rows) return NULL;
  return &g->cells[(size_t)y * (size_t)g->cols + (size_t)x];
}

static void Grid_put(ChartGrid *g, int x, int y, uint32_t ch, int series, ChartCellRole role) {
  ChartCell *c = Grid_at(g, x, y);
  if (c) *c = (ChartCell){ch, (short)series, (unsigned char)role};
}

/* Text from (x, y), cut at max_x; bytes outside printable ASCII become '?' (names come from
 * files). */
static void Grid_text(ChartGrid *g, int x, int y, int max_x, const char *text, int series,
                      ChartCellRole role) {
  for (const unsigned char *p = (const unsigned char *)text; *p && x < max_x; p++, x++)
    Grid_put(g, x, y, *p >= 32 && *p < 127 ? *p : '?', series, role);
}

/* The plotting area's cell of a value pair, in dots (2x4 per cell, 1x1 in ASCII); false when
 * outside. */
static bool Grid_dot(const ChartGrid *g, const Chart *c, double x, double y, int sx, int sy,
                     double *dx, double *dy) {
  double px = Chart_position(&c->x, x), py = Chart_position(&c->y, y);
  if (isnan(px) || isnan(py)) return false;
  *dx = px * (g->plot_w * sx - 1);
  *dy = (1 - py) * (g->plot_h * sy - 1);
  return true;
}

static void Grid_setDot(ChartGrid *g, int dx, int dy, int sx, int sy, int series, bool ascii,
                        ChartCellRole role, uint32_t ascii_ch) {
  if (dx < 0 || dy < 0 || dx >= g->plot_w * sx || dy >= g->plot_h * sy) return;
  ChartCell *cell = Grid_at(g, g->plot_x + dx / sx, g->plot_y + dy / sy);
  if (!cell || cell->role == CELL_POINT || cell->role == CELL_CURSOR || cell->role == CELL_LABEL)
    return;
  if (ascii) {
    *cell = (ChartCell){ascii_ch, (short)series, (unsigned char)role};
    return;
  }
  static const unsigned bits[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
  uint32_t old = cell->ch >= BRAILLE && cell->ch < BRAILLE + 256 ? cell->ch - BRAILLE : 0;
  *cell = (ChartCell){BRAILLE + (old | bits[dx % 2][dy % 4]), (short)series, (unsigned char)role};
}

/* A segment between two values, dot by dot (clipped to the plot). */
static void Grid_segment(ChartGrid *g, const Chart *c, const ChartPoint *a, const ChartPoint *b,
                         int series, bool ascii, ChartCellRole role) {
  int sx = ascii ? 1 : 2, sy = ascii ? 1 : 4;
  double x0, y0, x1, y1;
  if (!Grid_dot(g, c, a->x, a->y, sx, sy, &x0, &y0) || !Grid_dot(g, c, b->x, b->y, sx, sy, &x1, &y1))
    return;
  double steps = fmax(fabs(x1 - x0), fabs(y1 - y0));
  if (steps > 4096) steps = 4096;
  double slope = fabs(x1 - x0) > 0 ? (y1 - y0) / (x1 - x0) : INFINITY;
  uint32_t ch = role == CELL_LINE ? '.' : fabs(slope) < 0.5 ? '-' : fabs(slope) > 2 ? '|'
                : slope < 0 ? '/' : '\\';
  for (int i = 0; i <= (int)steps; i++) {
    double t = steps > 0 ? i / steps : 0;
    Grid_setDot(g, (int)lround(x0 + (x1 - x0) * t), (int)lround(y0 + (y1 - y0) * t), sx, sy,
                series, ascii, role, ch);
  }
}

/* Axes, ticks and their labels around the plotting area. */
static void Grid_axes(ChartGrid *g, const Chart *c, bool ascii) {
  int ax = g->plot_x - 1, ay = g->plot_y + g->plot_h;
  int sx = ascii ? 1 : 2, sy = ascii ? 1 : 4; /* ticks in the cells the dots fall in */
  for (int y = g->plot_y; y < ay; y++) Grid_put(g, ax, y, ascii ? '|' : 0x2502, -1, CELL_AXIS);
  for (int x = g->plot_x; x < g->cols; x++) Grid_put(g, x, ay, ascii ? '-' : 0x2500, -1, CELL_AXIS);
  Grid_put(g, ax, ay, ascii ? '+' : 0x2514, -1, CELL_AXIS);
  double ticks[CHART_TICKS_MAX];
  char label[32];
  int n = Chart_ticks(&c->y, ticks, CHART_TICKS_MAX), last_y = -2;
  for (int i = n - 1; i >= 0; i--) {
    int y = g->plot_y + (int)lround((1 - Chart_position(&c->y, ticks[i])) * (g->plot_h * sy - 1)) / sy;
    if (y < g->plot_y || y >= ay || y == last_y) continue;
    last_y = y;
    Grid_put(g, ax, y, ascii ? '+' : 0x2524, -1, CELL_AXIS);
    Chart_tickLabel(ticks[i], label, sizeof label);
    int len = (int)strlen(label);
    Grid_text(g, ax - len > 0 ? ax - len : 0, y, ax, label, -1, CELL_TICK);
  }
  n = Chart_ticks(&c->x, ticks, CHART_TICKS_MAX);
  int free_x = 0;
  for (int i = 0; i < n; i++) {
    int x = g->plot_x + (int)lround(Chart_position(&c->x, ticks[i]) * (g->plot_w * sx - 1)) / sx;
    if (x < g->plot_x || x >= g->cols) continue;
    Grid_put(g, x, ay, ascii ? '+' : 0x252c, -1, CELL_AXIS);
    Chart_tickLabel(ticks[i], label, sizeof label);
    int len = (int)strlen(label), lx = x - len / 2;
    if (lx < free_x || lx + len > g->cols) continue; /* would overlap its neighbour */
    Grid_text(g, lx, ay + 1, g->cols, label, -1, CELL_TICK);
    free_x = lx + len + 1;
  }
  char axes[256];
  snprintf(axes, sizeof axes, "x: %s%s   y: %s%s", c->x.label, c->x.log ? " (log)" : "",
           c->y.label, c->y.log ? " (log)" : "");
  Grid_text(g, g->plot_x, ay + 2, g->cols, axes, -1, CELL_TICK);
}

/* Whether text of len cells fits at (x, y) inside the plot over nothing but blanks. */
static bool Grid_free(ChartGrid *g, int x, int y, int len) {
  if (y < g->plot_y || y >= g->plot_y + g->plot_h || x < g->plot_x || x + len > g->cols) return false;
  for (int i = 0; i < len; i++) {
    const ChartCell *cell = Grid_at(g, x + i, y);
    if (!cell || cell->role != CELL_BLANK) return false;
  }
  return true;
}

/* A ceiling's name beside it, so it reads without colour: a flat one's above (else below) its
 * right end, a sloped one's under its middle. Left out where there is no room. */
static void Grid_ceilingLabel(ChartGrid *g, const Chart *c, const ChartSeries *s, int series,
                              bool ascii) {
  if (s->npoints < 2) return;
  const ChartPoint *a = &s->points[0], *b = &s->points[s->npoints - 1];
  int sx = ascii ? 1 : 2, sy = ascii ? 1 : 4;
  double ax, ay, bx, by;
  if (!Grid_dot(g, c, a->x, a->y, sx, sy, &ax, &ay) || !Grid_dot(g, c, b->x, b->y, sx, sy, &bx, &by))
    return;
  /* In cells, as the line's dots fell. */
  ax = (double)(lround(ax) / sx);
  bx = (double)(lround(bx) / sx);
  ay = (double)(lround(ay) / sy);
  by = (double)(lround(by) / sy);
  int len = (int)strlen(s->name);
  if (len > g->plot_w) len = g->plot_w;
  bool flat = lround(ay) == lround(by);
  int x = flat ? g->plot_x + (int)lround(bx) - len + 1 : g->plot_x + (int)lround((ax + bx) / 2);
  int y = g->plot_y + (int)lround(flat ? by : (ay + by) / 2);
  if (x + len > g->cols) x = g->cols - len;
  if (x < g->plot_x) x = g->plot_x;
  /* Above or below; a sloped line's also shifted left (its lower part), where it is free. */
  const int tries[4][2] = {{x, flat ? y - 1 : y + 1}, {x, flat ? y + 1 : y + 2},
                           {flat ? x : x - len / 2, y + 1}, {flat ? x : x - len / 2, y + 2}};
  for (int t = 0; t < 4; t++)
    if (Grid_free(g, tries[t][0], tries[t][1], len)) {
      Grid_text(g, tries[t][0], tries[t][1], tries[t][0] + len, s->name, series, CELL_CEILING);
      return;
    }
}

static void Grid_points(ChartGrid *g, const Chart *c, int si, bool marks_only, bool ascii) {
  int sx = ascii ? 1 : 2, sy = ascii ? 1 : 4;
  const ChartSeries *s = &c->series[si];
  if (s->style == SERIES_CEILING) return;
  for (int k = 0; k < s->npoints; k++) {
    const ChartPoint *p = &s->points[k];
    bool mark = p->flags & (CHART_PT_CURSOR | CHART_PT_MARKED | CHART_PT_WINNER);
    if (marks_only != mark) continue;
    double dx, dy;
    /* The cell of the dot its line passes through. */
    if (!Grid_dot(g, c, p->x, p->y, sx, sy, &dx, &dy)) continue;
    int x = g->plot_x + (int)lround(dx) / sx, y = g->plot_y + (int)lround(dy) / sy;
    char ch = p->flags & CHART_PT_CURSOR ? '@' : p->flags & CHART_PT_WINNER ? 'W'
              : p->flags & CHART_PT_TIED ? 'T' : Chart_marker(si);
    Grid_put(g, x, y, (uint32_t)ch, si, p->flags & CHART_PT_CURSOR ? CELL_CURSOR : CELL_POINT);
    if (p->flags & (CHART_PT_MARKED | CHART_PT_CURSOR)) {
      char label[48];
      snprintf(label, sizeof label, "%.24s", s->name);
      int len = (int)strlen(label), lx = x + 2 + len <= g->cols ? x + 2 : x - 1 - len;
      for (int i = 0; i < len; i++) {
        ChartCell *cell = Grid_at(g, lx + i, y);
        if (cell && (cell->role == CELL_POINT || cell->role == CELL_CURSOR)) return;
      }
      if (lx >= g->plot_x) Grid_text(g, lx, y, g->cols, label, si, CELL_LABEL);
    }
  }
}

/* The legend's entries packed into lines: "o name" for points, "- name" for ceilings. Returns
 * the lines it needs (drawn only when draw). */
static int Grid_legend(ChartGrid *g, const Chart *c, int y0, int max_lines, bool draw) {
  int x = 0, line = 0;
  for (int i = 0; i < c->nseries && line < max_lines; i++) {
    const ChartSeries *s = &c->series[i];
    char entry[200];
    if (s->style == SERIES_CEILING) snprintf(entry, sizeof entry, "- %s", s->name);
    else snprintf(entry, sizeof entry, "%c %s (%d)", Chart_marker(i), s->name, s->npoints);
    int len = (int)strlen(entry);
    if (len > g->cols) len = g->cols;
    if (x > 0 && x + len > g->cols) {
      x = 0;
      line++;
      if (line >= max_lines) break;
    }
    if (draw) {
      int remaining = c->nseries - i - 1;
      if (line == max_lines - 1 && remaining > 0 && x + len + 12 > g->cols && x > 0) {
        char more[32];
        snprintf(more, sizeof more, "+%d more", remaining + 1);
        Grid_text(g, x, y0 + line, g->cols, more, -1, CELL_LEGEND);
        return line + 1;
      }
      Grid_text(g, x, y0 + line, x + len, entry, i, CELL_LEGEND);
    }
    x += len + 3;
  }
  return c->nseries > 0 ? line + 1 : 0;
}

bool ChartGrid_render(const Chart *c, int cols, int rows, bool ascii, ChartGrid *g, char *err,
                      size_t errsize) {
  memset(g, 0, sizeof *g);
  if (cols < CHART_MIN_COLS || rows < CHART_MIN_ROWS) {
    snprintf(err, errsize, "the chart needs %dx%d; this is %dx%d", CHART_MIN_COLS,
             CHART_MIN_ROWS, cols, rows);
    return false;
  }
  g->cols = cols;
  g->rows = rows;
  g->cells = Util_xcalloc((size_t)cols * (size_t)rows, sizeof *g->cells);
  for (int i = 0; i < cols * rows; i++) g->cells[i] = (ChartCell){' ', -1, CELL_BLANK};
  char title[400];
  snprintf(title, sizeof title, "%s - %s", c->title, c->subtitle);
  Grid_text(g, 0, 0, cols, title, -1, CELL_TITLE);
  int legend = Grid_legend(g, c, 0, rows / 4 > 0 ? rows / 4 : 1, false);
  if (legend > rows / 4) legend = rows / 4;
  int note = c->note[0] || c->skipped ? 1 : 0;
  /* The y tick labels' width. */
  double ticks[CHART_TICKS_MAX];
  char label[32];
  int lw = 1;
  for (int i = 0, n = Chart_ticks(&c->y, ticks, CHART_TICKS_MAX); i < n; i++) {
    Chart_tickLabel(ticks[i], label, sizeof label);
    if ((int)strlen(label) > lw) lw = (int)strlen(label);
  }
  g->plot_x = lw + 1;
  g->plot_y = 1;
  g->plot_w = cols - g->plot_x;
  g->plot_h = rows - 1 - 3 - legend - note;
  if (g->plot_h < 4) {
    snprintf(err, errsize, "the chart needs more rows than %d", rows);
    ChartGrid_free(g);
    return false;
  }
  Grid_axes(g, c, ascii);
  for (int i = 0; i < c->nseries; i++) {
    const ChartSeries *s = &c->series[i];
    if (s->style == SERIES_POINTS) continue;
    for (int k = 0; k + 1 < s->npoints; k++)
      Grid_segment(g, c, &s->points[k], &s->points[k + 1], i, ascii,
                   s->style == SERIES_CEILING ? CELL_CEILING : CELL_LINE);
  }
  for (int i = 0; i < c->nseries; i++) Grid_points(g, c, i, false, ascii);
  for (int i = 0; i < c->nseries; i++) Grid_points(g, c, i, true, ascii); /* on top */
  for (int i = 0; i < c->nseries; i++)
    if (c->series[i].style == SERIES_CEILING) Grid_ceilingLabel(g, c, &c->series[i], i, ascii);
  int y = g->plot_y + g->plot_h + 3;
  if (note) {
    char text[300];
    snprintf(text, sizeof text, "%s%s%d record%s left out (no value here: n/a, failed, or not on this axis)", c->note,
             c->note[0] && c->skipped ? "; " : "", c->skipped, c->skipped == 1 ? "" : "s");
    if (!c->skipped) snprintf(text, sizeof text, "%s", c->note);
    Grid_text(g, 0, y++, cols, text, -1, CELL_NOTE);
  }
  Grid_legend(g, c, y, legend, true);
  return true;
}

void ChartGrid_free(ChartGrid *g) {
  free(g->cells);
  memset(g, 0, sizeof *g);
}

int ChartGrid_utf8(uint32_t ch, char out[5]) {
  int n;
  if (ch < 0x80) {
    out[0] = (char)ch;
    n = 1;
  } else if (ch < 0x800) {
    out[0] = (char)(0xc0 | (ch >> 6));
    out[1] = (char)(0x80 | (ch & 0x3f));
    n = 2;
  } else {
    out[0] = (char)(0xe0 | (ch >> 12));
    out[1] = (char)(0x80 | ((ch >> 6) & 0x3f));
    out[2] = (char)(0x80 | (ch & 0x3f));
    n = 3;
  }
  out[n] = 0;
  return n;
}

char *ChartGrid_text(const ChartGrid *g) {
  size_t cap = (size_t)g->rows * ((size_t)g->cols * 3 + 1) + 1, len = 0;
  char *out = Util_xmalloc(cap);
  for (int y = 0; y < g->rows; y++) {
    size_t line_start = len, keep = len;
    for (int x = 0; x < g->cols; x++) {
      uint32_t ch = g->cells[(size_t)y * (size_t)g->cols + (size_t)x].ch;
      len += (size_t)ChartGrid_utf8(ch, out + len);
      if (ch != ' ') keep = len;
    }
    (void)line_start;
    len = keep;
    out[len++] = '\n';
  }
  out[len] = 0;
  return out;
}
