/* Save as: the name's extension picks the format (.json the session, where autosave then
 * goes; .csv and .md the table as shown, filter and order included); ~ and $VAR are expanded;
 * another file is replaced only after a yes, and never a link, a directory or a device. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/expand.h"
#include "common/util.h"
#include "sessions/export.h"
#include "tui/runs.h"
#include "tui/tui.h"

static void Save_write(App *a) {
  const char *path = a->prompt.pending;
  OutputFormat fmt = FMT_JSON;
  Export_formatForPath(path, &fmt);
  const ResultsView *rv = &a->results;
  const Record **recs = Util_xcalloc((size_t)(rv->norder ? rv->norder : 1), sizeof *recs);
  for (int i = 0; i < rv->norder; i++) recs[i] = &a->session.records[rv->order[i]];
  char err[4200];
  /* The session itself: its file from now on (claimed, autosave goes there); Save_as asked
   * before anything that is not a session is replaced. */
  bool ok = fmt == FMT_JSON ? Session_saveAs(&a->session, path, true, err, sizeof err)
                            : Export_toFile(path, &a->session, recs, rv->norder, err, sizeof err);
  free(recs);
  if (!ok) {
    a->quit_after_save = false;
    App_message(a, true, "not saved: %s", err);
    return;
  }
  if (fmt != FMT_JSON) {
    a->quit_after_save = false; /* a table is not the session: quit asks again */
    App_message(a, false, "exported %d%s records as %s to %s", rv->norder,
                rv->filter[0] ? " (filtered)" : "", fmt == FMT_CSV ? "CSV" : "Markdown", path);
    return;
  }
  a->from_example = false;
  a->autosave_ok = true;
  a->dirty |= DIRTY_STATUS;
  App_message(a, false, "saved %d records to %s (autosave goes there now)", a->session.nrecords,
              path);
  if (a->quit_after_save) a->quit = true; /* the save quit asked for */
}

/* Whether the file at path is the open session's own (saving over it asks nothing). */
static bool Save_isSessionFile(const App *a, const struct stat *target) {
  struct stat st;
  return a->session.path[0] && stat(a->session.path, &st) == 0 && st.st_dev == target->st_dev &&
         st.st_ino == target->st_ino;
}

bool Save_as(App *a, const char *typed, char *err, size_t errsize) {
  char path[4096];
  OutputFormat fmt;
  if (!Expand_path(typed, path, sizeof path, err, errsize)) return false;
  if (!Export_formatForPath(path, &fmt)) {
    snprintf(err, errsize, "%.200s: .json saves the session, .csv and .md export the table",
             typed);
    return false;
  }
  struct stat st;
  bool exists = lstat(path, &st) == 0;
  if (!exists && errno != ENOENT) {
    snprintf(err, errsize, "%.200s: %s", path, strerror(errno));
    return false;
  }
  if (exists && !S_ISREG(st.st_mode)) {
    snprintf(err, errsize, "%.200s is %s, not a file to replace", path,
             S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory"
                                                                          : "a special file");
    return false;
  }
  Util_strlcpy(a->prompt.pending, path, sizeof a->prompt.pending);
  if (exists && !Save_isSessionFile(a, &st)) {
    char q[4200];
    snprintf(q, sizeof q, "%s exists. Replace it? y/n", path);
    App_confirm(a, q, "not saved", Save_write);
    return true;
  }
  Save_write(a);
  return true;
}

static bool Save_accept(App *a, const char *text, char *err, size_t errsize) {
  return !text[0] || Save_as(a, text, err, errsize);
}

const PromptHooks Save_prompt = {.accept = Save_accept};
