/* benchtop show: a saved session as a table, JSON, CSV or Markdown; --best keeps the fastest
 * passing record per shape (the notebook's leaderboard). Needs no GPU. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/export.h"
#include "sessions/session.h"

/* The fastest passing record of each shape, in the order the shapes first appear. */
static int Show_best(const Session *s, const Record **out) {
  int n = 0;
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

static int Cmd_show_exec(int argc, char **argv) {
  static const struct option longopts[] = {
    {"format", required_argument, NULL, 'f'}, {"best", no_argument, NULL, 'b'},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
  };
  OutputFormat fmt = FMT_TABLE;
  bool best = false;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "f:bh", longopts, NULL)) != -1) {
    switch (c) {
    case 'f':
      if (!Export_parseFormat(optarg, &fmt)) {
        fprintf(stderr, "benchtop show: unknown format '%s' (table, json, csv or md)\n", optarg);
        return BT_EXIT_USAGE;
      }
      break;
    case 'b': best = true; break;
    case 'h': printf("usage: benchtop show %s\n", Cmd_show.usage); return BT_EXIT_OK;
    default: return BT_EXIT_USAGE; /* getopt printed the line */
    }
  }
  if (argc - optind != 1) {
    fprintf(stderr, "benchtop show: expected one session file (usage: benchtop show %s)\n",
            Cmd_show.usage);
    return BT_EXIT_USAGE;
  }
  Session s;
  char err[1024];
  if (!Session_load(argv[optind], &s, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return BT_EXIT_FAILED;
  }
  const Record **recs = Util_xcalloc((size_t)s.nrecords + 1, sizeof(Record *));
  int n = 0;
  if (best) n = Show_best(&s, recs);
  else
    for (; n < s.nrecords; n++) recs[n] = &s.records[n];
  Export_session(stdout, fmt, &s, recs, n);
  free(recs);
  Session_free(&s);
  return BT_EXIT_OK;
}

const Command Cmd_show = {"show", "SESSION.json [--format table|json|csv|md] [--best]",
                          "print a saved session (--best: fastest passing record per shape)",
                          Cmd_show_exec};
