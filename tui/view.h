/* One interface for every view of the TUI, and the table that lists them (views.c).
 *
 * A view is a panel of the main screen (Variants, Shapes, Results), a screen that fills the
 * body (main, detail, compare, chart) or an overlay on top (help, picker, prompts, ...). The
 * App holds which screen, which overlay and which panel are up as pointers to their View;
 * app.c, keys.c and mouse.c reach a view only through these fields, never by its name.
 *
 * Adding a view: one file that defines `const View View_NAME` (its keys, draw, click, and the
 * key that opens it from the main screen), one line in the table of views.c, and its file in
 * tui/meson.build. The opening key and the view's own keys reach the help and the key bar from
 * the table by themselves. State of its own lives in its file (or in the App for state other
 * views read). */
#ifndef BENCHTOP_TUI_VIEW_H
#define BENCHTOP_TUI_VIEW_H

#include <stdbool.h>

#include <curses.h>

#include "tui/draw.h"
#include "tui/keys.h"

typedef enum { VIEW_PANEL, VIEW_SCREEN, VIEW_OVERLAY } ViewLayer;

typedef struct View View;
struct View {
  const char *name;             /* in words, for tests and messages */
  ViewLayer layer;
  /* The key that opens it on the main screen (0-terminated; none: another view opens it),
   * its words for the help and the key bar, and what opening does (View_open by default). */
  int open_keys[KEYS_PER_BINDING];
  const char *open_label, *open_bar, *help;
  KeyAction open;
  const KeyTable *keys;         /* its own keys, first in the chain while it is up */
  /* Repaints it; dirty is what changed (DIRTY_*), for a screen that repaints parts. */
  void (*draw)(App *a, unsigned dirty);
  unsigned region;              /* the DIRTY_* bits that repaint it */
  /* A button press at screen (y, x) while it is up; NULL: clicks do nothing there. */
  void (*click)(App *a, int y, int x);
  /* A screen made of panels (the main one): the focused panel's keys and list movement come
   * before its own, and the views' opening keys after. */
  bool has_panels;
  /* Panels: their window and the list they show. */
  WINDOW *(*window)(const App *a);
  ListCursor *(*cursor)(App *a, int *count);
  /* An overlay that shows the message line itself (a prompt's problem with the entry): keys
   * leave the message to it, and a new message repaints it. */
  bool shows_message;
  /* An overlay drawn over another (a prompt typed for the run options): that one, or NULL. */
  const View *(*under)(const App *a);
};

/* views.c: every view, in the order the help lists their keys; panels in the order of their
 * places on the main screen (1, 2, 3 focus them). */
extern const View *const Views[];
extern const int Views_count;

/* The home screen: panels over the results, the detail beside them on wide terminals. */
extern const View View_main;

/* Puts view v up (as the screen, the overlay or the focused panel, by its layer). */
void View_show(App *a, const View *v);
/* The default opener: View_show of the view whose opening key ch is. */
void View_openByKey(App *a, int ch);
/* The panels of the main screen in order, and how many there are. */
const View *View_panel(int i);
int View_panelCount(void);
/* The key table of every view's opening key (where: "main"). */
const KeyTable *View_openers(void);

#endif
