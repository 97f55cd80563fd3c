/* benchtop show: a saved session as a table, JSON, CSV or Markdown; --best keeps the fastest
 * passing record per shape (a leaderboard). Needs no GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/export.h"
#include "sessions/session.h"

enum { SHOW_FORMAT, SHOW_BEST, SHOW_WIDE, SHOW_NOPTS };

static const CommandOption show_options[] = {
  [SHOW_FORMAT] = CMD_OPTION_FORMAT,
  [SHOW_BEST] = {.name = "best", .short_name = 'b', .value = CMD_FLAG,
                 .help = "only the tune winners, or the fastest passing record of each shape"},
  [SHOW_WIDE] = {.name = "wide", .value = CMD_FLAG,
                 .help = "the table shows every metric, not only the catalog's brief ones and yours"},
};

static const CommandArg show_args[] = {
  {"SESSION.json", "the session to print", NULL, CMD_COMPLETE_SESSION, 0},
};

/* A tuned session names its winners (per variant and shape); any other session's best are
 * the fastest passing record of each shape, in the order the shapes first appear. */
static int Show_best(const Session *s, const Record **out) {
  int n = 0;
  for (int i = 0; i < s->ntune; i++)
    if (s->tune[i].winner >= 0 && s->tune[i].winner < s->nrecords) out[n++] = &s->records[s->tune[i].winner];
  if (s->ntune > 0) return n;
  for (int i = 0; i < s->nrecords; i++) {
    const Record *r = &s->records[i];
    if (r->status != REC_PASS || isnan(r->timing.p50)) continue;
    int k = 0;
    while (k < n && !Shape_equal(&out[k]->shape, &r->shape)) k++;
    if (k == n) out[n++] = r;
    else if (r->timing.p50 < out[k]->timing.p50) out[k] = r;
  }
  return n;
}

static int Show_exec(const CommandArgs *a) {
  OutputFormat fmt = (OutputFormat)Command_format(a, SHOW_FORMAT);
  Session s;
  char err[1024];
  if (!Session_load(a->pos[0], &s, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return BT_EXIT_FAILED;
  }
  const Record **recs = Util_xcalloc((size_t)(s.nrecords > s.ntune ? s.nrecords : s.ntune) + 1, sizeof(Record *));
  int n = 0;
  if (CommandArgs_has(a, SHOW_BEST)) n = Show_best(&s, recs);
  else
    for (; n < s.nrecords; n++) recs[n] = &s.records[n];
  Export_session(stdout, fmt, &s, recs, n, CommandArgs_has(a, SHOW_WIDE));
  if (CommandArgs_has(a, SHOW_BEST) && s.ntune > 0 && (fmt == FMT_TABLE || fmt == FMT_MD)) {
    fflush(stdout);
    TuneSummary_print(stdout, s.tune, s.ntune, s.overall, s.noverall);
  }
  free(recs);
  Session_free(&s);
  return BT_EXIT_OK;
}

const Command Cmd_show = {
  .name = "show",
  .summary = "print a saved session (--best: the tune winners, or the fastest passing record per shape)",
  .description = "Prints the records of a saved session as a table, JSON, CSV or Markdown, "
                 "with a column for every metric the records hold: the catalog's (benchtop "
                 "list metrics) under short labels in the table and Markdown, then any other "
                 "Nsight Compute name given to run --metrics; CSV and JSON name them as Nsight "
                 "Compute does. The table keeps to the catalog's brief metrics and yours unless "
                 "--wide. Needs no GPU.",
  .options = show_options, .noptions = SHOW_NOPTS,
  .args = show_args, .nargs = CMD_COUNT(show_args),
  .exec = Show_exec,
};
