/* The session picker: *.json in the sessions directory (newest first) and the bundled
 * examples; Enter opens one. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/datadir.h"
#include "common/expand.h"
#include "common/util.h"
#include "tui/tui.h"

static const KeyTable ViewPicker_keys; /* at the end, with its actions */

typedef struct PickEntry {
  char *path;
  time_t mtime;
} PickEntry;

static int ViewPicker_newestFirst(const void *x, const void *y) {
  const PickEntry *a = x, *b = y;
  if (a->mtime != b->mtime) return a->mtime < b->mtime ? 1 : -1;
  return strcmp(a->path, b->path);
}

static void ViewPicker_scan(const char *dir, PickEntry **list, int *n, int *cap) {
  DIR *d = opendir(dir);
  if (!d) return;
  int start = *n;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    char *path = Util_asprintf("%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
      free(path);
      continue;
    }
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 32;
      *list = Util_xrealloc(*list, (size_t)*cap * sizeof **list);
    }
    (*list)[*n].path = path;
    (*list)[*n].mtime = st.st_mtime;
    (*n)++;
  }
  closedir(d);
  qsort(*list + start, (size_t)(*n - start), sizeof **list, ViewPicker_newestFirst);
}

void ViewPicker_free(App *a) {
  PickerView *pv = &a->picker;
  for (int i = 0; i < pv->count; i++) free(pv->paths[i]);
  free(pv->paths);
  pv->paths = NULL;
  pv->count = 0;
}

static void ViewPicker_open(App *a, int ch) {
  (void)ch;
  ViewPicker_free(a);
  PickEntry *list = NULL;
  int n = 0, cap = 0;
  char dir[4096];
  if (Util_sessionsDir(dir, sizeof dir)) ViewPicker_scan(dir, &list, &n, &cap);
  const char *env = getenv("BENCHTOP_EXAMPLES");
  if (env && env[0]) ViewPicker_scan(env, &list, &n, &cap);
  if (DataDir_find(DATA_EXAMPLES, dir, sizeof dir)) ViewPicker_scan(dir, &list, &n, &cap);
  PickerView *pv = &a->picker;
  pv->paths = Util_xcalloc((size_t)(n ? n : 1), sizeof *pv->paths);
  for (int i = 0; i < n; i++) pv->paths[i] = list[i].path;
  pv->count = n;
  free(list);
  pv->cur.sel = pv->cur.top = 0;
  View_show(a, &View_picker);
}

static void ViewPicker_row(App *a, WINDOW *w, int idx, int y, int x, int width, attr_t cur) {
  const char *path = a->picker.paths[idx];
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  bool example = strstr(path, "/examples/") != NULL;
  struct stat st;
  char when[32] = "";
  if (stat(path, &st) == 0) {
    struct tm tm;
    localtime_r(&st.st_mtime, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
  }
  wattrset(w, Draw_attr(cur, TH_NORMAL));
  char line[512];
  snprintf(line, sizeof line, " %-*.*s", width - 30 > 8 ? width - 30 : 8,
           width - 30 > 8 ? width - 30 : 8, base);
  Draw_clip(w, y, x, width, line);
  wattrset(w, Draw_attr(cur, TH_DIM));
  snprintf(line, sizeof line, "%-9s %s", example ? "example" : "session", when);
  int at = width - 28 > 10 ? width - 28 : 10;
  Draw_clip(w, y, x + at, width - at, line);
}

static void ViewPicker_draw(App *a, unsigned dirty) {
  (void)dirty;
  WINDOW *w = Draw_listOverlay(a, "Open session", 110, &a->picker.cur, a->picker.count,
                               ViewPicker_row, &ViewPicker_keys);
  if (!w) return;
  if (a->picker.count == 0) {
    int wd = getmaxx(w);
    char dir[4096];
    Util_sessionsDir(dir, sizeof dir);
    wattrset(w, Theme_attr(TH_DIM));
    Draw_clip(w, 1, 2, wd - 4, "No sessions found in");
    Draw_clip(w, 2, 4, wd - 6, dir);
  }
  wnoutrefresh(w);
}

static void ViewPicker_move(App *a, int ch) {
  PickerView *pv = &a->picker;
  ListCursor_move(&pv->cur, pv->count, Keys_delta(ch));
  a->dirty |= DIRTY_OVERLAY;
}

static void ViewPicker_close(App *a, int ch) {
  (void)ch;
  a->overlay = NULL;
  ViewPicker_free(a);
  a->dirty = DIRTY_ALL;
}

/* Opens the session at path (closing the picker); false with one line in err. */
bool ViewPicker_load(App *a, const char *path, char *err, size_t errsize) {
  if (a->run.running) {
    snprintf(err, errsize, "a run is in flight: x cancels it first");
    return false;
  }
  Session *s = Util_xcalloc(1, sizeof *s);
  if (!Session_load(path, s, err, errsize)) {
    Session_free(s); /* what a failed load filled in so far */
    free(s);
    return false;
  }
  App_setSession(a, s, path); /* takes s */
  return true;
}

static void ViewPicker_choose(App *a, int ch) {
  PickerView *pv = &a->picker;
  if (pv->count == 0) return;
  char path[4096], err[4200];
  Util_strlcpy(path, pv->paths[pv->cur.sel], sizeof path);
  ViewPicker_close(a, ch);
  if (!ViewPicker_load(a, path, err, sizeof err)) App_message(a, true, "%s", err);
}

/* The open prompt: the path typed (~ and $VAR expanded), nothing when it is empty. */
static bool ViewPicker_acceptPath(App *a, const char *text, char *err, size_t errsize) {
  char path[4096];
  if (!text[0]) return true;
  return Expand_path(text, path, sizeof path, err, errsize) &&
         ViewPicker_load(a, path, err, errsize);
}

static void ViewPicker_typePath(App *a, int ch) {
  static const PromptHooks hooks = {.accept = ViewPicker_acceptPath};
  ViewPicker_close(a, ch);
  ViewPrompt_open(a, &hooks, "open session (~, $VAR): ", "");
}

static const KeyBinding ViewPicker_bindings[] = {
  {{KEY_UP, KEY_DOWN, 'k', 'j'}, "Up Down / k j", NULL, "move the cursor", ViewPicker_move},
  {{KEY_PPAGE, KEY_NPAGE}, "PgUp PgDn", NULL, "page up / down", ViewPicker_move},
  {{'\n', KEY_ENTER}, "Enter", "Enter open", "open the session", ViewPicker_choose},
  {{'p', '/'}, "p /", "p path", "type the path of a session to open (~ and $VAR expand)",
   ViewPicker_typePath},
  {{27, 'q'}, "Esc / q", "Esc close", "close the list", ViewPicker_close},
};
static const KeyTable ViewPicker_keys = KEY_TABLE("Open", ViewPicker_bindings);

const View View_picker = {
  .name = "picker", .layer = VIEW_OVERLAY, .open = ViewPicker_open, .keys = &ViewPicker_keys,
  .draw = ViewPicker_draw,
};
