/* benchtop diff: per-record deltas between two sessions (see diff.h). */
#include "sessions/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "sessions/json_fields.h"

typedef struct DiffPair {
  const Record *a, *b; /* either may be NULL: only in the other session */
  double p50a, p50b;   /* the p50s compared: by one clock on both sides */
  double dp50_pct, drel;
  bool by_events;      /* the records' clocks differ: compared by their CUDA-event p50s */
  bool regression, changed;
} DiffPair;

typedef struct KeyIndex {
  const Record *r;
  int idx;
} KeyIndex;

static int Diff_cmpKey(const Record *x, const Record *y) {
  int c = strcmp(x->variant, y->variant);
  if (c) return c;
  if ((c = strcmp(x->knobs, y->knobs))) return c;
  const int kx[5] = {x->shape.B, x->shape.H, x->shape.S, x->shape.D, x->shape.causal};
  const int ky[5] = {y->shape.B, y->shape.H, y->shape.S, y->shape.D, y->shape.causal};
  for (int i = 0; i < 5; i++)
    if (kx[i] != ky[i]) return kx[i] < ky[i] ? -1 : 1;
  return 0;
}

static int Diff_cmpIndex(const void *p, const void *q) {
  const KeyIndex *x = p, *y = q;
  int c = Diff_cmpKey(x->r, y->r);
  return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static double Diff_metric(const Record *r, const char *name) {
  const Metric *m = r ? Record_metric(r, name) : NULL;
  return m ? m->value : NAN;
}

static bool Diff_same(double x, double y) { return x == y || (isnan(x) && isnan(y)); }

/* The clock dp50_pct compares: "events" when the two records' clocks differ. */
static const char *Diff_clockName(const DiffPair *p) {
  return p->by_events || !Record_kernelClock(p->a) ? "events" : "kernel";
}

static void Diff_compare(DiffPair *p, double fail_above_pct) {
  const Record *a = p->a, *b = p->b;
  /* Kernel timestamps against events would show the launch latency as a change. */
  p->by_events = Record_comparableP50(a, b, &p->p50a, &p->p50b);
  p->dp50_pct = (p->p50a > 0 && !isnan(p->p50b)) ? (p->p50b - p->p50a) / p->p50a * 100.0 : NAN;
  p->drel = b->error.rel_l2 - a->error.rel_l2;
  p->changed = a->status != b->status || !Diff_same(a->timing.p50, b->timing.p50) ||
               !Diff_same(a->timing.p90, b->timing.p90) ||
               !Diff_same(a->error.rel_l2, b->error.rel_l2);
  for (int i = 0; i < Export_headlineCount && !p->changed; i++)
    p->changed = !Diff_same(Diff_metric(a, Export_headlineMetrics[i]),
                            Diff_metric(b, Export_headlineMetrics[i]));
  if (isnan(fail_above_pct)) return;
  p->regression = (!isnan(p->dp50_pct) && p->dp50_pct > fail_above_pct) ||
                  (a->status == REC_PASS && b->status != REC_PASS);
}

/* Pairs in a's order, then b's leftovers. */
static DiffPair *Diff_match(const Session *a, const Session *b, double fail_above_pct, int *n) {
  KeyIndex *idx = Util_xcalloc((size_t)b->nrecords + 1, sizeof(KeyIndex));
  bool *used = Util_xcalloc((size_t)b->nrecords + 1, sizeof(bool));
  for (int i = 0; i < b->nrecords; i++) idx[i] = (KeyIndex){&b->records[i], i};
  qsort(idx, (size_t)b->nrecords, sizeof(KeyIndex), Diff_cmpIndex);
  DiffPair *pairs = Util_xcalloc((size_t)a->nrecords + (size_t)b->nrecords + 1, sizeof(DiffPair));
  int np = 0;
  for (int i = 0; i < a->nrecords; i++) {
    const Record *ra = &a->records[i];
    int lo = 0, hi = b->nrecords;
    while (lo < hi) { /* first entry with key >= ra's */
      int mid = lo + (hi - lo) / 2;
      if (Diff_cmpKey(idx[mid].r, ra) < 0) lo = mid + 1;
      else hi = mid;
    }
    while (lo < b->nrecords && Diff_cmpKey(idx[lo].r, ra) == 0 && used[idx[lo].idx]) lo++;
    DiffPair *p = &pairs[np++];
    p->a = ra;
    if (lo < b->nrecords && Diff_cmpKey(idx[lo].r, ra) == 0) {
      used[idx[lo].idx] = true;
      p->b = idx[lo].r;
      Diff_compare(p, fail_above_pct);
    }
  }
  for (int i = 0; i < b->nrecords; i++)
    if (!used[i]) pairs[np++].b = &b->records[i];
  free(idx);
  free(used);
  *n = np;
  return pairs;
}

/* Signed delta of a value that may be n/a. */
static void Diff_fmtDelta(char *buf, size_t size, double d, int digits, bool count) {
  if (isnan(d)) snprintf(buf, size, "n/a");
  else if (count) {
    char tmp[32];
    Export_fmtCount(tmp, sizeof tmp, fabs(d));
    snprintf(buf, size, "%s%s", d < 0 ? "-" : d > 0 ? "+" : "", tmp);
  } else snprintf(buf, size, "%+.*f", digits, d);
}

static const struct {
  const char *head;
  const char *metric;
  bool count;
} Diff_metricCols[] = {
  {"Δocc", METRIC_OCCUPANCY, false},  {"Δtc%", METRIC_TENSOR_PCT, false},
  {"Δbk-ld", METRIC_BANK_LD, true},  {"Δbk-st", METRIC_BANK_ST, true},
  {"ΔL2%", METRIC_L2_HIT, false},
};
#define DIFF_NMETRICCOLS 5

static void Diff_jsonRecordKey(cJSON *o, const Record *r) {
  char shape[64];
  Shape_format(&r->shape, shape, sizeof shape);
  cJSON_AddStringToObject(o, "variant", r->variant);
  cJSON_AddStringToObject(o, "knobs", r->knobs);
  cJSON_AddStringToObject(o, "shape", shape);
}

static cJSON *Diff_num(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static void Diff_printJson(FILE *out, const DiffPair *pairs, int n, double pct, int regressions) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddItemToObject(root, "fail_above_pct", Diff_num(pct));
  cJSON_AddNumberToObject(root, "regressions", regressions);
  cJSON *matched = cJSON_AddArrayToObject(root, "matched");
  cJSON *only_a = cJSON_AddArrayToObject(root, "only_a");
  cJSON *only_b = cJSON_AddArrayToObject(root, "only_b");
  for (int i = 0; i < n; i++) {
    const DiffPair *p = &pairs[i];
    cJSON *o = cJSON_CreateObject();
    Diff_jsonRecordKey(o, p->a ? p->a : p->b);
    if (!p->a || !p->b) {
      cJSON_AddStringToObject(o, "status", Record_statusName((p->a ? p->a : p->b)->status));
      cJSON_AddItemToArray(p->a ? only_a : only_b, o);
      continue;
    }
    cJSON_AddStringToObject(o, "status_a", Record_statusName(p->a->status));
    cJSON_AddStringToObject(o, "status_b", Record_statusName(p->b->status));
    cJSON_AddItemToObject(o, "p50_a", Diff_num(p->a->timing.p50));
    cJSON_AddItemToObject(o, "p50_b", Diff_num(p->b->timing.p50));
    cJSON_AddItemToObject(o, "dp50_pct", Diff_num(p->dp50_pct));
    cJSON_AddStringToObject(o, "dp50_clock", Diff_clockName(p));
    cJSON_AddItemToObject(o, "rel_l2_a", Diff_num(p->a->error.rel_l2));
    cJSON_AddItemToObject(o, "rel_l2_b", Diff_num(p->b->error.rel_l2));
    cJSON_AddItemToObject(o, "drel_l2", Diff_num(p->drel));
    cJSON *m = cJSON_AddObjectToObject(o, "dmetrics");
    for (int k = 0; k < Export_headlineCount; k++) {
      const char *name = Export_headlineMetrics[k];
      double d = Diff_metric(p->b, name) - Diff_metric(p->a, name);
      if (Record_metric(p->a, name) || Record_metric(p->b, name))
        cJSON_AddItemToObject(m, name, Diff_num(d));
    }
    cJSON_AddBoolToObject(o, "changed", p->changed);
    cJSON_AddBoolToObject(o, "regression", p->regression);
    cJSON_AddItemToArray(matched, o);
  }
  char *text = cJSON_Print(root);
  if (text) fprintf(out, "%s\n", text);
  cJSON_free(text);
  cJSON_Delete(root);
}

static void Diff_csvNumber(FILE *out, double v) {
  char buf[40];
  if (isnan(v)) snprintf(buf, sizeof buf, "n/a");
  else Json_formatDouble(buf, sizeof buf, v);
  fprintf(out, ",%s", buf);
}

static void Diff_printCsv(FILE *out, const DiffPair *pairs, int n) {
  fputs("match,variant,knobs,shape,status_a,status_b,p50_a_us,p50_b_us,dp50_pct,rel_l2_a,"
        "rel_l2_b,drel_l2", out);
  for (int k = 0; k < Export_headlineCount; k++) fprintf(out, ",d:%s", Export_headlineMetrics[k]);
  fputs(",dp50_clock,regression\n", out);
  for (int i = 0; i < n; i++) {
    const DiffPair *p = &pairs[i];
    const Record *r = p->a ? p->a : p->b;
    char shape[64];
    Shape_format(&r->shape, shape, sizeof shape);
    fputs(p->a && p->b ? "both," : p->a ? "only_a," : "only_b,", out);
    Export_writeField(out, FMT_CSV, r->variant);
    fputc(',', out);
    Export_writeField(out, FMT_CSV, r->knobs);
    fprintf(out, ",%s,%s,%s", shape, p->a ? Record_statusName(p->a->status) : "",
            p->b ? Record_statusName(p->b->status) : "");
    double v[5] = {p->a ? p->a->timing.p50 : NAN, p->b ? p->b->timing.p50 : NAN,
                   p->a && p->b ? p->dp50_pct : NAN, p->a ? p->a->error.rel_l2 : NAN,
                   p->b ? p->b->error.rel_l2 : NAN};
    for (int k = 0; k < 5; k++) Diff_csvNumber(out, v[k]);
    Diff_csvNumber(out, p->a && p->b ? p->drel : NAN);
    for (int k = 0; k < Export_headlineCount; k++)
      Diff_csvNumber(out, Diff_metric(p->b, Export_headlineMetrics[k]) -
                              Diff_metric(p->a, Export_headlineMetrics[k]));
    fprintf(out, ",%s,%s\n",
            p->a && p->b ? Diff_clockName(p) : "",
            p->regression ? "yes" : "no");
  }
}

/* Table and Markdown: one row per matched record, then the unmatched ones. */
static void Diff_printRows(FILE *out, OutputFormat fmt, const DiffPair *pairs, int n,
                           bool metric_cols[DIFF_NMETRICCOLS]) {
  bool md = fmt == FMT_MD;
  const char *heads[] = {"variant", "knobs", "shape", "status", "p50 A", "p50 B", "Δp50", "Δrel err"};
  const int widths[] = {9, 14, 15, 9, 8, 8, 8, 9};
  if (md) fputs("|", out);
  for (int c = 0; c < 8; c++) {
    if (md) fprintf(out, " %s |", heads[c]);
    /* Δ is 2 bytes and 1 column: pad by display width. */
    else fprintf(out, c == 0 ? "%-*s" : c < 4 ? " %-*s" : " %*s",
                 widths[c] + (strstr(heads[c], "Δ") ? 1 : 0), heads[c]);
  }
  for (int k = 0; k < DIFF_NMETRICCOLS; k++)
    if (metric_cols[k]) md ? fprintf(out, " %s |", Diff_metricCols[k].head)
                          : fprintf(out, " %*s", 9, Diff_metricCols[k].head);
  fputc('\n', out);
  if (md) {
    fputs("| --- | --- | --- | --- | ---: | ---: | ---: | ---: |", out);
    for (int k = 0; k < DIFF_NMETRICCOLS; k++) if (metric_cols[k]) fputs(" ---: |", out);
    fputc('\n', out);
  }
  for (int i = 0; i < n; i++) {
    const DiffPair *p = &pairs[i];
    if (!p->a || !p->b) continue;
    char shape[64], status[32], c[8][RECORD_KNOBS_MAX + 8];
    Shape_format(&p->a->shape, shape, sizeof shape);
    if (p->a->status == p->b->status) snprintf(status, sizeof status, "%s", Record_statusName(p->b->status));
    else snprintf(status, sizeof status, "%s>%s", Record_statusName(p->a->status), Record_statusName(p->b->status));
    snprintf(c[0], sizeof c[0], "%s", p->a->variant);
    snprintf(c[1], sizeof c[1], "%s", p->a->knobs[0] ? p->a->knobs : "-");
    snprintf(c[2], sizeof c[2], "%s", shape);
    snprintf(c[3], sizeof c[3], "%s", status);
    Export_fmtTime(c[4], sizeof c[4], p->p50a);
    Export_fmtTime(c[5], sizeof c[5], p->p50b);
    if (isnan(p->dp50_pct)) snprintf(c[6], sizeof c[6], "n/a");
    else snprintf(c[6], sizeof c[6], "%+.1f%%%s%s", p->dp50_pct, p->by_events ? "e" : "",
                  p->regression ? "!" : "");
    if (isnan(p->drel)) snprintf(c[7], sizeof c[7], "n/a");
    else snprintf(c[7], sizeof c[7], "%+.1e", p->drel);
    if (!md && p->a->shape.causal) { char *s = strstr(c[2], ":causal"); if (s) s[2] = '\0'; }
    if (md) fputs("|", out);
    for (int k = 0; k < 8; k++) {
      if (md) { fputc(' ', out); Export_writeField(out, FMT_MD, c[k]); fputs(" |", out); continue; }
      if (k < 3 && (int)strlen(c[k]) > widths[k]) fprintf(out, "%s%.*s~", k ? " " : "", widths[k] - 1, c[k]);
      else fprintf(out, k == 0 ? "%-*s" : k < 4 ? " %-*s" : " %*s", widths[k], c[k]);
    }
    for (int k = 0; k < DIFF_NMETRICCOLS; k++) {
      if (!metric_cols[k]) continue;
      char d[48];
      Diff_fmtDelta(d, sizeof d, Diff_metric(p->b, Diff_metricCols[k].metric) -
                    Diff_metric(p->a, Diff_metricCols[k].metric), 1, Diff_metricCols[k].count);
      md ? fprintf(out, " %s |", d) : fprintf(out, " %8s", d);
    }
    fputc('\n', out);
  }
  for (int i = 0; i < n; i++) {
    const DiffPair *p = &pairs[i];
    if (p->a && p->b) continue;
    const Record *r = p->a ? p->a : p->b;
    char shape[64], t[32];
    Shape_format(&r->shape, shape, sizeof shape);
    Export_fmtTime(t, sizeof t, r->timing.p50);
    fprintf(out, "%sonly in %s: %s %s %s (%s, p50 %s us)\n", md ? "- " : "", p->a ? "A" : "B",
            r->variant, r->knobs[0] ? r->knobs : "-", shape, Record_statusName(r->status), t);
  }
}

int Diff_print(FILE *out, const Session *a, const Session *b, double fail_above_pct,
               OutputFormat fmt) {
  int n = 0, regressions = 0, matched = 0, only_a = 0, only_b = 0, changed = 0;
  DiffPair *pairs = Diff_match(a, b, fail_above_pct, &n);
  bool metric_cols[DIFF_NMETRICCOLS] = {false};
  for (int i = 0; i < n; i++) {
    const DiffPair *p = &pairs[i];
    if (p->a && p->b) {
      matched++;
      regressions += p->regression;
      changed += p->changed;
      for (int k = 0; k < DIFF_NMETRICCOLS; k++)
        metric_cols[k] = metric_cols[k] || !isnan(Diff_metric(p->a, Diff_metricCols[k].metric)) ||
                         !isnan(Diff_metric(p->b, Diff_metricCols[k].metric));
    } else if (p->a) {
      only_a++;
    } else {
      only_b++;
    }
  }
  if (fmt == FMT_JSON) Diff_printJson(out, pairs, n, fail_above_pct, regressions);
  else if (fmt == FMT_CSV) Diff_printCsv(out, pairs, n);
  else {
    Diff_printRows(out, fmt, pairs, n, metric_cols);
    fprintf(out, "%s%d matched (%d changed), %d only in A, %d only in B", fmt == FMT_MD ? "\n" : "",
            matched, changed, only_a, only_b);
    if (!changed && !only_a && !only_b) fputs(": no change", out);
    int mixed = 0;
    for (int i = 0; i < n; i++) mixed += pairs[i].a && pairs[i].b && pairs[i].by_events;
    if (mixed)
      fprintf(out, "; %d compared by CUDA events (e: one session timed by kernel timestamps, the "
                   "other by events)", mixed);
    if (!isnan(fail_above_pct))
      fprintf(out, "; %d regression%s (p50 slower than +%g%% or no longer passing)", regressions,
              regressions == 1 ? "" : "s", fail_above_pct);
    fputc('\n', out);
  }
  fflush(out);
  free(pairs);
  return regressions;
}
