/* The mouse, optional (M switches it, tui.conf keeps the choice, since a terminal's own text
 * selection needs it off): a click selects the row under it and focuses its panel, a second
 * click on the selected row does what Enter does there, a click on a column title sorts by it,
 * the wheel scrolls what is under the pointer, and a click on the key bar presses that key.
 * Clicks become the same actions the keys run: the key tables stay the one place for them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

#define MOUSE_WHEEL_ROWS 3
#define MOUSE_DOUBLE_MS 400

/* Every button's press and release is asked for, though only these are used: a report that
 * parses to no wanted event makes ncurses' getch wait in a blocking read for more input (a
 * click's lone release or a right click would freeze the screen and a live run until the next
 * key). No CLICKED events: asking for them makes ncurses fold a press into a click. */
static const mmask_t Mouse_events = BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON2_PRESSED |
                                    BUTTON2_RELEASED | BUTTON3_PRESSED | BUTTON3_RELEASED |
                                    BUTTON4_PRESSED
#if NCURSES_MOUSE_VERSION > 1
                                    | BUTTON5_PRESSED
#endif
    ;

bool Mouse_enable(bool on) {
  /* Only terminals that report the mouse themselves (xterm's way, terminfo kmous): on the
   * Linux console ncurses loads the GPM library instead, which leaks and fights gpm's own
   * text selection. */
  const char *kmous = tigetstr("kmous"), *term = getenv("TERM");
  if (on && (!kmous || kmous == (const char *)-1 || !kmous[0] ||
             (term && strncmp(term, "linux", 5) == 0)))
    return false;
  /* Presses only, reported at once: no click-resolution wait on every click. */
  mouseinterval(0);
  return mousemask(on ? Mouse_events : 0, NULL) != 0 || !on;
}

static void Mouse_keys(App *a, int ch, int times) {
  for (int i = 0; i < times; i++) Keys_handle(a, ch);
}

/* The wheel: its direction as a key for what is on screen, pressed a few times. */
static void Mouse_wheel(App *a, bool up) {
  if (a->view == VIEW_MAIN) {
    Mouse_keys(a, up ? KEY_UP : KEY_DOWN, MOUSE_WHEEL_ROWS);
    return;
  }
  Mouse_keys(a, up ? 'k' : 'j', MOUSE_WHEEL_ROWS);
}

/* The panel whose window holds the point, -1 for none. */
static int Mouse_panel(const App *a, int y, int x) {
  WINDOW *w[PANEL_COUNT] = {a->w_var, a->w_shape, a->w_results};
  for (int p = 0; p < PANEL_COUNT; p++)
    if (w[p] && wenclose(w[p], y, x)) return p;
  return -1;
}

static ListCursor *Mouse_cursor(App *a, int panel, int *count) {
  switch (panel) {
  case PANEL_VARIANTS: *count = a->variants.count; return &a->variants.cur;
  case PANEL_SHAPES: *count = a->shapes.count; return &a->shapes.cur;
  default: *count = a->results.norder; return &a->results.cur;
  }
}

static void Mouse_click(App *a, int y, int x) {
  static double last_ms;
  static int last_panel = -1, last_row = -1;
  int panel = Mouse_panel(a, y, x);
  if (panel < 0) return;
  if ((int)a->focus != panel) Keys_handle(a, '1' + panel);
  WINDOW *w = panel == PANEL_VARIANTS ? a->w_var : panel == PANEL_SHAPES ? a->w_shape
                                                                           : a->w_results;
  int wy = y - getbegy(w), wx = x - getbegx(w);
  if (panel == PANEL_RESULTS && wy == 1) { /* the column titles */
    for (int c = 0; c < COL_COUNT; c++)
      if (a->results.col_x[c] && wx >= a->results.col_x[c] &&
          wx < a->results.col_x[c] + Columns[c].width) {
        a->results.col_cursor = c;
        Keys_handle(a, 's');
      }
    return;
  }
  int first_row = panel == PANEL_RESULTS ? 2 : 1, count;
  ListCursor *c = Mouse_cursor(a, panel, &count);
  int row = c->top + wy - first_row;
  if (wy < first_row || wy >= getmaxy(w) - 1 || row < 0 || row >= count) return;
  double now = Util_nowMs();
  bool again = row == c->sel && panel == last_panel && row == last_row &&
               now - last_ms < MOUSE_DOUBLE_MS;
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

static void Mouse_one(App *a, const MEVENT *ev) {
  if (ev->bstate & BUTTON4_PRESSED) {
    Mouse_wheel(a, true);
    return;
  }
#if NCURSES_MOUSE_VERSION > 1
  if (ev->bstate & BUTTON5_PRESSED) {
    Mouse_wheel(a, false);
    return;
  }
#endif
  if (!(ev->bstate & BUTTON1_PRESSED)) return;
  if (ev->y == a->rows - 1) { /* the key bar: the key under the pointer */
    if (a->keybar.count == 0 && a->w_keys) { /* a message was there: it gives way to the keys */
      a->message[0] = 0;
      Keybar_draw(a);
    }
    for (int i = 0; i < a->keybar.count; i++)
      if (ev->x >= a->keybar.x0[i] && ev->x < a->keybar.x1[i]) {
        Keys_handle(a, a->keybar.key[i]);
        return;
      }
    return;
  }
  if (a->view == VIEW_MAIN) Mouse_click(a, ev->y, ev->x);
}

void Mouse_event(App *a, int ch) {
  (void)ch;
  /* Reports that arrived together come as one KEY_MOUSE; getmouse gives them newest first. */
  MEVENT ev[8];
  int n = 0;
  while (n < (int)(sizeof ev / sizeof ev[0]) && getmouse(&ev[n]) == OK) n++;
  for (int i = n - 1; i >= 0 && !a->quit; i--) Mouse_one(a, &ev[i]);
}

void Mouse_toggle(App *a, int ch) {
  (void)ch;
  a->config.mouse = !a->config.mouse;
  if (!Mouse_enable(a->config.mouse)) {
    a->config.mouse = false;
    App_message(a, true, "this terminal reports no mouse");
    return;
  }
  App_message(a, false, "mouse %s%s", a->config.mouse ? "on" : "off",
              a->config.mouse ? " (Shift selects text in most terminals)" : "");
  App_settingChanged(a, CONF_MOUSE);
}
