/* Drawing helpers shared by the views: boxes (ACS or ASCII), scrolling lists, text pages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/text.h"
#include "tui/tui.h"

void Draw_box(App *a, WINDOW *w, const char *title, bool focused) {
  wattrset(w, Theme_attr(TH_BORDER));
  if (a->ascii) wborder(w, '|', '|', '-', '-', '+', '+', '+', '+');
  else box(w, 0, 0);
  if (title) {
    int width = getmaxx(w) - 4;
    if (width <= 0) return;
    char buf[128];
    /* Brackets mark the focused panel even without colour. */
    snprintf(buf, sizeof buf, focused ? "[%s]" : " %s ", title);
    Text_sanitize(buf, sizeof buf, buf);
    wattrset(w, Theme_attr(focused ? TH_TITLE_FOCUS : TH_TITLE));
    mvwaddnstr(w, 0, 2, buf, width);
  }
  wattrset(w, Theme_attr(TH_NORMAL));
}

void Draw_clip(WINDOW *w, int y, int x, int width, const char *text) {
  if (width <= 0) return;
  char safe[1024]; /* sessions and workers write what is drawn: no control bytes reach ncurses */
  mvwaddnstr(w, y, x, Text_sanitize(safe, sizeof safe, text), width);
}

void Draw_text(WINDOW *w, int y, int x, int width, bool left, const char *text) {
  char safe[1024];
  Text_sanitize(safe, sizeof safe, text);
  mvwprintw(w, y, x, left ? "%-*.*s" : "%*.*s", width, width, safe);
}

attr_t Draw_attr(attr_t cursor, ThemeElem el) { return cursor ? cursor : Theme_attr(el); }

int Index_move(int sel, int count, int delta) {
  if (count <= 0) return 0;
  long s = (long)sel + delta;
  if (s < 0) s = 0;
  if (s >= count) s = count - 1;
  return (int)s;
}

void ListCursor_move(ListCursor *c, int count, int delta) {
  if (count <= 0) c->top = 0;
  c->sel = Index_move(c->sel, count, delta);
}

void Draw_keyBar(WINDOW *w, int y, int x, int width, const KeyTable *t) {
  char keys[200];
  Keys_barText(t, keys, sizeof keys);
  wattrset(w, Theme_attr(TH_DIM));
  Draw_clip(w, y, x, width, keys);
}

WINDOW *Draw_listOverlay(App *a, const char *title, int max_width, ListCursor *c, int count,
                         void (*row)(App *, WINDOW *, int idx, int y, int x, int width,
                                     attr_t cursor),
                         const KeyTable *keys) {
  int h = count + 4, wd = a->cols - 6;
  if (h > a->rows - 2) h = a->rows - 2;
  if (h < 6) h = 6;
  if (wd > max_width) wd = max_width;
  WINDOW *w = Draw_overlay(a, h, wd);
  if (!w) return NULL;
  Draw_box(a, w, title, true);
  /* The list is drawn in a sub-window so Draw_list's box geometry holds (footer below it). */
  WINDOW *list = derwin(w, h - 1, wd, 0, 0);
  if (list) {
    Draw_list(a, list, c, count, true, row);
    delwin(list);
  }
  Draw_keyBar(w, h - 1, 2, wd - 4, keys);
  return w;
}

void Draw_list(App *a, WINDOW *w, ListCursor *c, int count, bool focused,
               void (*row)(App *, WINDOW *, int idx, int y, int x, int width, attr_t cursor)) {
  int h = getmaxy(w) - 2, width = getmaxx(w) - 2;
  if (h <= 0 || width <= 0) return;
  ListCursor_move(c, count, 0);
  if (c->sel < c->top) c->top = c->sel;
  if (c->sel >= c->top + h) c->top = c->sel - h + 1;
  if (c->top > count - h) c->top = count - h > 0 ? count - h : 0;
  if (c->top < 0) c->top = 0;
  for (int i = 0; i < h && c->top + i < count; i++) {
    int idx = c->top + i;
    attr_t cur = 0;
    if (idx == c->sel) {
      cur = Theme_attr(focused ? TH_CURSOR : TH_CURSOR_IDLE);
      wattrset(w, cur);
      mvwhline(w, 1 + i, 1, ' ', width);
    }
    row(a, w, idx, 1 + i, 1, width, cur);
  }
  if (count > h) {
    char pos[32];
    snprintf(pos, sizeof pos, " %d/%d ", c->sel + 1, count);
    int x = getmaxx(w) - (int)strlen(pos) - 2;
    if (x > 1) {
      wattrset(w, Theme_attr(TH_BORDER));
      mvwaddstr(w, h + 1, x, pos);
    }
  }
  wattrset(w, Theme_attr(TH_NORMAL));
}

void Page_begin(Page *p, App *a, WINDOW *w, int scroll, int top, int height, int x, int width) {
  memset(p, 0, sizeof *p);
  p->app = a;
  p->w = w;
  p->scroll = scroll;
  p->top = top;
  p->height = height;
  p->x = x;
  p->width = width;
}

void Page_text(Page *p, ThemeElem el, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  Text_vformat(buf, sizeof buf, fmt, ap);
  va_end(ap);
  int row = p->line - p->scroll;
  if (row >= 0 && row < p->height && p->col < p->width) {
    wattrset(p->w, Theme_attr(el));
    /* Count display columns, not bytes: the sparkline uses multi-byte block characters. */
    int avail = p->width - p->col, cols = 0;
    size_t bytes = 0;
    while (buf[bytes] && cols < avail) {
      unsigned char c = (unsigned char)buf[bytes];
      size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      bytes += n;
      cols++;
    }
    mvwaddnstr(p->w, p->top + row, p->x + p->col, buf, (int)bytes);
    p->col += cols;
  } else {
    for (const char *c = buf; *c; c++)
      if (((unsigned char)*c & 0xc0) != 0x80) p->col++;
  }
  wattrset(p->w, Theme_attr(TH_NORMAL));
}

void Page_newline(Page *p) {
  p->line++;
  p->col = 0;
}

WINDOW *Draw_overlay(App *a, int h, int wd) {
  if (h > a->rows - 2) h = a->rows - 2;
  if (a->w_overlay) delwin(a->w_overlay);
  a->w_overlay = newwin(h, wd, (a->rows - h) / 2, (a->cols - wd) / 2);
  WINDOW *w = a->w_overlay;
  if (!w) return NULL;
  wbkgdset(w, ' ' | Theme_attr(TH_NORMAL));
  werase(w);
  return w;
}
