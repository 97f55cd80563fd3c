/* benchtop best: the leaderboard across many sessions (sessions/leaderboard.h), and its gates
 * for scripts. Needs no GPU. */
#include <dirent.h>
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

#define BEST_FILES_MAX 10000
#define BEST_DEPTH_MAX 16

typedef struct BestFiles {
  int n;
  char **paths;
} BestFiles;

static int Best_cmpPath(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* *.json under dir, in name order; links are not followed (no loops, nothing outside). */
static bool Best_walk(BestFiles *f, const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "benchtop best: %s: %s\n", dir, strerror(errno));
    return false;
  }
  char **names = NULL;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    names = Util_xrealloc(names, sizeof *names * (size_t)(n + 1));
    names[n++] = Util_asprintf("%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, (size_t)n, sizeof *names, Best_cmpPath);
  bool ok = true;
  for (int i = 0; i < n; i++) {
    struct stat st;
    size_t len = strlen(names[i]);
    if (lstat(names[i], &st) == 0 && S_ISDIR(st.st_mode) && depth < BEST_DEPTH_MAX) {
      ok = Best_walk(f, names[i], depth + 1) && ok;
    } else if (lstat(names[i], &st) == 0 && S_ISREG(st.st_mode) && len > 5 &&
               strcmp(names[i] + len - 5, ".json") == 0 && f->n < BEST_FILES_MAX) {
      f->paths = Util_xrealloc(f->paths, sizeof *f->paths * (size_t)(f->n + 1));
      f->paths[f->n++] = names[i];
      names[i] = NULL;
    }
    free(names[i]);
  }
  free(names);
  return ok;
}

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
  BestFiles f = {0};
  bool ok = true;
  for (int i = 0; i < a->npos; i++) {
    struct stat st;
    if (stat(a->pos[i], &st) == 0 && S_ISDIR(st.st_mode)) ok = Best_walk(&f, a->pos[i], 0) && ok;
    else {
      f.paths = Util_xrealloc(f.paths, sizeof *f.paths * (size_t)(f.n + 1));
      f.paths[f.n++] = Util_xstrdup(a->pos[i]);
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
  for (int i = 0; i < f.n; i++) free(f.paths[i]);
  free(f.paths);
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
