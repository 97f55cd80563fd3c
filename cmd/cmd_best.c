/* benchtop best: the leaderboard across many sessions (sessions/leaderboard.h), and its gates
 * for scripts. Needs no GPU. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "common/text.h"
#include "common/util.h"
#include "sessions/leaderboard.h"
#include "sessions/session_files.h"

enum { BEST_FORMAT, BEST_IMPROVE, BEST_NO_REGRESS, BEST_NOPTS };

static const CommandOption best_options[] = {
  [BEST_FORMAT] = CMD_OPTION_FORMAT,
  [BEST_IMPROVE] = {.name = "improve", .value = CMD_TEXT, .arg = "N%",
                    .help = "exit 1 unless the newest session beats the best before it of each of "
                            "its configurations by at least N % (and not tied within noise)"},
  [BEST_NO_REGRESS] = {.name = "no-regress", .value = CMD_TEXT, .arg = "N%",
                       .help = "exit 1 if a configuration of the newest session is slower than the "
                               "best before it by more than N % (diff's test) or no longer passes"},
};

static const CommandArg best_args[] = {
  {"SESSION.json|DIR", "sessions, or folders read recursively for *.json", NULL,
   CMD_COMPLETE_SESSION, CMD_ARG_REPEAT},
};

/* "3", "3%", "2.5 %" -> 3, 3, 2.5; false for anything else. */
static bool Best_percent(const char *text, double *out) {
  char *end;
  errno = 0;
  *out = strtod(text, &end);
  while (*end == ' ') end++;
  if (*end == '%') end++;
  return text[0] && !*end && errno == 0 && isfinite(*out) && *out >= 0 && *out < 1e6;
}

static int Best_exec(const CommandArgs *a) {
  double improve = NAN, regress = NAN;
  if (CommandArgs_has(a, BEST_IMPROVE) && !Best_percent(CommandArgs_text(a, BEST_IMPROVE, ""), &improve))
    return Command_usageError(&Cmd_best, "--improve takes a percentage, e.g. 3%%");
  if (CommandArgs_has(a, BEST_NO_REGRESS) && !Best_percent(CommandArgs_text(a, BEST_NO_REGRESS, ""), &regress))
    return Command_usageError(&Cmd_best, "--no-regress takes a percentage, e.g. 2%%");
  SessionFiles f = {0};
  bool ok = true;
  for (int i = 0; i < a->npos; i++) {
    struct stat st;
    char err[4200];
    if (!(stat(a->pos[i], &st) == 0 && S_ISDIR(st.st_mode))) SessionFiles_add(&f, a->pos[i]);
    else if (!SessionFiles_walk(&f, a->pos[i], err, sizeof err)) {
      fprintf(stderr, "benchtop best: ");
      Text_print(stderr, err);
      fputc('\n', stderr);
      ok = false;
    }
  }
  Session *s = Util_xcalloc((size_t)f.n + 1, sizeof *s);
  const char **names = Util_xcalloc((size_t)f.n + 1, sizeof *names);
  int n = 0, newest = -1;
  for (int i = 0; i < f.n; i++) {
    char err[1024];
    if (!Session_load(f.paths[i], &s[n], err, sizeof err)) {
      fprintf(stderr, "benchtop best: left out: ");
      Text_print(stderr, err);
      fputc('\n', stderr);
      ok = false;
      continue;
    }
    names[n] = f.paths[i];
    /* the newest by its creation time; of equal times, the one given last */
    if (newest < 0 || strcmp(s[n].created, s[newest].created) >= 0) newest = n;
    n++;
  }
  int rc = ok ? BT_EXIT_OK : BT_EXIT_FAILED;
  Leaderboard b;
  Leaderboard_build(&b, s, n, -1);
  Leaderboard_print(stdout, (OutputFormat)Command_format(a, BEST_FORMAT), &b, s, names);
  Leaderboard_free(&b);
  if ((!isnan(improve) || !isnan(regress)) && n > 0) {
    LeaderGate g;
    fprintf(stderr, "newest session: ");
    Text_print(stderr, names[newest]);
    fprintf(stderr, " (%s)\n", s[newest].created);
    Leaderboard_gate(stderr, s, n, newest, improve, regress, &g);
    if (!isnan(improve) && (g.compared == 0 || g.improved < g.compared)) {
      fprintf(stderr, "benchtop best: --improve %g%%: %d of %d configuration(s) beat their best before\n",
              improve, g.improved, g.compared);
      rc = BT_EXIT_FAILED;
    }
    if (!isnan(regress) && g.regressed > 0) {
      fprintf(stderr, "benchtop best: --no-regress %g%%: %d configuration(s) regressed\n", regress, g.regressed);
      rc = BT_EXIT_FAILED;
    }
  } else if (n == 0 && (!isnan(improve) || !isnan(regress))) {
    fprintf(stderr, "benchtop best: no session to gate\n");
    rc = BT_EXIT_FAILED;
  }
  for (int i = 0; i < n; i++) Session_free(&s[i]);
  SessionFiles_free(&f);
  free(s);
  free(names);
  return rc;
}

const Command Cmd_best = {
  .name = "best",
  .summary = "the leaderboard across sessions: the best p50 of each configuration, and gates",
  .description = "Reads the sessions given (folders recursively, every *.json; links are not "
                 "followed) and prints, per configuration (variant, knobs, shape, timing options "
                 "and GPU kind), the best p50 of any passing record with the session, date, "
                 "benchtop revision and source hash that reached it, and how many sessions "
                 "measured it. A file that is not a readable session is named and the exit code "
                 "is 1. Gates compare the newest session (by creation time) with the best of all "
                 "the others: --improve N% exits 1 unless every configuration of it that was "
                 "measured before beats that best by at least N % (and the change is not within "
                 "noise); --no-regress N% exits 1 when one is slower than that best by more than "
                 "N % with diff's statistics (the whole 95 % interval above +N %), or no longer "
                 "passes.",
  .options = best_options, .noptions = BEST_NOPTS,
  .args = best_args, .nargs = CMD_COUNT(best_args),
  .exec = Best_exec,
};
