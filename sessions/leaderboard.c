#include "sessions/leaderboard.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/text.h"
#include "common/util.h"
#include "sessions/compare_stats.h"

void Leaderboard_options(const Record *r, char *buf, size_t size) {
  bool l2p = r->opts.l2_persist[0] && strcmp(r->opts.l2_persist, "off") != 0;
  snprintf(buf, size, "%s%s,%s%s%.8s", r->opts.cold_l2 ? "cold-l2" : "warm-l2", r->opts.graph ? ",graph" : "",
           Record_kernelClock(r) ? "kernel" : "events", l2p ? ",l2-persist=" : "", l2p ? r->opts.l2_persist : "");
}

static const DeviceInfo *Leaderboard_device(const Record *r, const Session *s) {
  return r->device.name[0] || !s->has_device ? &r->device : &s->device;
}

void Leaderboard_key(const Record *r, const Session *s, char *buf, size_t size) {
  char shape[96], opts[64];
  Shape_format(&r->shape, shape, sizeof shape);
  Leaderboard_options(r, opts, sizeof opts);
  const DeviceInfo *d = Leaderboard_device(r, s);
  snprintf(buf, size, "%s|%s|%s|%s|%s sm_%d%d", r->variant, r->knobs, shape, opts, d->name,
           d->cc_major, d->cc_minor);
}

const LeaderEntry *Leaderboard_find(const Leaderboard *b, const char *key) {
  for (int i = 0; i < b->n; i++)
    if (strcmp(b->e[i].key, key) == 0) return &b->e[i];
  return NULL;
}

static bool Leaderboard_timed(const Record *r) {
  return r->status == REC_PASS && r->timing.p50 > 0 && isfinite(r->timing.p50);
}

void Leaderboard_build(Leaderboard *b, const Session *sessions, int n, int skip) {
  memset(b, 0, sizeof *b);
  for (int si = 0; si < n; si++) {
    if (si == skip) continue;
    const Session *s = &sessions[si];
    for (int i = 0; i < s->nrecords; i++) {
      const Record *r = &s->records[i];
      if (!Leaderboard_timed(r)) continue;
      char key[512];
      Leaderboard_key(r, s, key, sizeof key);
      LeaderEntry *e = (LeaderEntry *)Leaderboard_find(b, key);
      if (!e) {
        b->e = Util_xrealloc(b->e, sizeof *b->e * (size_t)(b->n + 1));
        e = &b->e[b->n++];
        memset(e, 0, sizeof *e);
        Util_strlcpy(e->key, key, sizeof e->key);
        Leaderboard_options(r, e->options, sizeof e->options);
        e->last_counted = -1;
      }
      if (e->last_counted != si) {
        e->nsessions++;
        e->last_counted = si;
      }
      /* ties keep the earlier record: the best was reached there first */
      if (!e->best || r->timing.p50 < e->best->timing.p50) {
        e->best = r;
        e->session = si;
      }
    }
  }
}

void Leaderboard_free(Leaderboard *b) {
  free(b->e);
  memset(b, 0, sizeof *b);
}

/* One row's cells, sanitised (they come from files). */
enum { LB_VARIANT, LB_KNOBS, LB_SHAPE, LB_OPTIONS, LB_DEVICE, LB_P50, LB_SESSIONS, LB_FILE,
       LB_DATE, LB_REVISION, LB_HASH, LB_NCOLS };
static const char *const lb_titles[LB_NCOLS] = {"variant", "knobs", "shape", "options", "device",
                                                "best p50 us", "sessions", "best in", "date",
                                                "revision", "source hash"};

static void Leaderboard_cells(const LeaderEntry *e, const Session *sessions, const char *const *names,
                              char cells[LB_NCOLS][256]) {
  const Record *r = e->best;
  const Session *s = &sessions[e->session];
  char shape[96];
  Shape_format(&r->shape, shape, sizeof shape);
  const char *raw[LB_NCOLS] = {r->variant, r->knobs, shape, e->options,
                               Leaderboard_device(r, s)->name, "", "", names[e->session],
                               r->created[0] ? r->created : s->created, s->revision,
                               r->build.source_hash};
  for (int c = 0; c < LB_NCOLS; c++) Text_sanitize(cells[c], sizeof cells[c], raw[c] ? raw[c] : "");
  Export_fmtTime(cells[LB_P50], sizeof cells[LB_P50], r->timing.p50);
  snprintf(cells[LB_SESSIONS], sizeof cells[LB_SESSIONS], "%d", e->nsessions);
}

static void Leaderboard_printJson(FILE *out, const Leaderboard *b, const Session *sessions,
                                  const char *const *names) {
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; i < b->n; i++) {
    const LeaderEntry *e = &b->e[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "options", e->options);
    cJSON_AddNumberToObject(o, "sessions", e->nsessions);
    cJSON_AddStringToObject(o, "session", names[e->session]);
    cJSON_AddStringToObject(o, "session_created", sessions[e->session].created);
    cJSON_AddStringToObject(o, "revision", sessions[e->session].revision);
    cJSON_AddItemToObject(o, "record", Record_toJson(e->best));
    cJSON_AddItemToArray(arr, o);
  }
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", "benchtop.leaderboard/1");
  cJSON_AddItemToObject(root, "best", arr);
  char *text = cJSON_Print(root);
  fprintf(out, "%s\n", text);
  free(text);
  cJSON_Delete(root);
}

static void Leaderboard_csvCell(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

void Leaderboard_print(FILE *out, OutputFormat fmt, const Leaderboard *b, const Session *sessions,
                       const char *const *names) {
  if (fmt == FMT_JSON) {
    Leaderboard_printJson(out, b, sessions, names);
    return;
  }
  char (*cells)[LB_NCOLS][256] = Util_xcalloc((size_t)b->n + 1, sizeof *cells);
  int width[LB_NCOLS];
  for (int c = 0; c < LB_NCOLS; c++) width[c] = (int)strlen(lb_titles[c]);
  for (int i = 0; i < b->n; i++) {
    Leaderboard_cells(&b->e[i], sessions, names, cells[i]);
    for (int c = 0; c < LB_NCOLS; c++)
      if ((int)strlen(cells[i][c]) > width[c]) width[c] = (int)strlen(cells[i][c]);
  }
  for (int row = -1; row < b->n; row++) {
    for (int c = 0; c < LB_NCOLS; c++) {
      const char *v = row < 0 ? lb_titles[c] : cells[row][c];
      if (fmt == FMT_CSV) {
        if (c) fputc(',', out);
        Leaderboard_csvCell(out, v);
      } else if (fmt == FMT_MD) {
        fprintf(out, "| %s ", v);
      } else {
        if (c + 1 == LB_NCOLS) fputs(v, out); /* no padding at the end of a line */
        else fprintf(out, c == LB_P50 || c == LB_SESSIONS ? "%*s  " : "%-*s  ", width[c], v);
      }
    }
    fprintf(out, fmt == FMT_MD ? "|\n" : "\n");
    if (row < 0 && fmt == FMT_MD) {
      for (int c = 0; c < LB_NCOLS; c++) fprintf(out, c == LB_P50 || c == LB_SESSIONS ? "| ---: " : "| --- ");
      fprintf(out, "|\n");
    }
  }
  free(cells);
}
