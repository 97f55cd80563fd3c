/* Charts of a session's records, as data (docs/charts.md): points, series, axes and ceilings,
 * apart from any drawing. The TUI's chart view and `benchtop plot` (text and SVG) draw the same
 * Chart, so a picture on screen and one in a report never disagree.
 *   roofline  achieved TFLOP/s against arithmetic intensity (FLOP per byte of Q, K, V, O), on
 *             log-log axes, under the device's ceilings (measured, else the datasheet's);
 *   sweep     one value (p50 by default) against one axis (S, B, H, D, B*H or a knob), a line
 *             per variant and setting of everything else;
 *   tune      best-so-far p50 against measurements, per variant and shape of a tune. */
#ifndef BENCHTOP_CHART_H
#define BENCHTOP_CHART_H

#include <stdbool.h>
#include <stddef.h>

#include "sessions/session.h"

typedef enum { CHART_ROOFLINE, CHART_SWEEP, CHART_TUNE, CHART_KIND_COUNT } ChartKind;

/* Point flags. */
enum {
  CHART_PT_CURSOR = 1 << 0, /* the record under the caller's cursor */
  CHART_PT_MARKED = 1 << 1, /* marked by the user: labelled */
  CHART_PT_WINNER = 1 << 2, /* a tune's winner */
  CHART_PT_TIED = 1 << 3,   /* tied with the winner */
};

typedef struct ChartPoint {
  double x, y;
  int record;       /* index in the session, -1 for a ceiling's corner */
  unsigned flags;
} ChartPoint;

typedef enum { SERIES_POINTS, SERIES_LINE, SERIES_CEILING } SeriesStyle;

typedef struct ChartSeries {
  char name[160];
  SeriesStyle style; /* points alone, points joined in x order, or a ceiling (no points) */
  int npoints, cap;
  ChartPoint *points;
} ChartSeries;

typedef struct ChartAxis {
  char label[96];
  bool log;
  double lo, hi;    /* the range drawn; lo < hi always (a single value is widened) */
} ChartAxis;

#define CHART_TICKS_MAX 16
#define CHART_AXES_MAX 24

typedef struct Chart {
  ChartKind kind;
  char title[160];
  char subtitle[200];   /* device and date */
  ChartAxis x, y;
  int nseries;
  ChartSeries *series;
  int plotted;          /* records drawn as points */
  int skipped;          /* records left out: n/a values, failed, not tuned */
  char note[200];       /* why the chart is empty, or where the ceilings come from */
  int cursor;           /* session index of the cursor's record when it is plotted, else -1 */
} Chart;

/* What the caller picks: which records (NULL: all), the cursor and marks (session indices). */
typedef struct ChartInput {
  const Session *session;
  const int *records;   /* indices into session->records; NULL: every record */
  int nrecords;
  int cursor;           /* -1: none */
  const bool *marked;   /* per session index, or NULL */
  const char *x_axis;   /* sweep: "S", "B", "H", "D", "BH" or a knob name; NULL: the first
                           that varies */
  /* sweep: the value plotted (NULL: p50 in us) and its label */
  double (*y_value)(const Record *r, void *ctx);
  void *y_ctx;
  const char *y_label;
} ChartInput;

const char *Chart_kindName(ChartKind k);
bool Chart_kindParse(const char *s, ChartKind *out);
/* Builds the chart; every field set, an empty chart with a note when nothing can be plotted. */
void Chart_build(Chart *c, ChartKind kind, const ChartInput *in);
void Chart_free(Chart *c);

/* The sweep axes the records offer (S, B, H, D, BH, then knob names), those with more than
 * one value first; returns how many were written to names (each of size CHART_AXIS_NAME). */
#define CHART_AXIS_NAME 48
int Chart_sweepAxes(const ChartInput *in, char names[][CHART_AXIS_NAME], int max);
/* A record's value on a sweep axis; NAN when it has none (a knob it does not have). */
double Chart_axisValue(const Record *r, const char *axis);

/* Sets both axes' ranges (and for sweep and tune whether they are log) from the points. */
void Chart_fitAxes(Chart *c);
/* Tick positions for an axis: powers of ten (and 2, 5 between when few) on a log axis, round
 * steps on a linear one; returns how many (at most max). */
int Chart_ticks(const ChartAxis *a, double *out, int max);
/* A tick's text: "1e+03" style avoided, "0.5", "20", "1k", "2.5M". */
void Chart_tickLabel(double v, char *buf, size_t size);
/* Where v falls on the axis, 0 at lo and 1 at hi (outside: beyond); NAN for a value a log axis
 * cannot show. */
double Chart_position(const ChartAxis *a, double v);

/* The chart as a standalone SVG document, on the heap (chart_svg.c). */
char *Chart_svg(const Chart *c, size_t *len_out);

#endif
