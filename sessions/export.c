/* Table, JSON, CSV and Markdown output of records, row by row (see export.h); a whole session
 * is export_session.c. */
#include "sessions/export.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/text.h"
#include "common/text_width.h"
#include "common/util.h"
#include "sessions/json_fields.h"
#include "sessions/floors.h"
#include "sessions/baseline.h"
#include "sessions/knob_label.h"

/* The base columns (metric columns follow the catalog, see MetricColumns). */
enum {
  C_VARIANT, C_KNOBS, C_SHAPE, C_STATUS, C_P50, C_P90, C_TFLOPS, C_RELERR,
  C_FLOORX, /* p50 over the largest physical floor (floors.h) */
  C_VS_BASE, /* p50 over the cudnn record's of the shape (baseline.h) */
  C_METRICS, /* where the metric columns go in the table and Markdown */
  C_REGS, C_SPILLS,
  C_P99, C_MIN, C_MEAN, C_EVENT_P50, C_CLOCK, C_MAXABS, C_TOL, C_SMEM, C_BOUND, C_FLOP_FLOOR, C_BYTE_FLOOR, C_LAUNCH_FLOOR, C_ACHIEVED_GBS, C_KERNELS,
  C_REASON,
  C_COUNT
};

#define CSV_ONLY (1u << 30)

typedef struct ColumnDesc {
  const char *head; /* table and Markdown */
  const char *csv;  /* CSV header */
  int width;        /* table */
  unsigned need;    /* 0: always; an EXPORT_COL_ bit; CSV_ONLY */
  bool left;        /* left-aligned text */
} ColumnDesc;

static const ColumnDesc Export_columns[C_COUNT] = {
  [C_VARIANT] = {"variant", "variant", 9, 0, true},
  [C_KNOBS] = {"knobs", "knobs", 14, 0, true},
  [C_SHAPE] = {"shape", "shape", 15, 0, true},
  [C_STATUS] = {"status", "status", 6, 0, true},
  [C_P50] = {"p50 us", "p50_us", 7, 0, false},
  [C_P90] = {"p90 us", "p90_us", 7, 0, false},
  [C_TFLOPS] = {"TFLOP/s", "tflops", 7, 0, false},
  [C_RELERR] = {"rel err", "rel_l2", 7, 0, false},
  [C_FLOORX] = {"x floor", "floor_x", 7, EXPORT_COL_FLOOR, false},
  [C_VS_BASE] = {"vs " BASELINE_VARIANT, "vs_" BASELINE_VARIANT, 8, EXPORT_COL_BASELINE, false},
  [C_METRICS] = {"", "", 0, CSV_ONLY, false},
  [C_REGS] = {"regs", "regs", 4, EXPORT_COL_REGS, false},
  [C_SPILLS] = {"spill", "spill_bytes", 5, EXPORT_COL_SPILLS, false},
  [C_P99] = {"p99 us", "p99_us", 8, CSV_ONLY, false},
  [C_MIN] = {"min us", "min_us", 8, CSV_ONLY, false},
  [C_MEAN] = {"mean us", "mean_us", 8, CSV_ONLY, false},
  [C_EVENT_P50] = {"event p50", "event_p50_us", 8, CSV_ONLY, false},
  [C_CLOCK] = {"clock", "timing_source", 0, CSV_ONLY, true},
  [C_MAXABS] = {"max abs", "max_abs", 8, CSV_ONLY, false},
  [C_TOL] = {"tol", "tolerance", 8, CSV_ONLY, false},
  [C_SMEM] = {"smem", "smem_dynamic_bytes", 8, CSV_ONLY, false},
  [C_BOUND] = {"bound", "floor_bound", 7, EXPORT_COL_GBS, true},
  [C_FLOP_FLOOR] = {"flop floor", "flop_floor_us", 8, CSV_ONLY, false},
  [C_BYTE_FLOOR] = {"byte floor", "byte_floor_us", 8, CSV_ONLY, false},
  [C_LAUNCH_FLOOR] = {"launch floor", "launch_floor_us", 8, CSV_ONLY, false},
  [C_ACHIEVED_GBS] = {"GB/s", "achieved_gbs", 7, EXPORT_COL_GBS, false},
  [C_KERNELS] = {"kernels", "kernels", 0, CSV_ONLY, true},
  [C_REASON] = {"note", "reason", 0, CSV_ONLY, true},
};

bool Export_parseFormat(const char *name, OutputFormat *out) {
  static const struct { const char *name; OutputFormat fmt; } names[] = {
    {"table", FMT_TABLE}, {"json", FMT_JSON}, {"csv", FMT_CSV}, {"md", FMT_MD},
    {"markdown", FMT_MD},
  };
  for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++) {
    if (strcmp(name, names[i].name) == 0) {
      *out = names[i].fmt;
      return true;
    }
  }
  return false;
}

const char *Export_formatName(OutputFormat fmt) {
  switch (fmt) {
  case FMT_TABLE: return "table";
  case FMT_JSON: return "json";
  case FMT_CSV: return "csv";
  case FMT_MD: return "md";
  }
  return "?";
}

unsigned Export_columnsFor(const Record *const *recs, int n) {
  unsigned cols = 0;
  for (int i = 0; i < n; i++) {
    const Record *r = recs[i];
    if (r->build.regs >= 0) cols |= EXPORT_COL_REGS;
    if (r->build.spill_stores >= 0 || r->build.spill_loads >= 0) cols |= EXPORT_COL_SPILLS;
    Floors f;
    Floors_compute(r, &f);
    if (!isnan(f.x_floor)) cols |= EXPORT_COL_FLOOR;
    if (Shape_isDecode(&r->shape)) cols |= EXPORT_COL_GBS;
  }
  return cols;
}

bool Export_briefMetrics(OutputFormat fmt, bool wide) { return fmt == FMT_TABLE && !wide; }

/* Beyond this magnitude a figure is printed with 4 significant digits and an exponent: a p50 of
 * 1e308 (a hostile or broken record) is "1e+308", not 309 digits that wreck every column. */
#define EXPORT_FIXED_MAX 1e9

void Export_fmtTime(char *buf, size_t size, double us) {
  if (isnan(us)) snprintf(buf, size, "n/a");
  else if (!(fabs(us) < EXPORT_FIXED_MAX)) snprintf(buf, size, "%.4g", us);
  else if (fabs(us) < 100) snprintf(buf, size, "%.2f", us);
  else if (fabs(us) < 100000) snprintf(buf, size, "%.1f", us);
  else snprintf(buf, size, "%.0f", us);
}

/* Counts that can be large (bank conflicts, instructions): 950, 12.3k, 4.1M, 2.0G. */
void Export_fmtCount(char *buf, size_t size, double v) {
  double a = fabs(v);
  if (isnan(v)) snprintf(buf, size, "n/a");
  else if (!(a < 1e12)) snprintf(buf, size, "%.4g", v);
  else if (a < 1000) snprintf(buf, size, "%.0f", v);
  else if (a < 1e6) snprintf(buf, size, "%.1fk", v / 1e3);
  else if (a < 1e9) snprintf(buf, size, "%.1fM", v / 1e6);
  else snprintf(buf, size, "%.1fG", v / 1e9);
}

static void Export_fmtFixed(char *buf, size_t size, double v, int digits) {
  if (isnan(v)) snprintf(buf, size, "n/a");
  else if (!(fabs(v) < EXPORT_FIXED_MAX)) snprintf(buf, size, "%.4g", v);
  else snprintf(buf, size, "%.*f", digits, v);
}

static void Export_fmtExact(char *buf, size_t size, double v) {
  if (isnan(v)) snprintf(buf, size, "n/a");
  else Json_formatDouble(buf, size, v);
}

static void Export_fmtInt(char *buf, size_t size, int64_t v) {
  if (v < 0) snprintf(buf, size, "n/a");
  else snprintf(buf, size, "%lld", (long long)v);
}

void Export_fmtMetric(char *buf, size_t size, double v, const char *unit, bool exact) {
  if (exact) Export_fmtExact(buf, size, v);
  else if (isnan(v)) snprintf(buf, size, "n/a");
  else if (unit && strcmp(unit, "%") == 0) Export_fmtFixed(buf, size, v, 1);
  else if (fabs(v) >= 1000 || v == floor(v)) Export_fmtCount(buf, size, v);
  else snprintf(buf, size, "%.3g", v);
}

void Export_fmtKernels(char *buf, size_t size, const Record *r) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < r->nkernels && used + 1 < size; i++) {
    const KernelSpan *k = &r->kernels[i];
    char p50[32], gap[32];
    Json_formatDouble(p50, sizeof p50, k->p50_us);
    int w;
    if (!isnan(k->gap_before_us)) { /* the first kernel's: since the previous run of a graph */
      Json_formatDouble(gap, sizeof gap, k->gap_before_us);
      w = snprintf(buf + used, size - used, "%sgap %sus; %s %sus", i ? "; " : "", gap, k->name, p50);
    } else {
      w = snprintf(buf + used, size - used, "%s%s %sus", i ? "; " : "", k->name, p50);
    }
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* The table writes ":causal" as ":c" to keep 80 columns; other formats the canonical form. */
static void Export_fmtShape(char *buf, size_t size, const Shape *s, OutputFormat fmt) {
  if (fmt == FMT_TABLE) Shape_formatCompact(s, buf, size);
  else Shape_format(s, buf, size);
}

static void Export_cell(const Record *r, int col, OutputFormat fmt, char *buf, size_t size) {
  bool exact = fmt == FMT_CSV; /* machine-read: every digit; people get a rounded figure */
  double v = NAN;
  switch (col) {
  case C_VARIANT: snprintf(buf, size, "%s", r->variant); return;
  case C_KNOBS: /* people read the compact label; machines get the full setting */
    if (fmt == FMT_CSV) snprintf(buf, size, "%s", r->knobs[0] ? r->knobs : "-");
    else KnobLabel_compact(r->variant, r->knobs, buf, size);
    return;
  case C_SHAPE: Export_fmtShape(buf, size, &r->shape, fmt); return;
  case C_STATUS: snprintf(buf, size, "%s", Record_statusName(r->status)); return;
  case C_KERNELS: Export_fmtKernels(buf, size, r); return;
  case C_BOUND: case C_FLOORX: case C_FLOP_FLOOR: case C_BYTE_FLOOR: case C_LAUNCH_FLOOR:
  case C_ACHIEVED_GBS: {
    Floors f;
    Floors_compute(r, &f);
    if (col == C_BOUND) {
      snprintf(buf, size, "%s", f.bound ? f.bound : "n/a");
      return;
    }
    v = col == C_FLOORX ? f.x_floor : col == C_FLOP_FLOOR ? f.flop_us
        : col == C_BYTE_FLOOR ? f.byte_us : col == C_LAUNCH_FLOOR ? f.launch_us : f.achieved_gbs;
    if (exact) Export_fmtExact(buf, size, v);
    else if (col == C_FLOORX && !isnan(v))
      snprintf(buf, size, fabs(v) < EXPORT_FIXED_MAX ? "%.1fx" : "%.4gx", v);
    else if (col == C_ACHIEVED_GBS) Export_fmtFixed(buf, size, v, 0);
    else Export_fmtTime(buf, size, v);
    return;
  }
  case C_REASON: snprintf(buf, size, "%s", r->reason); return;
  case C_P50: v = r->timing.p50; break;
  case C_P90: v = r->timing.p90; break;
  case C_P99: v = r->timing.p99; break;
  case C_MIN: v = r->timing.min; break;
  case C_MEAN: v = r->timing.mean; break;
  case C_EVENT_P50: v = r->timing.event_p50; break;
  case C_CLOCK: snprintf(buf, size, "%s", r->timing.source[0] ? r->timing.source : "events"); return;
  case C_TFLOPS:
    if (exact) Export_fmtExact(buf, size, r->timing.tflops);
    else Export_fmtFixed(buf, size, r->timing.tflops, 1);
    return;
  case C_RELERR: case C_MAXABS: case C_TOL:
    v = col == C_RELERR ? r->error.rel_l2 : col == C_MAXABS ? r->error.max_abs : r->error.tolerance;
    if (isnan(v)) snprintf(buf, size, "n/a");
    else if (exact) Json_formatDouble(buf, size, v);
    else snprintf(buf, size, "%.1e", v);
    return;
  case C_REGS: Export_fmtInt(buf, size, r->build.regs); return;
  case C_SMEM: Export_fmtInt(buf, size, r->build.smem_dynamic); return;
  case C_SPILLS:
    if (r->build.spill_stores < 0 && r->build.spill_loads < 0) snprintf(buf, size, "n/a");
    else Export_fmtInt(buf, size, (int64_t)(r->build.spill_stores > 0 ? r->build.spill_stores : 0) +
                                      (r->build.spill_loads > 0 ? r->build.spill_loads : 0));
    return;
  default: snprintf(buf, size, "?"); return;
  }
  if (exact) Export_fmtExact(buf, size, v);
  else Export_fmtTime(buf, size, v);
}

static bool Export_shows(int col, OutputFormat fmt, unsigned cols) {
  unsigned need = Export_columns[col].need;
  if (col == C_METRICS) return false; /* expanded by the callers */
  if (need == EXPORT_COL_BASELINE) return (cols & need) != 0; /* CSV too: only with a baseline */
  if (fmt == FMT_CSV) return true;
  if (need == CSV_ONLY) return col == C_REASON && fmt == FMT_MD;
  return need == 0 || (need & cols);
}

/* Table width of a metric column: its label, at least 6. */
static int Export_metricWidth(const MetricColumn *m) {
  int w = (int)strlen(m->label);
  return w < 6 ? 6 : w;
}

/* CSV: the metric columns go after the other numbers, before the free-text reason. */
static bool Export_metricsBefore(int col, OutputFormat fmt) {
  return fmt == FMT_CSV ? col == C_REASON : col == C_METRICS;
}

void Export_printJson(FILE *out, const cJSON *j, bool formatted) {
  char *text = formatted ? cJSON_Print(j) : cJSON_PrintUnformatted(j);
  char *safe = text ? Text_jsonForTerminal(text) : NULL;
  fputs(safe ? safe : "null", out);
  free(safe);
  cJSON_free(text);
}

/* A CSV cell a spreadsheet would run as a formula: text opening with = + - @ (or a tab or
 * CR), unless the whole cell is a number (a negative number stays a number). */
static bool Export_csvFormula(const char *text) {
  if (!strchr("=+-@\t\r", text[0]) || !text[0]) return false;
  char *end;
  errno = 0;
  (void)strtod(text, &end);
  return end == text || *end != '\0';
}

void Export_writeField(FILE *out, OutputFormat fmt, const char *raw) {
  char *text = Util_xstrdup(raw); /* record fields come from files and workers */
  Text_sanitize(text, strlen(text) + 1, text);
  /* OWASP's advice against formula injection: such a text cell is prefixed with a quote. */
  bool formula = fmt == FMT_CSV && Export_csvFormula(text);
  if (fmt == FMT_CSV && (formula || strpbrk(text, ",\"\r\n"))) {
    fputc('"', out);
    if (formula) fputc('\'', out);
    for (const char *c = text; *c; c++) {
      if (*c == '"') fputc('"', out);
      fputc(*c, out);
    }
    fputc('"', out);
  } else if (fmt == FMT_MD) {
    for (const char *c = text; *c; c++) {
      if (*c == '|') fputc('\\', out);
      fputc(*c == '\n' || *c == '\r' ? ' ' : *c, out);
    }
  } else {
    fputs(text, out);
  }
  free(text);
}

void Export_padded(FILE *out, const char *text, int width, bool left) {
  int len = Text_width(text); /* columns, not bytes: é, CJK and emoji align */
  if (len > width) {
    if (!left) {
      fputs(text, out); /* never cut a number */
      return;
    }
    size_t keep = Text_prefixFor(text, width - 1);
    fprintf(out, "%.*s~%*s", (int)keep, text, width - 1 - Text_widthN(text, keep), "");
  } else if (left) {
    fprintf(out, "%s%*s", text, width - len, "");
  } else {
    fprintf(out, "%*s%s", width - len, "", text);
  }
}

/* Table cell: padded to its width, text cut with '~' when too long. */
static void Export_tableCell(FILE *out, const ColumnDesc *c, const char *raw, bool first) {
  if (!first) fputc(' ', out);
  char text[512];
  Text_sanitize(text, sizeof text, raw);
  Export_padded(out, text, c->width, c->left);
}

/* Header cell of one column (table, CSV or Markdown). */
static void Export_head(FILE *out, OutputFormat fmt, const char *head, const char *csv, int width,
                        bool left, bool first) {
  if (fmt == FMT_TABLE) {
    ColumnDesc d = {head, csv, width, 0, left};
    Export_tableCell(out, &d, head, first);
  } else if (fmt == FMT_CSV) {
    if (!first) fputc(',', out);
    Export_writeField(out, FMT_CSV, csv);
  } else {
    fputc(' ', out);
    Export_writeField(out, FMT_MD, head);
    fputs(" |", out);
  }
}

void Export_fitRecord(ExportLayout *l, const char *variant, const char *knobs, const Shape *shape) {
  char label[RECORD_KNOBS_MAX], shape_text[96];
  KnobLabel_compact(variant, knobs, label, sizeof label);
  Export_fmtShape(shape_text, sizeof shape_text, shape, FMT_TABLE);
  int kw = Text_width(label), vw = Text_width(variant), sw = (int)strlen(shape_text);
  if (kw > l->knob_width) l->knob_width = kw;
  if (vw > l->variant_width) l->variant_width = vw;
  if (sw > l->shape_width) l->shape_width = sw;
  if (Shape_isDecode(shape)) l->cols |= EXPORT_COL_GBS;
}

/* A base column as this table lays it out: the variant and knob columns fit their contents. */
static ColumnDesc Export_desc(const Export *x, int c) {
  ColumnDesc d = Export_columns[c];
  if (c == C_VARIANT && x->variant_width > d.width) d.width = x->variant_width;
  if (c == C_KNOBS && x->knob_width > 0) d.width = x->knob_width < 5 ? 5 : x->knob_width;
  if (c == C_SHAPE && x->shape_width > d.width) d.width = x->shape_width;
  return d;
}

void Export_begin(Export *x, FILE *out, OutputFormat fmt, const ExportLayout *layout) {
  memset(x, 0, sizeof *x);
  x->out = out;
  x->fmt = fmt;
  x->cols = layout->cols;
  x->variant_width = layout->variant_width;
  x->knob_width = layout->knob_width;
  x->shape_width = layout->shape_width;
  x->baseline = layout->baseline;
  x->nbaseline = layout->nbaseline;
  if (!x->baseline) x->cols &= ~(unsigned)EXPORT_COL_BASELINE;
  unsigned cols = x->cols;
  const MetricColumns *metrics = layout->metrics;
  if (metrics && metrics->n > 0) {
    x->metrics.n = metrics->n;
    x->metrics.col = Util_xmalloc(sizeof *metrics->col * (size_t)metrics->n);
    memcpy(x->metrics.col, metrics->col, sizeof *metrics->col * (size_t)metrics->n);
  }
  MetricColumns_index(&x->metrics, &x->metric_index);
  x->metric_values = Util_xcalloc((size_t)x->metrics.n + 1, sizeof *x->metric_values);
  if (fmt == FMT_JSON) {
    fputs("[", out);
    fflush(out);
    return;
  }
  bool first = true;
  if (fmt == FMT_MD) fputs("|", out);
  for (int c = 0; c < C_COUNT; c++) {
    if (Export_metricsBefore(c, fmt))
      for (int k = 0; k < x->metrics.n; k++, first = false) {
        const MetricColumn *m = &x->metrics.col[k];
        Export_head(out, fmt, m->label, m->name, Export_metricWidth(m), false, first);
      }
    if (!Export_shows(c, fmt, cols)) continue;
    ColumnDesc d = Export_desc(x, c);
    Export_head(out, fmt, d.head, d.csv, d.width, d.left, first);
    first = false;
  }
  fputc('\n', out);
  if (fmt == FMT_MD) {
    fputs("|", out);
    for (int c = 0; c < C_COUNT; c++) {
      if (Export_metricsBefore(c, fmt))
        for (int k = 0; k < x->metrics.n; k++) fputs(" ---: |", out);
      if (Export_shows(c, fmt, cols)) fputs(Export_columns[c].left ? " --- |" : " ---: |", out);
    }
    fputc('\n', out);
  }
  fflush(out);
}

/* One cell of a data row. */
static void Export_put(Export *x, const ColumnDesc *d, const char *text, bool first) {
  if (x->fmt == FMT_TABLE) {
    Export_tableCell(x->out, d, text, first);
    return;
  }
  if (x->fmt == FMT_CSV && !first) fputc(',', x->out);
  if (x->fmt == FMT_MD) fputc(' ', x->out);
  Export_writeField(x->out, x->fmt, text);
  if (x->fmt == FMT_MD) fputs(" |", x->out);
}

void Export_record(Export *x, const Record *r) {
  FILE *out = x->out;
  if ((int)r->status >= 0 && (int)r->status < 5) x->by_status[r->status]++;
  if (x->fmt == FMT_JSON) {
    cJSON *j = Record_toJson(r);
    fprintf(out, "%s\n  ", x->rows ? "," : "");
    Export_printJson(out, j, false);
    cJSON_Delete(j);
    x->rows++;
    fflush(out);
    return;
  }
  bool ran = r->status == REC_PASS || r->status == REC_FAIL;
  bool first = true;
  char buf[4096]; /* the kernels column can be long */
  if (x->fmt == FMT_MD) fputs("|", out);
  for (int c = 0; c < C_COUNT; c++) {
    if (x->fmt == FMT_TABLE && !ran && c > C_STATUS) { /* not run: the reason stands in */
      char reason[64];
      fprintf(out, " %s", Text_sanitize(reason, sizeof reason, r->reason[0] ? r->reason : "-"));
      break;
    }
    if (Export_metricsBefore(c, x->fmt)) {
      MetricColumns_rowValues(&x->metrics, &x->metric_index, r, x->metric_values, NULL);
      for (int k = 0; k < x->metrics.n; k++, first = false) {
        const MetricColumn *m = &x->metrics.col[k];
        Export_fmtMetric(buf, sizeof buf, x->metric_values[k], m->unit, x->fmt == FMT_CSV);
        ColumnDesc d = {m->label, m->name, Export_metricWidth(m), 0, false};
        Export_put(x, &d, buf, first);
      }
    }
    if (!Export_shows(c, x->fmt, x->cols)) continue;
    if (c == C_VS_BASE) { /* needs the other records: not a cell of r alone */
      double v = Baseline_ratio(r, x->baseline, x->nbaseline);
      if (x->fmt == FMT_CSV) Export_fmtExact(buf, sizeof buf, v);
      else if (isnan(v)) snprintf(buf, sizeof buf, "-");
      else snprintf(buf, sizeof buf, "%.2fx", v);
    } else {
      Export_cell(r, c, x->fmt, buf, sizeof buf);
    }
    ColumnDesc d = Export_desc(x, c);
    Export_put(x, &d, buf, first);
    first = false;
  }
  fputc('\n', out);
  x->rows++;
  fflush(out);
}

void Export_end(Export *x) {
  FILE *out = x->out;
  MetricColumns_free(&x->metrics);
  NameIndex_free(&x->metric_index);
  free(x->metric_values);
  x->metric_values = NULL;
  if (x->fmt == FMT_JSON) {
    fputs(x->rows ? "\n]\n" : "]\n", out);
  } else if (x->fmt == FMT_TABLE || x->fmt == FMT_MD) {
    fprintf(out, "%s%d record%s", x->fmt == FMT_MD ? "\n" : "", x->rows, x->rows == 1 ? "" : "s");
    const char *sep = ": ";
    for (int i = 0; i < 5; i++) {
      if (!x->by_status[i]) continue;
      fprintf(out, "%s%d %s", sep, x->by_status[i], Record_statusName((RecordStatus)i));
      sep = ", ";
    }
    fputc('\n', out);
  }
  fflush(out);
}
