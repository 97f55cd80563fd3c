/* libFuzzer target for the session loader. Beyond "no crash, no sanitizer report" it checks
 * an invariant: whatever the loader accepts, benchtop writes back in a form it reads to an
 * equal session, and show/diff can print it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sessions/diff.h"
#include "sessions/export.h"
#include "sessions/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

static void check_roundtrip(const Session *s) {
  cJSON *j = Session_toJson(s);
  char *text = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  if (!text) abort();
  Session back;
  char err[1024], where[256];
  if (!Session_parse(text, strlen(text), "roundtrip", &back, err, sizeof err)) {
    fprintf(stderr, "accepted input does not round-trip: %s\n", err);
    abort();
  }
  if (!Session_equal(s, &back, where, sizeof where)) {
    fprintf(stderr, "round trip changed %s\n", where);
    abort();
  }
  Session_free(&back);
  cJSON_free(text);
  for (int i = 0; i < s->nrecords; i++) { /* the worker pipe form */
    char *line = Record_toJsonLine(&s->records[i]);
    if (!line || strchr(line, '\n')) abort();
    free(line);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!devnull) devnull = fopen("/dev/null", "w");
  Session s;
  char err[1024];
  if (!Session_parse((const char *)data, size, "fuzz", &s, err, sizeof err)) {
    /* One line: a message never contains a newline, whatever the input. */
    if (strchr(err, '\n') || err[0] == '\0') abort();
    return 0;
  }
  check_roundtrip(&s);
  if (devnull) {
    const Record **recs = calloc((size_t)s.nrecords + 1, sizeof(Record *));
    if (!recs) abort();
    for (int i = 0; i < s.nrecords; i++) recs[i] = &s.records[i];
    DiffOptions o;
    Diff_defaultOptions(&o);
    o.fail_above_pct = 5.0;
    for (int f = FMT_TABLE; f <= FMT_MD; f++) {
      Export_session(devnull, (OutputFormat)f, &s, recs, s.nrecords, f % 2 == 0);
      DiffSummary sum;
      Diff_print(devnull, &s, &s, &o, (OutputFormat)f, &sum);
      if (sum.regressions != 0 || sum.slower || sum.faster) abort(); /* self: no change */
      o.match.mode = f % 2 ? MATCH_VARIANT : MATCH_KEY;
    }
    free(recs);
  }
  Session_free(&s);
  return 0;
}
