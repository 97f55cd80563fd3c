/* Column definitions and value formatting shared by the results, compare and detail views. */
#include "tui/columns.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "sessions/catalog.h"

const Column Columns[COL_COUNT] = {
  [COL_VARIANT] = {"variant", 9, DIR_NONE, false, "kernel variant", "variant"},
  [COL_KNOBS] = {"knobs", 12, DIR_NONE, false, "knob settings", "knobs"},
  [COL_SHAPE] = {"shape", 17, DIR_NONE, false, "BxHxSxD[:causal]", "shape"},
  [COL_STATUS] = {"pass", 5, DIR_NONE, false, "pass, FAIL, error, n/a, cancelled", "status"},
  [COL_P50] = {"p50 us", 8, DIR_LOWER, true, "median latency per launch", "p50"},
  [COL_P90] = {"p90 us", 8, DIR_LOWER, true, "90th percentile latency", "p90"},
  [COL_TFLOPS] = {"TFLOP/s", 7, DIR_HIGHER, true, "4*B*H*S^2*D / p50 (half when causal)",
                  "tflops"},
  [COL_RELERR] = {"rel err", 8, DIR_LOWER, true, "relative L2 error against the reference",
                  "relerr"},
  [COL_OCC] = {"occ %", 6, DIR_HIGHER, true, "achieved occupancy", "occ"},
  [COL_TENSOR] = {"tensor%", 7, DIR_HIGHER, true,
                  "tensor pipe busy with matrix instructions (Hopper), else incl. HFMA2.MMA moves",
                  "tensor"},
  [COL_BANK] = {"bank cf", 8, DIR_LOWER, true, "shared-memory bank conflicts, ld+st", "bank"},
  [COL_L2HIT] = {"L2 hit", 6, DIR_HIGHER, true, "L2 sector hit rate %", "l2hit"},
  [COL_REGS] = {"regs", 4, DIR_LOWER, true, "registers per thread", "regs"},
  [COL_SPILLS] = {"spill", 5, DIR_LOWER, true, "spill stores + loads (bytes)", "spills"},
};

int Columns_find(const char *key) {
  for (int c = 0; c < COL_COUNT; c++)
    if (strcmp(Columns[c].key, key) == 0) return c;
  return -1;
}

/* The headline metrics; the cupti catalog may know more, these are the ones the views use. */
static const ColumnMetric Columns_metrics[] = {
  {MET_OCC, "achieved occupancy", "%", DIR_HIGHER},
  {MET_TENSOR, "tensor pipe active", "%", DIR_HIGHER},
  {"sm__inst_executed_pipe_tensor_op_hmma.sum", "tensor instructions", "inst", DIR_NONE},
  {MET_BANK_LD, "bank conflicts (ld)", "", DIR_LOWER},
  {MET_BANK_ST, "bank conflicts (st)", "", DIR_LOWER},
  {MET_L2HIT, "L2 hit rate", "%", DIR_HIGHER},
  {MET_DURATION, "GPU duration", "ns", DIR_LOWER},
};

bool Columns_metricInfo(const char *name, ColumnMetric *out) {
  const MetricInfo *c = Catalog_find(name);
  if (c) {
    out->name = c->name;
    out->label = c->label;
    out->unit = c->unit;
    out->dir = c->direction == METRIC_HIGHER_BETTER  ? DIR_HIGHER
               : c->direction == METRIC_LOWER_BETTER ? DIR_LOWER
                                                     : DIR_NONE;
    return true;
  }
  for (size_t i = 0; i < sizeof Columns_metrics / sizeof Columns_metrics[0]; i++)
    if (strcmp(Columns_metrics[i].name, name) == 0) {
      *out = Columns_metrics[i];
      return true;
    }
  return false;
}

static double Columns_metric(const Record *r, const char *name) {
  const Metric *m = Record_metric(r, name);
  return m ? m->value : NAN;
}

/* The tensor column: matrix-only busy % where the record has it (Hopper), else the HMMA pipe's. */
static double Columns_tensor(const Record *r) {
  double mma = Columns_metric(r, CATALOG_TENSOR_MMA_PCT);
  return isnan(mma) ? Columns_metric(r, CATALOG_TENSOR_PCT) : mma;
}

static double Columns_bank(const Record *r) {
  double ld = Columns_metric(r, MET_BANK_LD), st = Columns_metric(r, MET_BANK_ST);
  if (isnan(ld) && isnan(st)) return NAN;
  return (isnan(ld) ? 0 : ld) + (isnan(st) ? 0 : st);
}

static double Columns_count(int v) { return v < 0 ? NAN : (double)v; }

static double Columns_spills(const Record *r) {
  if (r->build.spill_stores < 0 && r->build.spill_loads < 0) return NAN;
  return (double)((r->build.spill_stores > 0 ? r->build.spill_stores : 0) +
                  (r->build.spill_loads > 0 ? r->build.spill_loads : 0));
}

double Columns_value(const Record *r, ColumnId c) {
  switch (c) {
  case COL_P50: return r->timing.p50;
  case COL_P90: return r->timing.p90;
  case COL_TFLOPS: return r->timing.tflops;
  case COL_RELERR: return r->error.checked ? r->error.rel_l2 : NAN;
  case COL_OCC: return Columns_metric(r, MET_OCC);
  case COL_TENSOR: return Columns_tensor(r);
  case COL_BANK: return Columns_bank(r);
  case COL_L2HIT: return Columns_metric(r, MET_L2HIT);
  case COL_REGS: return Columns_count(r->build.regs);
  case COL_SPILLS: return Columns_spills(r);
  default: return NAN;
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
  case COL_KNOBS: snprintf(buf, size, "%s", r->knobs[0] ? r->knobs : "-"); return;
  case COL_SHAPE: Shape_format(&r->shape, buf, size); return;
  case COL_STATUS: {
    static const char *const words[] = {"pass", "FAIL", "error", "n/a", "cancl"};
    snprintf(buf, size, "%s", (unsigned)r->status < 5 ? words[r->status] : "?");
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
static double Get_occ(const Record *r) { return Columns_metric(r, MET_OCC); }
static double Get_occTheo(const Record *r) { return r->occupancy_theoretical; }
static double Get_tensor(const Record *r) { return Columns_tensor(r); }
static double Get_bankLd(const Record *r) { return Columns_metric(r, MET_BANK_LD); }
static double Get_bankSt(const Record *r) { return Columns_metric(r, MET_BANK_ST); }
static double Get_l2(const Record *r) { return Columns_metric(r, MET_L2HIT); }
static double Get_dur(const Record *r) { return Columns_metric(r, MET_DURATION) / 1000.0; }
static double Get_regs(const Record *r) { return Columns_count(r->build.regs); }
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
  {"occupancy %", DIR_HIGHER, Get_occ},
  {"occ theor. %", DIR_HIGHER, Get_occTheo},
  {"tensor pipe %", DIR_HIGHER, Get_tensor},
  {"bank cf ld", DIR_LOWER, Get_bankLd},
  {"bank cf st", DIR_LOWER, Get_bankSt},
  {"L2 hit %", DIR_HIGHER, Get_l2},
  {"GPU time us", DIR_LOWER, Get_dur},
  {"registers", DIR_LOWER, Get_regs},
  {"smem bytes", DIR_NONE, Get_smem},
  {"spill bytes", DIR_LOWER, Get_spills},
  {"SM MHz", DIR_NONE, Get_smClock},
};
const int Columns_compareRowCount = (int)(sizeof Columns_compareRows / sizeof Columns_compareRows[0]);
