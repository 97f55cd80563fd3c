/* The JSON and text forms of tune summaries (sessions/tune_summary.h). */
#include "sessions/tune_summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "sessions/json_fields.h"

static const JsonField Summary_fields[] = {
  {"variant", JF_STR, offsetof(TuneSummary, variant), RECORD_NAME_MAX, true},
  JSON_FIELD(TuneSummary, strategy, JF_STR),
  JSON_FIELD(TuneSummary, budget, JF_INT),
  JSON_FIELD(TuneSummary, space, JF_INT),
  JSON_FIELD(TuneSummary, refused, JF_INT),
  JSON_FIELD(TuneSummary, configs, JF_INT),
  JSON_FIELD(TuneSummary, measured, JF_INT),
  JSON_FIELD(TuneSummary, failed, JF_INT),
  JSON_FIELD(TuneSummary, remeasured, JF_INT),
  JSON_FIELD(TuneSummary, cross, JF_INT),
  JSON_FIELD(TuneSummary, winner, JF_INT),
  JSON_FIELD(TuneSummary, winner_knobs, JF_STR),
  JSON_FIELD(TuneSummary, winner_p50, JF_DOUBLE),
  JSON_FIELD(TuneSummary, runner_up, JF_STR),
  JSON_FIELD(TuneSummary, runner_up_p50, JF_DOUBLE),
  JSON_FIELD(TuneSummary, lead, JF_DOUBLE),
  JSON_FIELD(TuneSummary, lead_lo, JF_DOUBLE),
  JSON_FIELD(TuneSummary, lead_hi, JF_DOUBLE),
  JSON_FIELD(TuneSummary, verdict, JF_STR),
  JSON_FIELD(TuneSummary, tied, JF_INT),
  JSON_FIELD(TuneSummary, complete, JF_BOOL),
  JSON_FIELD(TuneSummary, note, JF_STR),
};

static const JsonField Overall_fields[] = {
  {"variant", JF_STR, offsetof(TuneOverall, variant), RECORD_NAME_MAX, true},
  {"knobs", JF_STR, offsetof(TuneOverall, knobs), RECORD_KNOBS_MAX, true},
  JSON_FIELD(TuneOverall, geomean, JF_DOUBLE),
};

void TuneSummary_init(TuneSummary *t) {
  memset(t, 0, sizeof *t);
  t->budget = t->space = t->refused = t->configs = t->measured = t->failed = t->remeasured = -1;
  t->cross = -1;
  t->winner = t->tied = -1;
  t->winner_p50 = t->runner_up_p50 = t->lead = t->lead_lo = t->lead_hi = NAN;
}

cJSON *TuneSummary_toJson(const TuneSummary *t) {
  cJSON *o = cJSON_CreateObject();
  char shape[64];
  Shape_format(&t->shape, shape, sizeof shape);
  cJSON_AddStringToObject(o, "shape", shape);
  JsonFields_write(o, t, Summary_fields, JSON_COUNT(Summary_fields));
  return o;
}

bool TuneSummary_fromJson(const cJSON *j, TuneSummary *out, const Record *records, int nrecords,
                          const char *path, char *err, size_t errsize) {
  TuneSummary_init(out);
  if (!Json_expectObject(j, path, err, errsize) ||
      !Json_readShape(j, "shape", &out->shape, path, err, errsize) ||
      !JsonFields_read(j, out, Summary_fields, JSON_COUNT(Summary_fields), path, err, errsize))
    return false;
  if (out->winner >= nrecords || out->winner < -1) {
    snprintf(err, errsize, "%s.winner: record %d does not exist (%d records)", path, out->winner,
             nrecords);
    return false;
  }
  /* A winner is a record of the summary's own variant and shape: the tuned table takes its
   * source hash and clock from it. */
  const Record *w = out->winner >= 0 ? &records[out->winner] : NULL;
  if (w && (strcmp(w->variant, out->variant) != 0 || !Shape_equal(&w->shape, &out->shape))) {
    char shape[64];
    Shape_format(&w->shape, shape, sizeof shape);
    snprintf(err, errsize, "%s.winner: record %d is %.32s at %s, not this summary's %.32s", path,
             out->winner, w->variant, shape, out->variant);
    Json_oneLine(err);
    return false;
  }
  return true;
}

bool TuneSummary_equal(const TuneSummary *a, const TuneSummary *b, const char *path, char *where,
                       size_t wsize) {
  if (!Shape_equal(&a->shape, &b->shape)) {
    Json_join(where, wsize, path, "shape");
    return false;
  }
  return JsonFields_equal(a, b, Summary_fields, JSON_COUNT(Summary_fields), path, where, wsize);
}

cJSON *TuneOverall_toJson(const TuneOverall *o) {
  cJSON *j = JsonFields_object(o, Overall_fields, JSON_COUNT(Overall_fields));
  cJSON *arr = cJSON_AddArrayToObject(j, "shapes");
  for (int i = 0; i < o->nshapes; i++) {
    cJSON *s = cJSON_CreateObject();
    char shape[64];
    Shape_format(&o->shapes[i], shape, sizeof shape);
    cJSON_AddStringToObject(s, "shape", shape);
    cJSON_AddItemToObject(s, "p50", Json_number(o->p50[i]));
    cJSON_AddItemToObject(s, "loss", Json_number(o->loss[i]));
    cJSON_AddItemToArray(arr, s);
  }
  return j;
}

bool TuneOverall_fromJson(const cJSON *j, TuneOverall *out, const char *path, char *err,
                          size_t errsize) {
  memset(out, 0, sizeof *out);
  out->geomean = NAN;
  bool ok = true;
  if (!Json_expectObject(j, path, err, errsize) ||
      !JsonFields_read(j, out, Overall_fields, JSON_COUNT(Overall_fields), path, err, errsize))
    return false;
  const cJSON *arr = Json_member(j, "shapes", cJSON_Array, false, path, &ok, err, errsize);
  if (!ok) return false;
  if (arr && cJSON_GetArraySize(arr) > TUNE_SHAPES_MAX) {
    snprintf(err, errsize, "%s.shapes: more than %d shapes", path, TUNE_SHAPES_MAX);
    return false;
  }
  for (const cJSON *s = arr ? arr->child : NULL; s; s = s->next) {
    char sp[320];
    snprintf(sp, sizeof sp, "%s.shapes[%d]", path, out->nshapes);
    if (!Json_expectObject(s, sp, err, errsize)) return false;
    int i = out->nshapes;
    out->p50[i] = out->loss[i] = NAN;
    if (!Json_readShape(s, "shape", &out->shapes[i], sp, err, errsize) ||
        !Json_readDouble(cJSON_GetObjectItemCaseSensitive(s, "p50"), &out->p50[i], sp, "p50", err,
                         errsize) ||
        !Json_readDouble(cJSON_GetObjectItemCaseSensitive(s, "loss"), &out->loss[i], sp, "loss",
                         err, errsize))
      return false;
    out->nshapes++;
  }
  return true;
}

bool TuneOverall_equal(const TuneOverall *a, const TuneOverall *b, const char *path, char *where,
                       size_t wsize) {
  if (!JsonFields_equal(a, b, Overall_fields, JSON_COUNT(Overall_fields), path, where, wsize))
    return false;
  bool same = a->nshapes == b->nshapes;
  for (int i = 0; same && i < a->nshapes; i++)
    same = Shape_equal(&a->shapes[i], &b->shapes[i]) && Json_doubleEqual(a->p50[i], b->p50[i]) &&
           Json_doubleEqual(a->loss[i], b->loss[i]);
  if (!same) Json_join(where, wsize, path, "shapes");
  return same;
}

/* ---- text ------------------------------------------------------------------------------ */

static void TuneSummary_printOne(FILE *out, const TuneSummary *given) {
  /* A session file is input: its strings reach the terminal as one printable line each. */
  TuneSummary copy = *given;
  const TuneSummary *t = &copy;
  Json_oneLine(copy.variant);
  Json_oneLine(copy.strategy);
  Json_oneLine(copy.winner_knobs);
  Json_oneLine(copy.runner_up);
  Json_oneLine(copy.note);
  Json_oneLine(copy.verdict);
  char shape[64];
  Shape_format(&t->shape, shape, sizeof shape);
  int own = t->measured - (t->cross > 0 ? t->cross : 0);
  fprintf(out, "tune %s at %s: %s, %d configuration%s measured of %d (%d refused before launch), "
               "%d record%s", t->variant, shape, t->strategy, t->configs, t->configs == 1 ? "" : "s",
          t->space - t->refused, t->refused, own, own == 1 ? "" : "s");
  if (t->budget > 0) fprintf(out, " of a budget of %d", t->budget);
  if (t->cross > 0) fprintf(out, " and %d for the other shapes", t->cross);
  if (t->failed > 0) fprintf(out, ", %d failed", t->failed);
  fprintf(out, "%s\n", t->complete ? "" : " (stopped early)");
  if (t->note[0]) fprintf(out, "  note    %s\n", t->note);
  if (t->winner < 0 || isnan(t->winner_p50)) {
    fprintf(out, "  no winner: no configuration passed\n");
    return;
  }
  fprintf(out, "  winner  %s  p50 %.4g us (record %d)\n", t->winner_knobs, t->winner_p50, t->winner);
  if (!t->runner_up[0]) return;
  fprintf(out, "  lead    %+.1f %% over %s (p50 %.4g us)", 100 * t->lead, t->runner_up, t->runner_up_p50);
  if (!isnan(t->lead_lo) && !isnan(t->lead_hi))
    fprintf(out, ", 95 %% CI %+.1f .. %+.1f %%", 100 * t->lead_lo, 100 * t->lead_hi);
  if (t->verdict[0]) fprintf(out, ": %s", t->verdict);
  fprintf(out, "\n");
  if (t->tied > 0)
    fprintf(out, "  tied    %d other configuration%s cannot be told apart from the winner\n", t->tied,
            t->tied == 1 ? "" : "s");
}

void TuneSummary_print(FILE *out, const TuneSummary *t, int n, const TuneOverall *o, int no) {
  for (int i = 0; i < n; i++) TuneSummary_printOne(out, &t[i]);
  for (int i = 0; i < no; i++) {
    char variant[RECORD_NAME_MAX], knobs[RECORD_KNOBS_MAX];
    Util_strlcpy(variant, o[i].variant, sizeof variant);
    Util_strlcpy(knobs, o[i].knobs, sizeof knobs);
    Json_oneLine(variant);
    Json_oneLine(knobs);
    fprintf(out, "overall %s over %d shapes (geometric mean %.4g us): %s\n", variant,
            o[i].nshapes, o[i].geomean, knobs);
    for (int s = 0; s < o[i].nshapes; s++) {
      char shape[64];
      Shape_format(&o[i].shapes[s], shape, sizeof shape);
      fprintf(out, "  %-22s p50 %9.4g us  loses %5.1f %% against its own winner\n", shape, o[i].p50[s],
              100 * o[i].loss[s]);
    }
  }
}
