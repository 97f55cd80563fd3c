/* The results table's columns and the compare view's rows: how to read a value from a record,
 * how to print it, and which direction is better. A value that was not measured is NAN and
 * prints as n/a.
 *
 * The fixed columns come first (ColumnId below); from COL_METRICS on, one column per metric
 * of the catalog (sessions/catalog_table.c: its labels, units and directions), then one per
 * metric outside the catalog that a session's records hold (the user's own --metrics names),
 * registered as sessions are shown. Slots past Columns_count() are unused. */
#ifndef BENCHTOP_COLUMNS_H
#define BENCHTOP_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#include "sessions/catalog.h"
#include "sessions/record.h"
#include "sessions/session.h"

typedef enum { DIR_NONE = 0, DIR_LOWER, DIR_HIGHER } Direction;

#define COLUMNS_METRICS_MAX 96

typedef enum {
  COL_VARIANT, COL_KNOBS, COL_SHAPE, COL_STATUS, COL_P50, COL_P90, COL_TFLOPS,
  COL_GBS, COL_BOUND, /* bytes / p50 and the largest floor: shown with a decode problem */
  COL_RELERR,
  COL_FLOOR, /* p50 over the largest physical floor (sessions/floors.h) */
  COL_REGS, COL_SPILLS,
  COL_METRICS, /* the first metric column */
  COL_COUNT = COL_METRICS + COLUMNS_METRICS_MAX,
} ColumnId;

typedef struct Column {
  char title[METRIC_NAME_MAX]; /* header */
  int width;
  Direction dir;
  bool numeric;
  const char *help;
  char key[METRIC_NAME_MAX];   /* stable name for the config file and filters */
  char metric[METRIC_NAME_MAX]; /* metric columns: the Nsight Compute name; else "" */
  char unit[16];
  bool brief;                  /* shown by default (fixed columns, the catalog's brief metrics,
                                  the user's own metrics); the others are added with the chooser */
} Column;

/* Indexed by ColumnId; entries past Columns_count() have an empty key. */
extern Column Columns[COL_COUNT];
/* Fills the fixed and catalog columns (idempotent; every function here calls it). */
void Columns_init(void);
/* Slots in use. */
int Columns_count(void);
/* Display order: the fixed columns up to rel err, the metrics, then registers and spills.
 * Columns_at(position) is the ColumnId shown there; Columns_position is its inverse. */
int Columns_at(int position);
int Columns_position(int c);
/* ColumnId by key, -1 when none has it. A catalog metric is also found by its Nsight Compute
 * name; any other plausible metric name (unit__counter...) gets a column of its own, so a
 * setting or filter can name the user's metrics before a session shows them. */
int Columns_find(const char *key);
/* The column of a metric by its Nsight Compute name, added when new; -1 when the table is
 * full. unit may be NULL. */
int Columns_addMetric(const char *name, const char *unit);
/* Registers every metric the session's records hold and widens the knobs column to the
 * longest compact knob label. */
void Columns_noteSession(const Session *s);
/* Whether any record has a value in column c (a metric column without one stays out of the
 * default view). */
bool Columns_anyValue(const Session *s, int c);

/* Label/unit/direction of a metric by Nsight Compute name, from the catalog; false when it does
 * not know it. */
typedef struct ColumnMetric {
  const char *name, *label, *unit;
  Direction dir;
} ColumnMetric;
bool Columns_metricInfo(const char *name, ColumnMetric *out);
Direction Columns_direction(MetricDirection d);

/* Numeric value of a column (NAN when n/a). Text columns return NAN. */
double Columns_value(const Record *r, ColumnId c);
/* Cell text, at most `size`-1 characters: the knobs column shows the compact label. */
void Columns_format(const Record *r, ColumnId c, char *buf, size_t size);
/* Prints a value with a precision suited to its size ("12.3", "0.0012", "1.2e+06", "n/a"). */
void Columns_number(double v, char *buf, size_t size);
/* -1/0/1 comparing two records by a column; n/a sorts last whichever the direction. */
int Columns_compare(const Record *a, const Record *b, ColumnId c);
/* Relative change of b against base in percent, and whether it is better (1), worse (-1) or
 * neither (0) by the direction. */
int Columns_delta(double base, double v, Direction dir, double *pct);

/* The compare view's rows apart from the metrics (which follow, one per metric column). */
typedef struct CompareRow {
  const char *label;
  Direction dir;
  double (*get)(const Record *r);
} CompareRow;
extern const CompareRow Columns_compareRows[];
extern const int Columns_compareRowCount;

#endif
