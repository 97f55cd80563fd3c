/* Output formats for records and sessions: an aligned table (fits 80 columns without metric
 * columns), JSON, CSV and Markdown. Shared by `benchtop run` (streaming: begin, one row per
 * record as it arrives, end) and `benchtop show`. */
#ifndef BENCHTOP_EXPORT_H
#define BENCHTOP_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "sessions/catalog.h"
#include "sessions/session.h"

typedef enum { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_MD } OutputFormat;

/* Optional base columns of the table and Markdown (CSV has every column); the metric columns
 * come from the catalog (MetricColumns). */
enum {
  EXPORT_COL_REGS = 1u << 0,
  EXPORT_COL_SPILLS = 1u << 1,
  EXPORT_COL_FLOOR = 1u << 2, /* p50 over the physical floor (floors.h) */
  EXPORT_COL_ALL = 0x7,
  EXPORT_COL_BASELINE = 1u << 3, /* p50 over the cudnn record's of the shape (baseline.h) */
  /* GB/s and the bound: shown when a decode problem (bandwidth-bound, Shape_isDecode) is there. */
  EXPORT_COL_GBS = 1u << 4,
};

/* What the columns of a table hold, fixed before its first row. */
typedef struct ExportLayout {
  unsigned cols;                /* optional base columns (EXPORT_COL_*) */
  const MetricColumns *metrics; /* NULL: none */
  int variant_width, knob_width, shape_width; /* table: 0 for the defaults; never cut */
  const Record *baseline;        /* with EXPORT_COL_BASELINE: the records holding the baseline */
  int nbaseline;
} ExportLayout;

typedef struct Export {
  FILE *out;
  OutputFormat fmt;
  unsigned cols;
  MetricColumns metrics; /* owned copy */
  int variant_width, knob_width, shape_width;
  const Record *baseline; /* the layout's (not owned) */
  int nbaseline;
  int rows;
  int by_status[5]; /* RecordStatus counts, for the footer */
  NameIndex metric_index; /* metrics' columns by name, and one row's values: rows of */
  double *metric_values;  /* thousands of metric columns cost O(columns), not their square */
} Export;

/* "table", "json", "csv", "md" (also "markdown"). */
bool Export_parseFormat(const char *name, OutputFormat *out);
const char *Export_formatName(OutputFormat fmt);
/* Optional base columns that carry a value in at least one of the records. */
unsigned Export_columnsFor(const Record *const *recs, int n);
/* Whether a format's tables show only the catalog's brief metrics (the fixed-width table unless
 * wide; Markdown and CSV show every metric). */
bool Export_briefMetrics(OutputFormat fmt, bool wide);

/* Widens a layout's variant, knob and shape columns to fit a record's (the table shows the
 * compact knob label, see knob_label.h); a decode problem adds the GB/s and bound columns. */
void Export_fitRecord(ExportLayout *l, const char *variant, const char *knobs, const Shape *shape);

/* Streaming: header, one row per record (flushed, so a pipe sees it at once), footer. The
 * layout's metrics are copied. */
void Export_begin(Export *x, FILE *out, OutputFormat fmt, const ExportLayout *layout);
void Export_record(Export *x, const Record *r);
void Export_end(Export *x);

/* A whole session, showing only recs (e.g. the --best subset): JSON prints the session object
 * with those records; the other formats print a one-line summary (not CSV) and the rows, with a
 * column for every metric the records hold (the table: the catalog's brief ones and the user's,
 * or all with wide). */
void Export_session(FILE *out, OutputFormat fmt, const Session *s, const Record *const *recs,
                    int n, bool wide);

/* The format a file name asks for by its extension (.json, .csv, .md or .markdown, any case);
 * false for any other. */
bool Export_formatForPath(const char *path, OutputFormat *out);
/* Writes path atomically in the format its extension asks for: .json the whole session, .csv
 * and .md the table of recs; any other extension is refused in one line. */
bool Export_toFile(const char *path, const Session *s, const Record *const *recs, int n,
                   char *err, size_t errsize);

/* Number formatting shared with diff: "n/a" for NAN. */
void Export_fmtTime(char *buf, size_t size, double us);
void Export_fmtCount(char *buf, size_t size, double v);
/* A metric's value for people: percentages with one decimal, counts as Export_fmtCount, other
 * units with 3 significant digits; with exact, every digit (CSV). */
void Export_fmtMetric(char *buf, size_t size, double v, const char *unit, bool exact);
/* A record's kernels in launch order with the gaps between them: "quantize 1.2us; gap 0.4us;
 * attn_fwd 8.9us" ("" without a breakdown). */
void Export_fmtKernels(char *buf, size_t size, const Record *r);
/* CSV field / Markdown cell with quoting or escaping as the format needs; control characters
 * sanitised (common/text.h): every printer of untrusted text goes through Text_sanitize. */
void Export_writeField(FILE *out, OutputFormat fmt, const char *text);
/* A table cell: text padded (or, left-aligned, cut with '~') to width terminal columns. */
void Export_padded(FILE *out, const char *text, int width, bool left);
/* JSON for stdout: cJSON's text with DEL, C1 controls and bidi overrides escaped as well. */
void Export_printJson(FILE *out, const cJSON *j, bool formatted);

#endif
