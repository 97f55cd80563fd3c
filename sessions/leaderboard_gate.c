/* The leaderboard's gates (sessions/leaderboard.h): the newest session against the best of the
 * sessions before it, configuration by configuration, by diff's statistics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "sessions/compare_stats.h"
#include "sessions/leaderboard.h"

/* The newest session's record of each configuration: its fastest passing one, else (none
 * passed) any, so that a configuration that stopped passing is seen. */
static const Record *LeaderGate_newestOf(const Session *s, const char *key) {
  const Record *best = NULL;
  for (int i = 0; i < s->nrecords; i++) {
    const Record *r = &s->records[i];
    char k[512];
    Leaderboard_key(r, s, k, sizeof k);
    if (strcmp(k, key) != 0) continue;
    bool timed = r->status == REC_PASS && r->timing.p50 > 0;
    bool best_timed = best && best->status == REC_PASS && best->timing.p50 > 0;
    if (!best || (timed && (!best_timed || r->timing.p50 < best->timing.p50))) best = r;
  }
  return best;
}

/* The change from a to b: diff's interval where both have samples of one clock, else the p50s
 * by one clock (no interval). */
static void LeaderGate_compare(const Record *a, const Record *b, Comparison *c) {
  CompareOptions o;
  CompareStats_defaults(&o);
  CompareStats_records(a, b, &o, c);
  if (c->verdict == VERDICT_NA) {
    double pa, pb;
    Record_comparableP50(a, b, &pa, &pb);
    c->ratio = pa > 0 ? pb / pa : NAN;
  }
}

void Leaderboard_gate(FILE *out, const Session *sessions, int n, int newest, double improve_pct,
                      double regress_pct, LeaderGate *g) {
  memset(g, 0, sizeof *g);
  Leaderboard before;
  Leaderboard_build(&before, sessions, n, newest);
  const Session *s = &sessions[newest];
  char **seen = calloc((size_t)s->nrecords + 1, sizeof *seen);
  int nseen = 0;
  for (int i = 0; i < s->nrecords; i++) {
    char key[512];
    Leaderboard_key(&s->records[i], s, key, sizeof key);
    bool dup = false;
    for (int j = 0; j < nseen && !dup; j++) dup = strcmp(seen[j], key) == 0;
    if (dup) continue;
    seen[nseen++] = strdup(key);
    const LeaderEntry *prev = Leaderboard_find(&before, key);
    if (!prev) continue; /* a configuration never measured before: nothing to beat */
    const Record *now = LeaderGate_newestOf(s, key);
    g->compared++;
    Comparison c;
    bool passes = now->status == REC_PASS && now->timing.p50 > 0;
    if (passes) LeaderGate_compare(prev->best, now, &c);
    else memset(&c, 0, sizeof c);
    char change[96] = "no longer passes", line[700];
    if (passes) CompareStats_formatChange(&c, change, sizeof change);
    bool improved = passes && !isnan(improve_pct) && c.ratio <= 1.0 - improve_pct / 100.0 &&
                    c.verdict != VERDICT_TIED && c.verdict != VERDICT_SLOWER;
    bool regressed = !isnan(regress_pct) &&
                     (!passes || (c.verdict != VERDICT_NA ? CompareStats_above(&c, regress_pct)
                                                         : c.ratio > 1.0 + regress_pct / 100.0));
    g->improved += improved;
    g->regressed += regressed;
    char shape[96], opts[64];
    Shape_format(&now->shape, shape, sizeof shape);
    Leaderboard_options(now, opts, sizeof opts);
    snprintf(line, sizeof line, "%s %s %s (%s) on %s: %s against the best before (%s)%s%s", now->variant,
             now->knobs[0] ? now->knobs : "-", shape, opts,
             now->device.name[0] ? now->device.name : s->device.name, change,
             passes ? CompareStats_verdictName(c.verdict) : "status changed",
             improved ? ", improved" : "", regressed ? ", REGRESSED" : "");
    Text_print(out, line);
    fputc('\n', out);
  }
  for (int j = 0; j < nseen; j++) free(seen[j]);
  free(seen);
  Leaderboard_free(&before);
}
