/* The session picker: *.json in the sessions directory (newest first) and the bundled
 * examples; Enter opens one. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "tui/tui.h"

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
  for (int i = 0; i < a->npicker; i++) free(a->picker[i]);
  free(a->picker);
  a->picker = NULL;
  a->npicker = 0;
}

void ViewPicker_open(App *a) {
  ViewPicker_free(a);
  PickEntry *list = NULL;
  int n = 0, cap = 0;
  char dir[4096];
  Util_sessionsDir(dir, sizeof dir);
  ViewPicker_scan(dir, &list, &n, &cap);
  const char *env = getenv("BENCHTOP_EXAMPLES");
  if (env && env[0]) ViewPicker_scan(env, &list, &n, &cap);
  ViewPicker_scan(BENCHTOP_SOURCE_ROOT "/sessions/examples", &list, &n, &cap);
  a->picker = Util_xcalloc((size_t)(n ? n : 1), sizeof *a->picker);
  for (int i = 0; i < n; i++) a->picker[i] = list[i].path;
  a->npicker = n;
  free(list);
  a->pcur.sel = a->pcur.top = 0;
  a->overlay = OVERLAY_PICKER;
  a->dirty |= DIRTY_OVERLAY;
}

static void ViewPicker_row(App *a, WINDOW *w, int idx, int y, int x, int width, attr_t cur) {
  const char *path = a->picker[idx];
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

void ViewPicker_draw(App *a) {
  int h = a->npicker + 4, wd = a->cols - 6;
  if (h > a->rows - 2) h = a->rows - 2;
  if (h < 6) h = 6;
  if (wd > 110) wd = 110;
  WINDOW *w = Draw_overlay(a, h, wd);
  if (!w) return;
  /* The list is drawn in a sub-window so Draw_list's box geometry holds (footer below it). */
  Draw_box(a, w, "Open session", true);
  if (a->npicker == 0) {
    char dir[4096];
    Util_sessionsDir(dir, sizeof dir);
    wattrset(w, Theme_attr(TH_DIM));
    Draw_clip(w, 1, 2, wd - 4, "No sessions found in");
    Draw_clip(w, 2, 4, wd - 6, dir);
  } else {
    WINDOW *list = derwin(w, h - 1, wd, 0, 0);
    if (list) {
      Draw_list(a, list, &a->pcur, a->npicker, true, ViewPicker_row);
      delwin(list);
    }
  }
  wattrset(w, Theme_attr(TH_DIM));
  Draw_clip(w, h - 1, 2, wd - 4, " Enter open  Esc close ");
  wnoutrefresh(w);
}

void ViewPicker_key(App *a, int ch) {
  switch (ch) {
  case KEY_UP: case 'k': ListCursor_move(&a->pcur, a->npicker, -1); break;
  case KEY_DOWN: case 'j': ListCursor_move(&a->pcur, a->npicker, 1); break;
  case KEY_PPAGE: ListCursor_move(&a->pcur, a->npicker, -10); break;
  case KEY_NPAGE: ListCursor_move(&a->pcur, a->npicker, 10); break;
  case '\n': case KEY_ENTER: {
    if (a->npicker == 0) break;
    if (a->running) {
      App_message(a, true, "a run is in flight: x cancels it first");
      a->overlay = OVERLAY_NONE;
      a->dirty = DIRTY_ALL;
      return;
    }
    char path[4096], err[512];
    Util_strlcpy(path, a->picker[a->pcur.sel], sizeof path);
    Session *s = Util_xcalloc(1, sizeof *s);
    if (!Session_load(path, s, err, sizeof err)) {
      App_message(a, true, "%s", err);
      Session_free(s); /* what a failed load filled in so far */
      free(s);
    } else {
      App_setSession(a, s, path); /* takes s */
    }
    a->overlay = OVERLAY_NONE;
    ViewPicker_free(a);
    a->dirty = DIRTY_ALL;
    return;
  }
  case 27: case 'q':
    a->overlay = OVERLAY_NONE;
    ViewPicker_free(a);
    a->dirty = DIRTY_ALL;
    return;
  default: return;
  }
  a->dirty |= DIRTY_OVERLAY;
}
