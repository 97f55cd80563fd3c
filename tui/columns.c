/* Column definitions and value formatting shared by the results, compare and detail views. */
#include "tui/columns.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "sessions/catalog.h"
#include "sessions/floors.h"
#include "sessions/knob_label.h"

Column Columns[COL_COUNT];
static int Columns_used;

typedef struct FixedColumn {
  ColumnId id;
  const char *title, *key, *help;
  int width;
  Direction dir;
  bool numeric;
} FixedColumn;

static const FixedColumn Columns_fixed[] = {
  {COL_VARIANT, "variant", "variant", "kernel variant", 9, DIR_NONE, false},
  {COL_KNOBS, "knobs", "knobs", "knobs that differ from the variant's defaults (detail: all)", 8,
   DIR_NONE, false},
  {COL_SHAPE, "shape", "shape", "BxHq[/Hkv]xSq[/Skv]xD[:causal][:bf16]", 17, DIR_NONE, false},
  {COL_STATUS, "pass", "status", "pass, FAIL, error, n/a, cancelled", 5, DIR_NONE, false},
  {COL_P50, "p50 us", "p50", "median latency per launch", 8, DIR_LOWER, true},
  {COL_P90, "p90 us", "p90", "90th percentile latency", 8, DIR_LOWER, true},
  {COL_TFLOPS, "TFLOP/s", "tflops", "4*B*Hq*Sq*Skv*D / p50 (causal: visible pairs)", 7, DIR_HIGHER, true},
  {COL_RELERR, "rel err", "relerr", "relative L2 error against the reference", 8, DIR_LOWER, true},
  {COL_FLOOR, "x floor", "floor", "p50 over the largest physical floor (FLOPs, bytes, launch)", 7,
   DIR_LOWER, true},
  {COL_GBS, "GB/s", "gbs", "bytes (Q, O per query head; K, V per KV head) / p50", 6,
   DIR_HIGHER, true},
  {COL_BOUND, "bound", "bound", "the largest floor: compute, memory or launch", 7, DIR_NONE,
   false},
  {COL_REGS, "regs", "regs", "registers per thread", 4, DIR_LOWER, true},
  {COL_SPILLS, "spill", "spills", "spill stores + loads (bytes)", 5, DIR_LOWER, true},
};

Direction Columns_direction(MetricDirection d) {
  return d == METRIC_HIGHER_BETTER ? DIR_HIGHER : d == METRIC_LOWER_BETTER ? DIR_LOWER : DIR_NONE;
}

/* A metric column in the next free slot; its key is the catalog label without spaces
 * ("ld conf" -> "ldconf"), or for the user's own metrics the Nsight Compute name. */
static int Columns_put(const char *name, const char *unit, const MetricInfo *info) {
  if (Columns_used >= COL_COUNT) return -1;
  int c = Columns_used++;
  Column *col = &Columns[c];
  memset(col, 0, sizeof *col);
  Util_strlcpy(col->metric, name, sizeof col->metric);
  Util_strlcpy(col->unit, info ? info->unit : unit ? unit : "", sizeof col->unit);
  col->numeric = true;
  col->dir = info ? Columns_direction(info->direction) : DIR_NONE;
  col->help = info ? info->help : "a metric named with --metrics (Nsight Compute)";
  col->brief = !info || info->brief;
  if (info) {
    Util_strlcpy(col->title, info->label, sizeof col->title);
    size_t k = 0;
    for (const char *p = info->label; *p && k + 1 < sizeof col->key; p++)
      if (*p != ' ') col->key[k++] = (char)tolower((unsigned char)*p);
  } else {
    Util_strlcpy(col->title, name, sizeof col->title);
    Util_strlcpy(col->key, name, sizeof col->key);
  }
  int w = (int)strlen(col->title);
  col->width = w < 6 ? 6 : w;
  return c;
}

void Columns_init(void) {
  if (Columns_used) return;
  for (size_t i = 0; i < sizeof Columns_fixed / sizeof Columns_fixed[0]; i++) {
    const FixedColumn *f = &Columns_fixed[i];
    Column *c = &Columns[f->id];
    Util_strlcpy(c->title, f->title, sizeof c->title);
    Util_strlcpy(c->key, f->key, sizeof c->key);
    c->help = f->help;
    c->width = f->width;
    c->dir = f->dir;
    c->numeric = f->numeric;
    c->brief = true;
  }
  Columns_used = COL_METRICS;
  for (int i = 0; i < Catalog_headlineCount; i++)
    Columns_put(Catalog_headline[i].name, NULL, &Catalog_headline[i]);
}

int Columns_count(void) {
  Columns_init();
  return Columns_used;
}

int Columns_at(int position) {
  Columns_init();
  int nmetrics = Columns_used - COL_METRICS;
  if (position < COL_REGS) return position;
  if (position < COL_REGS + nmetrics) return COL_METRICS + (position - COL_REGS);
  return position - nmetrics; /* regs, spills */
}

int Columns_position(int c) {
  Columns_init();
  int nmetrics = Columns_used - COL_METRICS;
  if (c < COL_REGS) return c;
  if (c >= COL_METRICS) return COL_REGS + (c - COL_METRICS);
  return c + nmetrics;
}

int Columns_addMetric(const char *name, const char *unit) {
  Columns_init();
  for (int c = COL_METRICS; c < Columns_used; c++)
    if (strcmp(Columns[c].metric, name) == 0) return c;
  return Columns_put(name, unit, Catalog_find(name));
}

int Columns_find(const char *key) {
  Columns_init();
  if (!key || !key[0]) return -1;
  for (int c = 0; c < Columns_used; c++)
    if (strcmp(Columns[c].key, key) == 0 || strcmp(Columns[c].metric, key) == 0) return c;
  /* The user's own metric, named before any session showed it. */
  if (strstr(key, "__") && Metrics_nameValid(key)) return Columns_addMetric(key, NULL);
  return -1;
}

void Columns_noteSession(const Session *s) {
  Columns_init();
  int knob_width = 5, shape_width = 17;
  for (int i = 0; i < s->nrecords; i++) {
    const Record *r = &s->records[i];
    for (int k = 0; k < r->nmetrics; k++) Columns_addMetric(r->metrics[k].name, r->metrics[k].unit);
    char label[RECORD_KNOBS_MAX], shape[64];
    KnobLabel_compact(r->variant, r->knobs, label, sizeof label);
    int w = (int)strlen(label);
    if (w > knob_width) knob_width = w;
    Shape_format(&r->shape, shape, sizeof shape); /* a wider problem is never cut */
    if ((int)strlen(shape) > shape_width) shape_width = (int)strlen(shape);
  }
  Columns[COL_KNOBS].width = knob_width > 40 ? 40 : knob_width;
  Columns[COL_SHAPE].width = shape_width;
}

bool Columns_anyValue(const Session *s, int c) {
  for (int i = 0; i < s->nrecords; i++)
    if (!isnan(Columns_value(&s->records[i], (ColumnId)c))) return true;
  return false;
}

bool Columns_metricInfo(const char *name, ColumnMetric *out) {
  const MetricInfo *c = Catalog_find(name);
  if (!c) return false;
  out->name = c->name;
  out->label = c->label;
  out->unit = c->unit;
  out->dir = Columns_direction(c->direction);
  return true;
}

static double Columns_metric(const Record *r, const char *name) {
  const Metric *m = Record_metric(r, name);
  return m ? m->value : NAN;
}

static double Columns_int(int v) { return v < 0 ? NAN : (double)v; }

static double Columns_spills(const Record *r) {
  if (r->build.spill_stores < 0 && r->build.spill_loads < 0) return NAN;
  return (double)((r->build.spill_stores > 0 ? r->build.spill_stores : 0) +
                  (r->build.spill_loads > 0 ? r->build.spill_loads : 0));
}

double Columns_value(const Record *r, ColumnId c) {
  Columns_init();
  switch (c) {
  case COL_P50: return r->timing.p50;
  case COL_P90: return r->timing.p90;
  case COL_TFLOPS: return r->timing.tflops;
  case COL_RELERR: return r->error.checked ? r->error.rel_l2 : NAN;
  case COL_FLOOR: {
    Floors f;
    Floors_compute(r, &f);
    return f.x_floor;
  }
  case COL_GBS: {
    Floors f;
    Floors_compute(r, &f);
    return f.achieved_gbs;
  }
  case COL_REGS: return Columns_int(r->build.regs);
  case COL_SPILLS: return Columns_spills(r);
  default:
    return (int)c >= COL_METRICS && (int)c < Columns_used ? Columns_metric(r, Columns[c].metric) : NAN;
  }
}

void Columns_number(double v, char *buf, size_t size) {
  double a = fabs(v);
  if (isnan(v)) snprintf(buf, size, "n/a");
  else if (isinf(v)) snprintf(buf, size, v > 0 ? "inf" : "-inf");
  else if (a == 0) snprintf(buf, size, "0");
  else if (a >= 1e6) snprintf(buf, size, "%.2e", v);
  else if (a >= 1000 || v == (double)(long)v) snprintf(buf, size, "%.0f", v);
  else if (a >= 100) snprintf(buf, size, "%.1f", v);
  else if (a >= 1) snprintf(buf, size, "%.2f", v);
  else if (a >= 0.001) snprintf(buf, size, "%.4f", v);
  else snprintf(buf, size, "%.1e", v);
}

void Columns_format(const Record *r, ColumnId c, char *buf, size_t size) {
  switch (c) {
  case COL_VARIANT: snprintf(buf, size, "%s", r->variant); return;
  case COL_KNOBS: KnobLabel_compact(r->variant, r->knobs, buf, size); return;
  case COL_SHAPE: Shape_format(&r->shape, buf, size); return;
  case COL_STATUS: {
    static const char *const words[] = {"pass", "FAIL", "error", "n/a", "cancl"};
    snprintf(buf, size, "%s", (unsigned)r->status < 5 ? words[r->status] : "?");
    return;
  }
  case COL_BOUND: {
    Floors f;
    Floors_compute(r, &f);
    snprintf(buf, size, "%s", r->status == REC_PASS && f.bound ? f.bound : "n/a");
    return;
  }
  case COL_GBS: {
    double v = r->status == REC_PASS ? Columns_value(r, c) : NAN;
    if (isnan(v)) snprintf(buf, size, "n/a");
    else snprintf(buf, size, "%.0f", v);
    return;
  }
  case COL_RELERR: {
    double v = Columns_value(r, c);
    if (isnan(v)) snprintf(buf, size, "n/a");
    else snprintf(buf, size, "%.1e", v);
    return;
  }
  default: Columns_number(Columns_value(r, c), buf, size); return;
  }
}

int Columns_compare(const Record *a, const Record *b, ColumnId c) {
  Columns_init();
  if (!Columns[c].numeric) {
    if (c == COL_STATUS) return (a->status > b->status) - (a->status < b->status);
    if (c == COL_SHAPE) {
      double fa = Shape_flops(&a->shape), fb = Shape_flops(&b->shape);
      return (fa > fb) - (fa < fb);
    }
    char x[RECORD_KNOBS_MAX], y[RECORD_KNOBS_MAX];
    Columns_format(a, c, x, sizeof x);
    Columns_format(b, c, y, sizeof y);
    return strcmp(x, y);
  }
  double x = Columns_value(a, c), y = Columns_value(b, c);
  if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
  return (x > y) - (x < y);
}

int Columns_delta(double base, double v, Direction dir, double *pct) {
  *pct = NAN;
  if (isnan(base) || isnan(v)) return 0;
  if (base != 0) *pct = (v - base) / fabs(base) * 100.0;
  else if (v == 0) *pct = 0;
  if (dir == DIR_NONE || v == base) return 0;
  /* Changes under 0.5 % are noise for timings; call them neither. */
  if (!isnan(*pct) && fabs(*pct) < 0.5) return 0;
  bool higher = v > base;
  return (dir == DIR_HIGHER) == higher ? 1 : -1;
}

static double Get_p50(const Record *r) { return r->timing.p50; }
static double Get_p90(const Record *r) { return r->timing.p90; }
static double Get_p99(const Record *r) { return r->timing.p99; }
static double Get_min(const Record *r) { return r->timing.min; }
static double Get_mean(const Record *r) { return r->timing.mean; }
static double Get_stddev(const Record *r) { return r->timing.stddev; }
static double Get_tflops(const Record *r) { return r->timing.tflops; }
static double Get_peak(const Record *r) { return r->timing.peak_frac * 100.0; }
static double Get_relerr(const Record *r) { return Columns_value(r, COL_RELERR); }
static double Get_maxabs(const Record *r) { return r->error.checked ? r->error.max_abs : NAN; }
static double Get_occTheo(const Record *r) { return r->occupancy_theoretical; }
static double Get_regs(const Record *r) { return Columns_int(r->build.regs); }
static double Get_smem(const Record *r) {
  if (r->build.smem_static < 0 && r->build.smem_dynamic < 0) return NAN;
  return (double)((r->build.smem_static > 0 ? r->build.smem_static : 0) +
                  (r->build.smem_dynamic > 0 ? r->build.smem_dynamic : 0));
}
static double Get_spills(const Record *r) { return Columns_spills(r); }
static double Get_smClock(const Record *r) { return r->clocks.sm_mhz_after; }

const CompareRow Columns_compareRows[] = {
  {"p50 us", DIR_LOWER, Get_p50},
  {"p90 us", DIR_LOWER, Get_p90},
  {"p99 us", DIR_LOWER, Get_p99},
  {"min us", DIR_LOWER, Get_min},
  {"mean us", DIR_LOWER, Get_mean},
  {"stddev us", DIR_LOWER, Get_stddev},
  {"TFLOP/s", DIR_HIGHER, Get_tflops},
  {"% of peak", DIR_HIGHER, Get_peak},
  {"rel L2 err", DIR_LOWER, Get_relerr},
  {"max abs err", DIR_LOWER, Get_maxabs},
  {"occ theor. %", DIR_HIGHER, Get_occTheo},
  {"registers", DIR_LOWER, Get_regs},
  {"smem bytes", DIR_NONE, Get_smem},
  {"spill bytes", DIR_LOWER, Get_spills},
  {"SM MHz", DIR_NONE, Get_smClock},
};
const int Columns_compareRowCount = (int)(sizeof Columns_compareRows / sizeof Columns_compareRows[0]);
