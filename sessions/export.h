/* Output formats for records and sessions: an aligned table (fits 80 columns without metric
 * columns), JSON, CSV and Markdown. Shared by `benchtop run` (streaming: begin, one row per
 * record as it arrives, end) and `benchtop show`. */
#ifndef BENCHTOP_EXPORT_H
#define BENCHTOP_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "sessions/session.h"

typedef enum { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_MD } OutputFormat;

/* The headline metrics, by their Nsight Compute names. */
#define METRIC_OCCUPANCY "sm__warps_active.avg.pct_of_peak_sustained_active"
#define METRIC_TENSOR_PCT "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
#define METRIC_TENSOR_INST "sm__inst_executed_pipe_tensor_op_hmma.sum"
/* Matrix instructions only (no HFMA2.MMA register moves); Hopper. */
#define METRIC_TENSOR_MMA_PCT \
  "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active"
#define METRIC_TENSOR_HFMA2 "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"
#define METRIC_BANK_LD "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define METRIC_BANK_ST "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
#define METRIC_L2_HIT "lts__t_sector_hit_rate.pct"
#define METRIC_DURATION "gpu__time_duration.sum"

extern const char *const Export_headlineMetrics[];
extern const int Export_headlineCount;
/* The tensor column: matrix-only busy % where the record has it, else the HMMA pipe's. */
double Export_tensorPct(const Record *r);

/* Optional table/Markdown columns (the base columns are always shown; CSV has every column). */
enum {
  EXPORT_COL_OCCUPANCY = 1u << 0,
  EXPORT_COL_TENSOR = 1u << 1,
  EXPORT_COL_BANK = 1u << 2,
  EXPORT_COL_L2 = 1u << 3,
  EXPORT_COL_REGS = 1u << 4,
  EXPORT_COL_SPILLS = 1u << 5,
  EXPORT_COL_METRICS = EXPORT_COL_OCCUPANCY | EXPORT_COL_TENSOR | EXPORT_COL_BANK | EXPORT_COL_L2,
  EXPORT_COL_ALL = 0x3f,
};

typedef struct Export {
  FILE *out;
  OutputFormat fmt;
  unsigned cols;
  int rows;
  int by_status[5]; /* RecordStatus counts, for the footer */
} Export;

/* "table", "json", "csv", "md" (also "markdown"). */
bool Export_parseFormat(const char *name, OutputFormat *out);
const char *Export_formatName(OutputFormat fmt);
/* Optional columns that carry a value in at least one of the records. */
unsigned Export_columnsFor(const Record *const *recs, int n);

/* Streaming: header, one row per record (flushed, so a pipe sees it at once), footer. */
void Export_begin(Export *x, FILE *out, OutputFormat fmt, unsigned cols);
void Export_record(Export *x, const Record *r);
void Export_end(Export *x);

/* A whole session, showing only recs (e.g. the --best subset): JSON prints the session object
 * with those records; the other formats print a one-line summary (not CSV) and the rows. */
void Export_session(FILE *out, OutputFormat fmt, const Session *s, const Record *const *recs,
                    int n);

/* Number formatting shared with diff: "n/a" for NAN. */
void Export_fmtTime(char *buf, size_t size, double us);
void Export_fmtCount(char *buf, size_t size, double v);
/* CSV field / Markdown cell with quoting or escaping as the format needs. */
void Export_writeField(FILE *out, OutputFormat fmt, const char *text);

#endif
