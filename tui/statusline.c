/* The status line (top: session file and autosave state, device, worker state, progress) and
 * the key bar (bottom: the keys that matter where the user is, or the last message). */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

static const char *Statusline_base(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

static void Statusline_session(const App *a, char *buf, size_t size) {
  const Session *s = &a->session;
  if (!s->path[0]) {
    snprintf(buf, size, "%s (not saved: S saves)",
             s->nrecords ? "unsaved session" : "empty session");
  } else if (!a->autosave_ok) {
    snprintf(buf, size, "%.200s AUTOSAVE FAILED", Statusline_base(s->path));
  } else if (a->from_example) {
    snprintf(buf, size, "%.200s (example, read-only)", Statusline_base(s->path));
  } else {
    snprintf(buf, size, "%.200s (%s)", Statusline_base(s->path), s->dirty ? "unsaved" : "saved");
  }
}

void Statusline_draw(App *a) {
  WINDOW *w = a->w_status;
  int width = getmaxx(w);
  attr_t base = Theme_attr(a->running ? TH_STATUS_BUSY : TH_STATUS);
  wbkgdset(w, ' ' | base);
  werase(w);
  wattrset(w, base);
  mvwhline(w, 0, 0, ' ', width);
  char sess[512], dev[160], work[256];
  Statusline_session(a, sess, sizeof sess);
  if (a->no_gpu) snprintf(dev, sizeof dev, "no GPU");
  else if (a->device[0]) snprintf(dev, sizeof dev, "%s", a->device);
  else if (a->session.has_device) snprintf(dev, sizeof dev, "recorded on %s", a->session.device.name);
  else snprintf(dev, sizeof dev, "device: not started");
  /* Progress as a bar of # over the width that is left, so it reads at 80 columns. */
  if (a->running) {
    int barw = width / 6;
    if (barw > 24) barw = 24;
    char bar[32];
    int fill = a->total > 0 ? a->done * barw / a->total : 0;
    for (int i = 0; i < barw; i++) bar[i] = i < fill ? '#' : '-';
    bar[barw] = 0;
    snprintf(work, sizeof work, "%d/%d [%s] %s", a->done, a->total, bar, a->worker);
  } else {
    snprintf(work, sizeof work, "%s", a->worker);
  }
  char line[1024];
  snprintf(line, sizeof line, " benchtop | %s | %s | %s", sess, dev, work);
  Draw_clip(w, 0, 0, width, line);
  wnoutrefresh(w);
}

void Keybar_draw(App *a) {
  WINDOW *w = a->w_keys;
  int width = getmaxx(w);
  attr_t base = Theme_attr(TH_KEYBAR);
  wbkgdset(w, ' ' | base);
  werase(w);
  wattrset(w, base);
  mvwhline(w, 0, 0, ' ', width);
  if (a->message[0]) {
    wattrset(w, Theme_attr(a->message_error ? TH_ERROR : TH_MESSAGE));
    mvwhline(w, 0, 0, ' ', width);
    Draw_clip(w, 0, 1, width - 2, a->message);
    wnoutrefresh(w);
    return;
  }
  static const char *const main_keys[][2] = {
    {"Tab", "panel"}, {"Spc", "check/mark"}, {"Enter", "edit/detail"}, {"r", "run"},
    {"x", "cancel"}, {"c", "compare"}, {"s", "sort"}, {"t", "theme"}, {"o", "open"},
    {"?", "help"}, {"q", "quit"},
  };
  static const char *const detail_keys[][2] = {
    {"j/k", "scroll"}, {"h/l", "prev/next"}, {"Esc", "back"}, {"r", "run"}, {"t", "theme"},
    {"?", "help"},
  };
  static const char *const compare_keys[][2] = {
    {"h/l", "column"}, {"b", "baseline"}, {"j/k", "scroll"}, {"Enter", "detail"},
    {"Esc", "back"}, {"?", "help"},
  };
  const char *const(*keys)[2] = main_keys;
  int n = (int)(sizeof main_keys / sizeof main_keys[0]);
  if (a->view == VIEW_DETAIL) {
    keys = detail_keys;
    n = (int)(sizeof detail_keys / sizeof detail_keys[0]);
  } else if (a->view == VIEW_COMPARE) {
    keys = compare_keys;
    n = (int)(sizeof compare_keys / sizeof compare_keys[0]);
  }
  int x = 0;
  for (int i = 0; i < n; i++) {
    int need = (int)(strlen(keys[i][0]) + strlen(keys[i][1])) + 2;
    if (x + need > width) break;
    wattrset(w, Theme_attr(TH_KEY));
    mvwaddstr(w, 0, x, keys[i][0]);
    x += (int)strlen(keys[i][0]);
    wattrset(w, base);
    mvwprintw(w, 0, x, " %s ", keys[i][1]);
    x += (int)strlen(keys[i][1]) + 2;
  }
  wnoutrefresh(w);
}
