/* What is read from the table of views (views.c): the default opener, the main screen's panels
 * and the table of opening keys. */
#include <stdlib.h>

#include "common/util.h"
#include "tui/tui.h"

void View_openByKey(App *a, int ch) {
  for (int i = 0; i < Views_count; i++)
    for (int k = 0; k < KEYS_PER_BINDING && Views[i]->open_keys[k]; k++)
      if (Views[i]->open_keys[k] == ch) {
        View_show(a, Views[i]);
        return;
      }
}

const View *View_panel(int i) {
  for (int v = 0; v < Views_count; v++)
    if (Views[v]->layer == VIEW_PANEL && i-- == 0) return Views[v];
  return NULL;
}

int View_panelCount(void) {
  int n = 0;
  for (int v = 0; v < Views_count; v++) n += Views[v]->layer == VIEW_PANEL;
  return n;
}

const KeyTable *View_openers(void) {
  /* Made once from the table; kept for the life of the process. */
  static KeyTable table;
  static KeyBinding *bindings;
  if (bindings) return &table;
  bindings = Util_xcalloc((size_t)Views_count, sizeof *bindings);
  int n = 0;
  for (int i = 0; i < Views_count; i++) {
    const View *v = Views[i];
    if (!v->open_keys[0]) continue;
    KeyBinding *b = &bindings[n++];
    for (int k = 0; k < KEYS_PER_BINDING; k++) b->keys[k] = v->open_keys[k];
    b->label = v->open_label;
    b->bar = v->open_bar;
    b->help = v->help;
    b->action = v->open ? v->open : View_openByKey;
  }
  table = (KeyTable){"main", bindings, n, false};
  return &table;
}
