/* The main screen: the panels (Variants, Shapes, Results) over each other's keys, list
 * movement, focus, and the detail of the selected record beside the table on wide terminals.
 * The panels are the views of the table whose layer is VIEW_PANEL, in the table's order. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/runs.h"
#include "tui/tui.h"

#define MAIN_DOUBLE_MS 400

void ViewMain_init(App *a) {
  a->screen = &View_main;
  a->focus = View_panel(View_panelCount() - 1); /* the results, where the records are */
}

static void ViewMain_nextPanel(App *a, int ch) {
  int n = View_panelCount(), at = 0;
  while (at < n && View_panel(at) != a->focus) at++;
  View_show(a, View_panel((at + (ch == KEY_BTAB ? n - 1 : 1)) % n));
}

static void ViewMain_panelKey(App *a, int ch) {
  const View *p = View_panel(ch - '1');
  if (p) View_show(a, p);
}

static void ViewMain_tune(App *a, int ch) { (void)ch; Tunes_start(a); }

static void ViewMain_quit(App *a, int ch) { (void)ch; App_requestQuit(a); }

static const KeyBinding ViewMain_bindings[] = {
  {{'\t', KEY_BTAB}, "Tab / S-Tab", "Tab panel",
   "next / previous panel (Variants, Shapes, Results)", ViewMain_nextPanel},
  {{'1', '2', '3'}, "1 2 3", NULL, "focus Variants, Shapes, Results", ViewMain_panelKey},
  {{'T'}, "T", "T tune", "tune the variant under the Variants cursor on the checked shapes "
   "(a quarter of each space; winners marked W; x cancels)", ViewMain_tune},
  {{'q'}, "q", NULL, "quit (asks first while a run is in flight)", ViewMain_quit},
};
static const KeyTable ViewMain_keys = KEY_TABLE("main", ViewMain_bindings);

static void ViewMain_move(App *a, int ch) {
  int count;
  ListCursor *c = a->focus->cursor(a, &count);
  WINDOW *w = a->focus->window(a);
  int page = w ? getmaxy(w) - 3 : 5;
  if (page < 1) page = 1;
  switch (ch) {
  case KEY_UP: case 'k': ListCursor_move(c, count, -1); break;
  case KEY_DOWN: case 'j': ListCursor_move(c, count, 1); break;
  case KEY_PPAGE: ListCursor_move(c, count, -page); break;
  case KEY_NPAGE: ListCursor_move(c, count, page); break;
  case KEY_HOME: case 'g': ListCursor_move(c, count, -count); break;
  default: ListCursor_move(c, count, count); break; /* End, G */
  }
  a->dirty |= a->focus->region | DIRTY_SIDE;
}

static const KeyBinding ViewMain_listBindings[] = {
  {{KEY_UP, KEY_DOWN, 'k', 'j'}, "Up Down / k j", NULL, "move the cursor", ViewMain_move},
  {{KEY_PPAGE, KEY_NPAGE}, "PgUp PgDn", NULL, "page up / down", ViewMain_move},
  {{KEY_HOME, 'g', KEY_END, 'G'}, "Home g / End G", NULL, "first / last", ViewMain_move},
};
const KeyTable ViewMain_listKeys = KEY_TABLE("lists", ViewMain_listBindings);

static void ViewMain_draw(App *a, unsigned dirty) {
  for (int i = 0; i < View_panelCount(); i++) {
    const View *p = View_panel(i);
    if (dirty & p->region) p->draw(a, dirty);
  }
  if ((dirty & DIRTY_SIDE) && a->w_side) ViewDetail_drawIn(a, a->w_side, true);
}

void ViewMain_clickList(App *a, int y, int x, int first_row) {
  static double last_ms;
  static const View *last_panel;
  static int last_row = -1;
  (void)x;
  const View *panel = a->focus;
  WINDOW *w = panel->window(a);
  int wy = y - getbegy(w), count;
  ListCursor *c = panel->cursor(a, &count);
  int row = c->top + wy - first_row;
  if (wy < first_row || wy >= getmaxy(w) - 1 || row < 0 || row >= count) return;
  double now = Util_nowMs();
  bool again = row == c->sel && panel == last_panel && row == last_row &&
               now - last_ms < MAIN_DOUBLE_MS;
  last_panel = panel;
  last_row = row;
  last_ms = now;
  c->sel = row;
  a->dirty |= DIRTY_VARIANTS | DIRTY_SHAPES | DIRTY_RESULTS | DIRTY_SIDE;
  if (again) {
    last_row = -1; /* a third click starts over */
    Keys_handle(a, '\n');
  }
}

/* A press on a panel focuses it (as its number key does) and goes to the panel's own click,
 * else selects the row under it. */
static void ViewMain_click(App *a, int y, int x) {
  for (int i = 0; i < View_panelCount(); i++) {
    const View *p = View_panel(i);
    WINDOW *w = p->window(a);
    if (!w || !wenclose(w, y, x)) continue;
    if (a->focus != p) Keys_handle(a, '1' + i);
    if (p->click) p->click(a, y, x);
    else ViewMain_clickList(a, y, x, 1);
    return;
  }
}

const View View_main = {
  .name = "main", .layer = VIEW_SCREEN, .keys = &ViewMain_keys, .draw = ViewMain_draw,
  .region = DIRTY_VARIANTS | DIRTY_SHAPES | DIRTY_RESULTS | DIRTY_SIDE,
  .click = ViewMain_click, .has_panels = true,
};
