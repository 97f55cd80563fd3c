/* The leaderboard across sessions (`benchtop best`): per configuration (variant, knobs, problem,
 * timing options, GPU kind) the best p50 of any passing record, where and when it was reached,
 * and how many sessions measured it; and the gates that compare the newest session with the
 * best before it (same statistics as diff, sessions/compare_stats.h). Pure C, no GPU. */
#ifndef BENCHTOP_LEADERBOARD_H
#define BENCHTOP_LEADERBOARD_H

#include <stdbool.h>
#include <stdio.h>

#include "sessions/export.h"
#include "sessions/session.h"

typedef struct LeaderEntry {
  char key[512];          /* variant|knobs|shape|options|device */
  char options[64];       /* "cold-l2,kernel" ... as shown */
  const Record *best;     /* the fastest passing record (points into a session) */
  int session;            /* the session that holds it (index into the sessions given) */
  int nsessions;          /* sessions with a passing record of this configuration */
  int last_counted;       /* the last session counted (internal) */
} LeaderEntry;

typedef struct Leaderboard {
  int n;
  LeaderEntry *e;
} Leaderboard;

/* The configuration's options part: cold/warm L2, graph, clock (and anything else a record's
 * options hold that changes what is measured). */
void Leaderboard_options(const Record *r, char *buf, size_t size);
/* The whole key of a record. */
void Leaderboard_key(const Record *r, const Session *s, char *buf, size_t size);
/* The board over sessions[0..n) except skip (-1: none). */
void Leaderboard_build(Leaderboard *b, const Session *sessions, int n, int skip);
const LeaderEntry *Leaderboard_find(const Leaderboard *b, const char *key);
void Leaderboard_free(Leaderboard *b);
/* The board in fmt; names[i] is session i's file. */
void Leaderboard_print(FILE *out, OutputFormat fmt, const Leaderboard *b, const Session *sessions,
                       const char *const *names);

/* What the gates found: each configuration of the newest session that has a best before it. */
typedef struct LeaderGate {
  int compared;   /* configurations with a previous best */
  int improved;   /* beat it by at least the --improve percentage (and not tied within noise) */
  int regressed;  /* slower beyond the --no-regress percentage by diff's test, or no longer passes */
} LeaderGate;
/* Compares the newest session (index newest) with the board of the others, printing one line per
 * configuration to out. improve_pct / regress_pct: NAN when that gate is not asked. */
void Leaderboard_gate(FILE *out, const Session *sessions, int n, int newest, double improve_pct,
                      double regress_pct, LeaderGate *g);

#endif
