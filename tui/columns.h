/* The results table's columns and the compare view's rows: how to read a value from a record,
 * how to print it, and which direction is better. A value that was not measured is NAN and
 * prints as n/a. */
#ifndef BENCHTOP_COLUMNS_H
#define BENCHTOP_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#include "sessions/record.h"

typedef enum { DIR_NONE = 0, DIR_LOWER, DIR_HIGHER } Direction;

typedef enum {
  COL_VARIANT, COL_KNOBS, COL_SHAPE, COL_STATUS, COL_P50, COL_P90, COL_TFLOPS, COL_RELERR,
  COL_OCC, COL_TENSOR, COL_BANK, COL_L2HIT, COL_REGS, COL_SPILLS, COL_COUNT,
} ColumnId;

typedef struct Column {
  const char *title;
  int width;
  Direction dir;
  bool numeric;
  const char *help;
  const char *key;        /* stable name for the config file and filters: [a-z0-9_]+ */
} Column;

extern const Column Columns[COL_COUNT];
/* ColumnId by key, -1 when none has it. */
int Columns_find(const char *key);

/* Headline metric names (Nsight Compute), used by columns and the detail view. */
#define MET_OCC "sm__warps_active.avg.pct_of_peak_sustained_active"
#define MET_TENSOR "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
#define MET_BANK_LD "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define MET_BANK_ST "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
#define MET_L2HIT "lts__t_sector_hit_rate.pct"
#define MET_DURATION "gpu__time_duration.sum"

typedef struct ColumnMetric {
  const char *name, *label, *unit;
  Direction dir;
} ColumnMetric;
/* Label/unit/direction of a metric by Nsight Compute name, from the cupti catalog (then a small
 * table of its own); false when neither knows it. */
bool Columns_metricInfo(const char *name, ColumnMetric *out);

/* Numeric value of a column (NAN when n/a). Text columns return NAN. */
double Columns_value(const Record *r, ColumnId c);
/* Cell text, at most `size`-1 characters. */
void Columns_format(const Record *r, ColumnId c, char *buf, size_t size);
/* Prints a value with a precision suited to its size ("12.3", "0.0012", "1.2e+06", "n/a"). */
void Columns_number(double v, char *buf, size_t size);
/* -1/0/1 comparing two records by a column; n/a sorts last whichever the direction. */
int Columns_compare(const Record *a, const Record *b, ColumnId c);
/* Relative change of b against base in percent, and whether it is better (1), worse (-1) or
 * neither (0) by the direction. */
int Columns_delta(double base, double v, Direction dir, double *pct);

/* The compare view's rows: every headline number of a record. */
typedef struct CompareRow {
  const char *label;
  Direction dir;
  double (*get)(const Record *r);
} CompareRow;
extern const CompareRow Columns_compareRows[];
extern const int Columns_compareRowCount;

#endif
