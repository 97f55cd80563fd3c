/* A chart laid out on a grid of terminal cells (chart.h's data, drawn): the TUI paints the
 * cells in its theme's colours, `benchtop plot -o -` prints them. Lines are braille dots (2x4
 * per cell), or plain ASCII; each series' points have their own marker letter, so the chart
 * reads without colour too. */
#ifndef BENCHTOP_CHART_GRID_H
#define BENCHTOP_CHART_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sessions/chart.h"

#define CHART_MIN_COLS 40
#define CHART_MIN_ROWS 10

typedef enum {
  CELL_BLANK, CELL_TITLE, CELL_AXIS, CELL_TICK, CELL_LEGEND, CELL_NOTE, CELL_CEILING,
  CELL_LINE, CELL_POINT, CELL_LABEL, CELL_CURSOR,
} ChartCellRole;

typedef struct ChartCell {
  uint32_t ch;        /* a code point (ASCII, a braille pattern or a box-drawing line) */
  short series;       /* which series drew it, -1 none */
  unsigned char role; /* ChartCellRole */
} ChartCell;

typedef struct ChartGrid {
  int cols, rows;
  ChartCell *cells;   /* rows x cols */
  int plot_x, plot_y, plot_w, plot_h; /* the plotting area, in cells */
} ChartGrid;

/* Lays c out in cols x rows; false with one line in err when that is too small for a chart. */
bool ChartGrid_render(const Chart *c, int cols, int rows, bool ascii, ChartGrid *g, char *err,
                      size_t errsize);
void ChartGrid_free(ChartGrid *g);
/* The grid as UTF-8 lines (trailing blanks cut), on the heap. */
char *ChartGrid_text(const ChartGrid *g);
/* A code point as UTF-8 in out (NUL-terminated); returns its length. */
int ChartGrid_utf8(uint32_t ch, char out[5]);
/* The marker letter of series i (points), the same in the TUI, text and SVG legends. */
char Chart_marker(int series);

#endif
