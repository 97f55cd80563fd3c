/* benchtop diff: per-record changes between two sessions, as a table, JSON, CSV or Markdown
 * (see diff.h). */
#include "sessions/baseline.h"
#include "sessions/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/text_width.h"
#include "common/util.h"
#include "sessions/json_fields.h"
#include "sessions/knob_label.h"

void Diff_defaultOptions(DiffOptions *o) {
  memset(o, 0, sizeof *o);
  o->fail_above_pct = NAN;
  CompareStats_defaults(&o->stats);
  o->match.mode = MATCH_KEY;
}

/* The clock dp50_pct compares: "events" when the two records' clocks differ. */
static const char *Diff_clockName(const DiffPair *p) {
  return p->by_events || !Record_kernelClock(p->a) ? "events" : "kernel";
}

/* "variant knobs" of one side (knobs as their compact label), for pairs whose sides differ. */
static void Diff_label(const Record *r, char *buf, size_t size) {
  char knobs[RECORD_KNOBS_MAX];
  KnobLabel_compact(r->variant, r->knobs, knobs, sizeof knobs);
  snprintf(buf, size, "%s %s", r->variant, knobs);
}

/* The A and B cells of a pair: variant and knob label, or each side's "variant knobs". */
static void Diff_keyCells(const DiffPair *p, bool same_keys, char *a, char *b, size_t size) {
  if (same_keys) {
    snprintf(a, size, "%s", p->a->variant);
    KnobLabel_compact(p->a->variant, p->a->knobs, b, size);
  } else {
    Diff_label(p->a, a, size);
    Diff_label(p->b, b, size);
  }
}

/* One pair's metric changes, every column at once through an index of the column names (a
 * lookup per column and record would be quadratic in the names of a wide session). */
typedef struct DiffMetricRow {
  NameIndex index;
  double *a, *b, *delta; /* per column: A's value, B's, B - A */
  bool *held_a, *held_b;
} DiffMetricRow;

static void DiffMetricRow_init(DiffMetricRow *row, const MetricColumns *mc) {
  size_t n = (size_t)mc->n + 1;
  MetricColumns_index(mc, &row->index);
  row->a = Util_xcalloc(n, sizeof(double));
  row->b = Util_xcalloc(n, sizeof(double));
  row->delta = Util_xcalloc(n, sizeof(double));
  row->held_a = Util_xcalloc(n, sizeof(bool));
  row->held_b = Util_xcalloc(n, sizeof(bool));
}

static void DiffMetricRow_fill(DiffMetricRow *row, const MetricColumns *mc, const DiffPair *p) {
  MetricColumns_rowValues(mc, &row->index, p->a, row->a, row->held_a);
  MetricColumns_rowValues(mc, &row->index, p->b, row->b, row->held_b);
  for (int k = 0; k < mc->n; k++) row->delta[k] = row->b[k] - row->a[k];
}

static void DiffMetricRow_free(DiffMetricRow *row) {
  NameIndex_free(&row->index);
  free(row->a);
  free(row->b);
  free(row->delta);
  free(row->held_a);
  free(row->held_b);
}

/* The metric columns of every record in a pair. */
static void Diff_metricColumns(const DiffPairs *dp, bool brief_only, MetricColumns *mc) {
  const Record **recs = Util_xcalloc((size_t)dp->n * 2 + 1, sizeof *recs);
  int n = 0;
  for (int i = 0; i < dp->n; i++)
    if (dp->pair[i].a && dp->pair[i].b) {
      recs[n++] = dp->pair[i].a;
      recs[n++] = dp->pair[i].b;
    }
  MetricColumns_collect(mc, recs, n, brief_only);
  free(recs);
}

static cJSON *Diff_num(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static void Diff_jsonKey(cJSON *o, const Record *r, const char *suffix) {
  char key[32];
  snprintf(key, sizeof key, "variant%s", suffix);
  cJSON_AddStringToObject(o, key, r->variant);
  snprintf(key, sizeof key, "knobs%s", suffix);
  cJSON_AddStringToObject(o, key, r->knobs);
}

static void Diff_jsonPair(cJSON *o, const DiffPair *p, const MetricColumns *mc, DiffMetricRow *row) {
  Diff_jsonKey(o, p->b, "_b");
  cJSON_AddStringToObject(o, "status_a", Record_statusName(p->a->status));
  cJSON_AddStringToObject(o, "status_b", Record_statusName(p->b->status));
  cJSON_AddItemToObject(o, "p50_a", Diff_num(p->p50a));
  cJSON_AddItemToObject(o, "p50_b", Diff_num(p->p50b));
  cJSON_AddItemToObject(o, "dp50_pct", Diff_num(p->dp50_pct));
  if (p->cmp.verdict == VERDICT_NA) {
    cJSON_AddNullToObject(o, "dp50_ci_pct");
  } else {
    cJSON *ci = cJSON_AddArrayToObject(o, "dp50_ci_pct");
    cJSON_AddItemToArray(ci, Diff_num((p->cmp.lo - 1) * 100));
    cJSON_AddItemToArray(ci, Diff_num((p->cmp.hi - 1) * 100));
  }
  cJSON_AddStringToObject(o, "verdict", CompareStats_verdictName(p->cmp.verdict));
  if (p->cmp.reason[0]) cJSON_AddStringToObject(o, "verdict_note", p->cmp.reason);
  cJSON_AddStringToObject(o, "dp50_clock", Diff_clockName(p));
  cJSON_AddItemToObject(o, "rel_l2_a", Diff_num(p->a->error.rel_l2));
  cJSON_AddItemToObject(o, "rel_l2_b", Diff_num(p->b->error.rel_l2));
  cJSON_AddItemToObject(o, "drel_l2", Diff_num(p->drel));
  cJSON *m = cJSON_AddObjectToObject(o, "dmetrics");
  DiffMetricRow_fill(row, mc, p);
  for (int k = 0; k < mc->n; k++)
    if (row->held_a[k] || row->held_b[k])
      cJSON_AddItemToObject(m, mc->col[k].name, Diff_num(row->delta[k]));
  cJSON_AddBoolToObject(o, "changed", p->changed);
  cJSON_AddBoolToObject(o, "regression", p->regression);
}

static void Diff_printJson(FILE *out, const DiffPairs *dp, const DiffOptions *opt,
                           const DiffSummary *sum) {
  MetricColumns mc;
  Diff_metricColumns(dp, false, &mc);
  DiffMetricRow row;
  DiffMetricRow_init(&row, &mc);
  char how[1200];
  DiffMatch_describe(&opt->match, how, sizeof how);
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "match", how);
  cJSON_AddNumberToObject(root, "confidence", opt->stats.confidence);
  cJSON_AddNumberToObject(root, "margin_pct", opt->stats.margin * 100);
  cJSON_AddItemToObject(root, "fail_above_pct", Diff_num(opt->fail_above_pct));
  cJSON_AddNumberToObject(root, "regressions", sum->regressions);
  cJSON *counts = cJSON_AddObjectToObject(root, "verdicts");
  cJSON_AddNumberToObject(counts, "faster", sum->faster);
  cJSON_AddNumberToObject(counts, "slower", sum->slower);
  cJSON_AddNumberToObject(counts, "tied", sum->tied);
  cJSON_AddNumberToObject(counts, "n/a", sum->na);
  cJSON *matched = cJSON_AddArrayToObject(root, "matched");
  cJSON *only_a = cJSON_AddArrayToObject(root, "only_a");
  cJSON *only_b = cJSON_AddArrayToObject(root, "only_b");
  for (int i = 0; i < dp->n; i++) {
    const DiffPair *p = &dp->pair[i];
    const Record *r = p->a ? p->a : p->b;
    char shape[64];
    Shape_format(&r->shape, shape, sizeof shape);
    cJSON *o = cJSON_CreateObject();
    Diff_jsonKey(o, r, "");
    cJSON_AddStringToObject(o, "shape", shape);
    if (!p->a || !p->b) {
      cJSON_AddStringToObject(o, "status", Record_statusName(r->status));
      cJSON_AddItemToArray(p->a ? only_a : only_b, o);
      continue;
    }
    Diff_jsonPair(o, p, &mc, &row);
    cJSON_AddItemToArray(matched, o);
  }
  Export_printJson(out, root, true);
  fputc('\n', out);
  cJSON_Delete(root);
  DiffMetricRow_free(&row);
  MetricColumns_free(&mc);
}

static void Diff_csvNumber(FILE *out, double v) {
  char buf[40];
  if (isnan(v)) snprintf(buf, sizeof buf, "n/a");
  else Json_formatDouble(buf, sizeof buf, v);
  fprintf(out, ",%s", buf);
}

static void Diff_csvText(FILE *out, const char *text) {
  fputc(',', out);
  Export_writeField(out, FMT_CSV, text);
}

static void Diff_printCsv(FILE *out, const DiffPairs *dp) {
  MetricColumns mc;
  Diff_metricColumns(dp, false, &mc);
  DiffMetricRow row;
  DiffMetricRow_init(&row, &mc);
  fputs("match,variant,knobs,variant_b,knobs_b,shape,status_a,status_b,p50_a_us,p50_b_us,"
        "dp50_pct,dp50_ci_low_pct,dp50_ci_high_pct,verdict,rel_l2_a,rel_l2_b,drel_l2", out);
  for (int k = 0; k < mc.n; k++) {
    char head[METRIC_NAME_MAX + 4];
    snprintf(head, sizeof head, "d:%s", mc.col[k].name);
    Diff_csvText(out, head);
  }
  fputs(",dp50_clock,regression\n", out);
  for (int i = 0; i < dp->n; i++) {
    const DiffPair *p = &dp->pair[i];
    const Record *r = p->a ? p->a : p->b;
    bool both = p->a && p->b;
    char shape[64];
    Shape_format(&r->shape, shape, sizeof shape);
    fputs(both ? "both" : p->a ? "only_a" : "only_b", out);
    Diff_csvText(out, r->variant);
    Diff_csvText(out, r->knobs);
    Diff_csvText(out, both ? p->b->variant : "");
    Diff_csvText(out, both ? p->b->knobs : "");
    fprintf(out, ",%s,%s,%s", shape, p->a ? Record_statusName(p->a->status) : "",
            p->b ? Record_statusName(p->b->status) : "");
    bool ci = both && p->cmp.verdict != VERDICT_NA;
    double v[6] = {p->a ? p->a->timing.p50 : NAN, p->b ? p->b->timing.p50 : NAN,
                   both ? p->dp50_pct : NAN, ci ? (p->cmp.lo - 1) * 100 : NAN,
                   ci ? (p->cmp.hi - 1) * 100 : NAN};
    if (both) v[0] = p->p50a, v[1] = p->p50b;
    for (int k = 0; k < 5; k++) Diff_csvNumber(out, v[k]);
    fprintf(out, ",%s", both ? CompareStats_verdictName(p->cmp.verdict) : "");
    Diff_csvNumber(out, p->a ? p->a->error.rel_l2 : NAN);
    Diff_csvNumber(out, p->b ? p->b->error.rel_l2 : NAN);
    Diff_csvNumber(out, both ? p->drel : NAN);
    if (both) DiffMetricRow_fill(&row, &mc, p);
    for (int k = 0; k < mc.n; k++) Diff_csvNumber(out, both ? row.delta[k] : NAN);
    fprintf(out, ",%s,%s\n", both ? Diff_clockName(p) : "", p->regression ? "yes" : "no");
  }
  DiffMetricRow_free(&row);
  MetricColumns_free(&mc);
}

/* Signed change of a metric: percentages as points, counts compactly. */
static void Diff_fmtDelta(char *buf, size_t size, double d, const char *unit) {
  if (isnan(d)) {
    snprintf(buf, size, "n/a");
    return;
  }
  char tmp[32];
  Export_fmtMetric(tmp, sizeof tmp, fabs(d), unit, false);
  snprintf(buf, size, "%s%s", d < 0 ? "-" : d > 0 ? "+" : "", tmp);
}

/* Table and Markdown cell: text padded (or for text columns cut with '~') to width. */
static void Diff_cell(FILE *out, bool md, const char *text, int width, bool left, bool first) {
  if (md) {
    fputc(' ', out);
    Export_writeField(out, FMT_MD, text);
    fputs(" |", out);
    return;
  }
  if (!first) fputc(' ', out);
  char safe[RECORD_KNOBS_MAX + RECORD_NAME_MAX + 8]; /* record fields come from files */
  text = Text_sanitize(safe, sizeof safe, text);
  Export_padded(out, text, width, left);
}

enum { D_A, D_B, D_SHAPE, D_STATUS, D_P50A, D_P50B, D_CHANGE, D_VERDICT, D_REL, D_NCOLS };

/* Table and Markdown: one row per matched pair, then the unmatched records. */
static void Diff_printRows(FILE *out, OutputFormat fmt, const DiffPairs *dp, bool wide,
                           bool same_keys, const Session *b) {
  bool md = fmt == FMT_MD;
  /* B's records over B's cudnn record of their problem (baseline.h), when B holds one */
  bool base = Baseline_present(b->records, b->nrecords);
  MetricColumns mc;
  Diff_metricColumns(dp, Export_briefMetrics(fmt, wide), &mc);
  DiffMetricRow row;
  DiffMetricRow_init(&row, &mc);
  const char *heads[D_NCOLS] = {same_keys ? "variant" : "A", same_keys ? "knobs" : "B", "shape",
                                "status", "p50 A", "p50 B", "Δp50 [95% CI]", "verdict",
                                "Δrel err"};
  int w[D_NCOLS] = {9, 5, 15, 9, 8, 8, 22, 7, 9};
  for (int i = 0; i < dp->n; i++) { /* the key columns fit their labels: never cut */
    if (!dp->pair[i].a || !dp->pair[i].b) continue;
    char ka[RECORD_KNOBS_MAX + RECORD_NAME_MAX + 8], kb[sizeof ka];
    Diff_keyCells(&dp->pair[i], same_keys, ka, kb, sizeof ka);
    if (Text_width(ka) > w[D_A]) w[D_A] = Text_width(ka);
    if (Text_width(kb) > w[D_B]) w[D_B] = Text_width(kb);
    char shape[96];
    Shape_formatCompact(&dp->pair[i].a->shape, shape, sizeof shape);
    if ((int)strlen(shape) > w[D_SHAPE]) w[D_SHAPE] = (int)strlen(shape);
  }
  if (md) fputs("|", out);
  for (int c = 0; c < D_NCOLS; c++) Diff_cell(out, md, heads[c], w[c], c < D_P50A || c == D_VERDICT, c == 0);
  for (int k = 0; k < mc.n; k++) {
    char head[METRIC_NAME_MAX + 4];
    snprintf(head, sizeof head, "Δ%s", mc.col[k].label);
    Diff_cell(out, md, head, 8, false, false);
  }
  if (base) Diff_cell(out, md, "B vs " BASELINE_VARIANT, 10, false, false);
  fputc('\n', out);
  if (md) {
    fputs("| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: |", out);
    for (int k = 0; k < mc.n; k++) fputs(" ---: |", out);
    if (base) fputs(" ---: |", out);
    fputc('\n', out);
  }
  for (int i = 0; i < dp->n; i++) {
    const DiffPair *p = &dp->pair[i];
    if (!p->a || !p->b) continue;
    char c[D_NCOLS][RECORD_KNOBS_MAX + RECORD_NAME_MAX + 8];
    Diff_keyCells(p, same_keys, c[D_A], c[D_B], sizeof c[D_A]);
    if (md) Shape_format(&p->a->shape, c[D_SHAPE], sizeof c[D_SHAPE]);
    else Shape_formatCompact(&p->a->shape, c[D_SHAPE], sizeof c[D_SHAPE]);
    if (p->a->status == p->b->status)
      snprintf(c[D_STATUS], sizeof c[D_STATUS], "%s", Record_statusName(p->b->status));
    else
      snprintf(c[D_STATUS], sizeof c[D_STATUS], "%s>%s", Record_statusName(p->a->status),
               Record_statusName(p->b->status));
    Export_fmtTime(c[D_P50A], sizeof c[D_P50A], p->p50a);
    Export_fmtTime(c[D_P50B], sizeof c[D_P50B], p->p50b);
    char change[96];
    Comparison shown = p->cmp;
    if (isnan(shown.ratio) && !isnan(p->dp50_pct)) shown.ratio = 1 + p->dp50_pct / 100;
    CompareStats_formatChange(&shown, change, sizeof change);
    snprintf(c[D_CHANGE], sizeof c[D_CHANGE], "%s%s%s", change, p->by_events ? "e" : "",
             p->regression ? "!" : "");
    snprintf(c[D_VERDICT], sizeof c[D_VERDICT], "%s", CompareStats_verdictName(p->cmp.verdict));
    if (isnan(p->drel)) snprintf(c[D_REL], sizeof c[D_REL], "n/a");
    else snprintf(c[D_REL], sizeof c[D_REL], "%+.1e", p->drel);
    if (md) fputs("|", out);
    for (int k = 0; k < D_NCOLS; k++) Diff_cell(out, md, c[k], w[k], k < D_P50A || k == D_VERDICT, k == 0);
    DiffMetricRow_fill(&row, &mc, p);
    for (int k = 0; k < mc.n; k++) {
      char d[48];
      Diff_fmtDelta(d, sizeof d, row.delta[k], mc.col[k].unit);
      char head[METRIC_NAME_MAX + 4];
      int hw = snprintf(head, sizeof head, "Δ%s", mc.col[k].label) - 1;
      Diff_cell(out, md, d, hw > 8 ? hw : 8, false, false);
    }
    if (base) {
      char r[32];
      double v = Baseline_ratio(p->b, b->records, b->nrecords);
      if (isnan(v)) snprintf(r, sizeof r, "-");
      else snprintf(r, sizeof r, "%.2fx", v);
      Diff_cell(out, md, r, 10, false, false);
    }
    fputc('\n', out);
  }
  for (int i = 0; i < dp->n; i++) {
    const DiffPair *p = &dp->pair[i];
    if (p->a && p->b) continue;
    const Record *r = p->a ? p->a : p->b;
    char shape[64], t[32];
    Shape_format(&r->shape, shape, sizeof shape);
    Export_fmtTime(t, sizeof t, r->timing.p50);
    char variant[RECORD_NAME_MAX], knobs[RECORD_KNOBS_MAX];
    Text_sanitize(variant, sizeof variant, r->variant);
    Text_sanitize(knobs, sizeof knobs, r->knobs[0] ? r->knobs : "-");
    fprintf(out, "%sonly in %s: %s %s %s (%s, p50 %s us)\n", md ? "- " : "", p->a ? "A" : "B",
            variant, knobs, shape, Record_statusName(r->status), t);
  }
  DiffMetricRow_free(&row);
  MetricColumns_free(&mc);
}

static void Diff_printSummary(FILE *out, OutputFormat fmt, const DiffPairs *dp,
                              const DiffOptions *o, const DiffSummary *s) {
  char how[1200];
  DiffMatch_describe(&o->match, how, sizeof how);
  if (fmt == FMT_MD) fputc('\n', out);
  if (s->matched == 0) {
    fprintf(out, "nothing matched (records are paired by %s): %d only in A, %d only in B",
            how, s->only_a, s->only_b);
  } else {
    fprintf(out, "%d matched by %s: %d slower, %d faster, %d tied, %d n/a (95%% interval of the "
                 "p50 ratio, margin %g%%); %d only in A, %d only in B",
            s->matched, how, s->slower, s->faster, s->tied, s->na, o->stats.margin * 100,
            s->only_a, s->only_b);
    if (!s->changed && !s->only_a && !s->only_b) fputs(": no change", out);
  }
  if (s->outside) fprintf(out, "; %d record%s outside --match", s->outside, s->outside == 1 ? "" : "s");
  int mixed = 0;
  for (int i = 0; i < dp->n; i++) mixed += dp->pair[i].a && dp->pair[i].b && dp->pair[i].by_events;
  if (mixed)
    fprintf(out, "; %d compared by CUDA events (e: one session timed by kernel timestamps, the "
                 "other by events)", mixed);
  if (!isnan(o->fail_above_pct))
    fprintf(out, "; %d regression%s (p50 interval above +%g%%, or no longer passing)",
            s->regressions, s->regressions == 1 ? "" : "s", o->fail_above_pct);
  fputc('\n', out);
}

void Diff_print(FILE *out, const Session *a, const Session *b, const DiffOptions *o,
                OutputFormat fmt, DiffSummary *sum) {
  DiffPairs dp;
  DiffPairs_make(&dp, a, b, &o->match, &o->stats, o->fail_above_pct);
  DiffSummary s;
  memset(&s, 0, sizeof s);
  s.outside = dp.outside;
  bool same_keys = true;
  for (int i = 0; i < dp.n; i++) {
    const DiffPair *p = &dp.pair[i];
    if (!p->a || !p->b) {
      s.only_a += p->a != NULL;
      s.only_b += p->b != NULL;
      continue;
    }
    s.matched++;
    s.regressions += p->regression;
    s.changed += p->changed;
    s.faster += p->cmp.verdict == VERDICT_FASTER;
    s.slower += p->cmp.verdict == VERDICT_SLOWER;
    s.tied += p->cmp.verdict == VERDICT_TIED;
    s.na += p->cmp.verdict == VERDICT_NA;
    same_keys = same_keys && Record_sameKey(p->a, p->b);
  }
  if (fmt == FMT_JSON) Diff_printJson(out, &dp, o, &s);
  else if (fmt == FMT_CSV) Diff_printCsv(out, &dp);
  else {
    Diff_printRows(out, fmt, &dp, o->wide, same_keys, b);
    Diff_printSummary(out, fmt, &dp, o, &s);
  }
  fflush(out);
  DiffPairs_free(&dp);
  if (sum) *sum = s;
}
