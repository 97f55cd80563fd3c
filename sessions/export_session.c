/* A whole session in one format: JSON prints the session object with the chosen records; the
 * others a summary line, the rows (through the streaming writer in export.c) and the knob notes
 * under the table. */
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/util.h"
#include "sessions/baseline.h"
#include "sessions/export.h"
#include "sessions/knob_label.h"

static void Export_summary(FILE *out, OutputFormat fmt, const Session *s) {
  fprintf(out, "%ssession ", fmt == FMT_MD ? "**" : "");
  Text_print(out, s->created[0] ? s->created : "(undated)");
  if (s->host[0]) fputs(" on ", out), Text_print(out, s->host);
  if (s->has_device && s->device.name[0]) {
    fputs(", ", out), Text_print(out, s->device.name);
    if (s->device.cc_major >= 0) fprintf(out, " (sm_%d%d)", s->device.cc_major, s->device.cc_minor);
  }
  if (s->version[0]) fputs(", benchtop ", out), Text_print(out, s->version);
  if (s->revision[0]) fputs(" (", out), Text_print(out, s->revision), fputs(")", out);
  fprintf(out, "%s\n", fmt == FMT_MD ? "**\n" : "");
}

/* Under a table: the records timed with a persisting L2 window (--l2-persist), which the
 * table's columns do not show. */
static void Export_l2PersistNote(FILE *out, OutputFormat fmt, const Record *const *recs, int n) {
  int with = 0;
  const char *which = "";
  for (int i = 0; i < n; i++)
    if (recs[i]->opts.l2_persist[0] && strcmp(recs[i]->opts.l2_persist, "off") != 0) {
      with++;
      which = recs[i]->opts.l2_persist;
    }
  if (with == 0 || (fmt != FMT_TABLE && fmt != FMT_MD)) return;
  fprintf(out, "%s%d of %d record(s) timed with a persisting L2 window (--l2-persist ", fmt == FMT_MD ? "\n" : "",
          with, n);
  Text_print(out, which);
  fprintf(out, "%s)\n", with > 1 ? ", or another tensor set" : "");
}

/* Under a table: the short knob names its labels use, once per variant. */
static void Export_knobLegend(FILE *out, OutputFormat fmt, const Record *const *recs, int n) {
  if (fmt != FMT_TABLE && fmt != FMT_MD) return;
  for (int i = 0; i < n; i++) {
    char label[RECORD_KNOBS_MAX], legend[512];
    KnobLabel_compact(recs[i]->variant, recs[i]->knobs, label, sizeof label);
    if (!strchr(label, '=') || strcmp(label, recs[i]->knobs) == 0) continue;
    bool seen = false;
    for (int j = 0; j < i && !seen; j++) {
      char other[RECORD_KNOBS_MAX];
      KnobLabel_compact(recs[j]->variant, recs[j]->knobs, other, sizeof other);
      seen = strcmp(recs[j]->variant, recs[i]->variant) == 0 && strchr(other, '=') &&
             strcmp(other, recs[j]->knobs) != 0;
    }
    KnobLabel_legend(recs[i]->variant, legend, sizeof legend);
    if (!seen && legend[0])
      fprintf(out, "%sknobs of %s (other knobs at their defaults): %s\n", fmt == FMT_MD ? "\n" : "",
              recs[i]->variant, legend);
  }
}

/* Under a table: where knobs came from when a tuned table chose them (or why the defaults
 * ran under --knob auto), once per variant, shape and note. */
static void Export_knobSources(FILE *out, OutputFormat fmt, const Record *const *recs, int n) {
  if (fmt != FMT_TABLE && fmt != FMT_MD) return;
  for (int i = 0; i < n; i++) {
    const Record *r = recs[i];
    bool seen = !r->knobs_auto[0];
    for (int j = 0; j < i && !seen; j++)
      seen = strcmp(recs[j]->variant, r->variant) == 0 && Shape_equal(&recs[j]->shape, &r->shape) &&
             strcmp(recs[j]->knobs_auto, r->knobs_auto) == 0;
    if (seen) continue;
    char shape[64];
    Shape_format(&r->shape, shape, sizeof shape);
    fprintf(out, "%sknobs of ", fmt == FMT_MD ? "\n" : "");
    Text_print(out, r->variant);
    fprintf(out, " at %s: ", shape);
    Text_print(out, r->knobs_auto);
    fputc('\n', out);
  }
}

void Export_session(FILE *out, OutputFormat fmt, const Session *s, const Record *const *recs,
                    int n, bool wide) {
  if (fmt == FMT_JSON) {
    Session view = *s; /* shallow: the same metadata, only the chosen records */
    Record *subset = Util_xcalloc(n > 0 ? (size_t)n : 1, sizeof(Record));
    for (int i = 0; i < n; i++) subset[i] = *recs[i];
    view.records = subset;
    view.nrecords = n;
    /* Tune summaries name their winner by index: renumbered into the subset (or none). */
    TuneSummary *tune = Util_xcalloc((size_t)s->ntune + 1, sizeof(TuneSummary));
    for (int i = 0; i < s->ntune; i++) {
      tune[i] = s->tune[i];
      int w = tune[i].winner;
      tune[i].winner = -1;
      for (int k = 0; k < n && w >= 0 && w < s->nrecords; k++)
        if (recs[k] == &s->records[w]) tune[i].winner = k;
    }
    view.tune = tune;
    cJSON *j = Session_toJson(&view);
    Export_printJson(out, j, true);
    fputc('\n', out);
    cJSON_Delete(j);
    free(subset);
    free(tune);
    fflush(out);
    return;
  }
  if (fmt != FMT_CSV) Export_summary(out, fmt, s);
  MetricColumns mc;
  MetricColumns_collect(&mc, recs, n, Export_briefMetrics(fmt, wide));
  ExportLayout layout = {.cols = Export_columnsFor(recs, n), .metrics = &mc};
  if (Baseline_present(s->records, s->nrecords)) { /* ratios to cudnn, over the whole session */
    layout.cols |= EXPORT_COL_BASELINE;
    layout.baseline = s->records;
    layout.nbaseline = s->nrecords;
  }
  for (int i = 0; i < n; i++) Export_fitRecord(&layout, recs[i]->variant, recs[i]->knobs, &recs[i]->shape);
  Export x;
  Export_begin(&x, out, fmt, &layout);
  MetricColumns_free(&mc);
  for (int i = 0; i < n; i++) Export_record(&x, recs[i]);
  Export_end(&x);
  Export_knobLegend(out, fmt, recs, n);
  Export_l2PersistNote(out, fmt, recs, n);
  Export_knobSources(out, fmt, recs, n);
}
