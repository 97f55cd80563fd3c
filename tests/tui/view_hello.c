/* A trivial view, the file the view test build adds (tests/tui/add_view.py adds its line to
 * the table): z opens it from the main screen, Esc closes it. It shows that a view is one file
 * and one table line: its opening key and its own keys reach the dispatcher, the key bar and
 * the help with no other edit. */
#include "tui/tui.h"

static void ViewHello_draw(App *a, unsigned dirty) {
  (void)dirty;
  WINDOW *w = a->w_body;
  werase(w);
  Draw_box(a, w, "Hello", true);
  wattrset(w, Theme_attr(TH_NORMAL));
  Draw_clip(w, 2, 2, getmaxx(w) - 4, "hello from a view added as one file and one table line");
  wnoutrefresh(w);
}

static void ViewHello_close(App *a, int ch) {
  (void)ch;
  View_show(a, &View_main);
}

static const KeyBinding ViewHello_bindings[] = {
  {{27, 'q'}, "Esc / q", "Esc back", "back to the main screen (from the hello view)",
   ViewHello_close},
};
static const KeyTable ViewHello_keys = KEY_TABLE("Hello", ViewHello_bindings);

const View View_hello = {
  .name = "hello", .layer = VIEW_SCREEN, .open_keys = {'z'}, .open_label = "z",
  .open_bar = "z hello", .help = "open the hello view (the view test build's)",
  .keys = &ViewHello_keys, .draw = ViewHello_draw,
  .region = DIRTY_BODY | DIRTY_RESULTS | DIRTY_SIDE,
};
