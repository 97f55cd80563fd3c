/* The best-so-far column (tui/best.h). */
#include "tui/best.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"
#include "sessions/leaderboard.h"
#include "sessions/session_files.h"
#include "tui/tui.h"

typedef struct BestSoFar {
  Session *sessions;      /* the folder's, and one slot more for the open session */
  char **names;           /* their file names, as the column says where */
  int n;                  /* sessions read from the folder */
  double *p50;            /* per record of the open session: its configuration's best p50 ... */
  char (*where)[COLUMNS_WHERE_MAX]; /* ... and where */
  int cap;
} BestSoFar;

void Best_free(App *a) {
  BestSoFar *b = a->best;
  if (!b) return;
  for (int i = 0; i < b->n; i++) {
    Session_free(&b->sessions[i]);
    free(b->names[i]);
  }
  free(b->sessions);
  free(b->names);
  free(b->p50);
  free(b->where);
  free(b);
  a->best = NULL;
  Columns_setBest(NULL, NULL, NULL, 0);
}

void Best_refresh(App *a) {
  BestSoFar *b = a->best;
  if (!b) return;
  int n = a->session.nrecords;
  if (b->cap < n) {
    b->p50 = Util_xrealloc(b->p50, sizeof *b->p50 * (size_t)n);
    b->where = Util_xrealloc(b->where, sizeof *b->where * (size_t)n);
    b->cap = n;
  }
  /* The open session as it is now (with records not saved yet) beside the folder's. */
  b->sessions[b->n] = a->session;
  Leaderboard board;
  Leaderboard_build(&board, b->sessions, b->n + 1, -1);
  for (int i = 0; i < n; i++) {
    char key[512];
    Leaderboard_key(&a->session.records[i], &a->session, key, sizeof key);
    const LeaderEntry *e = Leaderboard_find(&board, key);
    b->p50[i] = e ? e->best->timing.p50 : NAN;
    Util_strlcpy(b->where[i], !e ? "" : e->session == b->n ? "this session" : b->names[e->session],
                 sizeof b->where[i]);
  }
  Leaderboard_free(&board);
  memset(&b->sessions[b->n], 0, sizeof b->sessions[b->n]); /* not ours to free */
  Columns_setBest(&a->session, b->p50, (const char(*)[COLUMNS_WHERE_MAX])b->where, n);
}

/* Whether path is the file the open session was loaded from (read in its place, as it is now). */
static bool Best_isOpen(const App *a, const char *path) {
  struct stat st;
  return a->session.has_origin && stat(path, &st) == 0 &&
         (unsigned long long)st.st_dev == a->session.origin_dev &&
         (unsigned long long)st.st_ino == a->session.origin_ino;
}

void Best_load(App *a, int ch) {
  (void)ch;
  Best_free(a);
  char dir[4096], err[4200] = "";
  if (!Util_sessionsDir(dir, sizeof dir)) {
    App_message(a, true, "best so far: no sessions folder (set XDG_DATA_HOME or HOME)");
    return;
  }
  SessionFiles files = {0};
  bool walked = SessionFiles_walk(&files, dir, err, sizeof err);
  BestSoFar *b = Util_xcalloc(1, sizeof *b);
  b->sessions = Util_xcalloc((size_t)files.n + 1, sizeof *b->sessions);
  b->names = Util_xcalloc((size_t)files.n + 1, sizeof *b->names);
  int unreadable = 0;
  for (int i = 0; i < files.n; i++) {
    char why[1024];
    if (Best_isOpen(a, files.paths[i])) continue;
    if (!Session_load(files.paths[i], &b->sessions[b->n], why, sizeof why)) {
      Session_free(&b->sessions[b->n]);
      memset(&b->sessions[b->n], 0, sizeof b->sessions[b->n]);
      unreadable++;
      continue;
    }
    const char *slash = strrchr(files.paths[i], '/');
    b->names[b->n++] = Util_xstrdup(slash ? slash + 1 : files.paths[i]);
  }
  SessionFiles_free(&files);
  a->best = b;
  Results_rebuild(a); /* fills the column (Best_refresh) and shows it */
  if (!walked) App_message(a, true, "best so far: %s", err);
  else
    App_message(a, false, "best so far over %d other session(s) in %s%s", b->n, dir,
                unreadable ? " (some could not be read: benchtop best DIR names them)" : "");
}
