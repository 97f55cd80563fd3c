/* Drawing helpers shared by the views (draw.c). Like every one of them, the text helpers pass
 * text through Text_sanitize first: what sessions and workers wrote never reaches the terminal
 * as control bytes. */
#ifndef BENCHTOP_TUI_DRAW_H
#define BENCHTOP_TUI_DRAW_H

#include <stdbool.h>

#include <curses.h>

#include "tui/keys.h"
#include "tui/theme.h"

typedef struct ListCursor {
  int sel, top;
} ListCursor;

void Draw_box(App *a, WINDOW *w, const char *title, bool focused);
/* The centred overlay window (help, knob editor, picker): h clamped to the screen, cleared in
 * the theme's colours; NULL when ncurses has no room. */
WINDOW *Draw_overlay(App *a, int h, int wd);
/* Rows 1..h-2 of a boxed window; row() draws item idx, `cursor` is the cursor attribute on
 * the cursor row (the line is already filled with it) and 0 elsewhere. */
void Draw_list(App *a, WINDOW *w, ListCursor *c, int count, bool focused,
               void (*row)(App *, WINDOW *, int idx, int y, int x, int width, attr_t cursor));
/* The attribute for a cell: the cursor's when on the cursor row, else the element's. */
attr_t Draw_attr(attr_t cursor, ThemeElem el);
void Draw_clip(WINDOW *w, int y, int x, int width, const char *text);
/* text padded or cut to exactly width columns, left- or right-aligned. */
void Draw_text(WINDOW *w, int y, int x, int width, bool left, const char *text);
void ListCursor_move(ListCursor *c, int count, int delta);
/* sel moved by delta and kept within 0..count-1 (0 when count is 0). */
int Index_move(int sel, int count, int delta);
/* An overlay's footer: the table's bar words, dim, clipped to width from (y, x). */
void Draw_keyBar(WINDOW *w, int y, int x, int width, const KeyTable *t);
/* The centred overlay of a list (columns, picker): count rows drawn by row() in a box titled
 * title, at least 6 rows and at most max_width wide, the bar of keys as its footer. Returns
 * the window for the caller to add to and refresh; NULL when ncurses has no room. */
WINDOW *Draw_listOverlay(App *a, const char *title, int max_width, ListCursor *c, int count,
                         void (*row)(App *, WINDOW *, int idx, int y, int x, int width,
                                     attr_t cursor),
                         const KeyTable *keys);
/* A scrolling text page (detail, help): lines past `scroll` into rows 1..h-2 of w. */
typedef struct Page {
  App *app;
  WINDOW *w;
  int line, scroll, top, height, x, width, col;
} Page;
void Page_begin(Page *p, App *a, WINDOW *w, int scroll, int top, int height, int x, int width);
void Page_text(Page *p, ThemeElem el, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void Page_newline(Page *p);

#endif
