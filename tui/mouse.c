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

/* The wheel: its direction as a key for what is on screen (every list and page takes the
 * arrows), pressed a few times. */
static void Mouse_wheel(App *a, bool up) { Mouse_keys(a, up ? KEY_UP : KEY_DOWN, MOUSE_WHEEL_ROWS); }

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
  /* The view on top takes the press (an overlay without clicks of its own takes none). */
  const View *top = a->overlay ? a->overlay : a->screen;
  if (top->click) top->click(a, ev->y, ev->x);
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
