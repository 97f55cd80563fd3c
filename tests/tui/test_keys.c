/* The key tables (tui/keys.c): on every screen the TUI can show, no key is claimed by two
 * bindings of the chain (the later one would be documented by the help but never run), every
 * binding has its words and an action, a catch-all comes last, and every key the key bar
 * offers is one the dispatcher runs. Needs no terminal. */
#include <limits.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tui/tui.h"

static void Test_chain(const App *a) {
  const KeyTable *chain[8];
  int n = Keys_chain(a, chain, 8);
  CHECK(n > 0 && n < 8);
  char where[96];
  snprintf(where, sizeof where, "overlay %s, screen %s, focus %s",
           a->overlay ? a->overlay->name : "none", a->screen->name, a->focus->name);
  for (int t = 0; t < n; t++)
    for (int i = 0; i < chain[t]->count; i++) {
      const KeyBinding *b = &chain[t]->bindings[i];
      for (int k = 0; k < KEYS_PER_BINDING && b->keys[k]; k++) {
        int ch = b->keys[k];
        if (ch == KEYS_ANY || ch == KEYS_PRINTABLE) {
          /* A catch-all hides whatever follows it. */
          bool last = t == n - 1 && i == chain[t]->count - 1;
          if (!last) fprintf(stderr, "%s: catch-all %s in %s is not last\n", where, b->label,
                             chain[t]->where);
          CHECK(last);
          continue;
        }
        const KeyBinding *first = Keys_lookup(chain, n, ch);
        if (first != b)
          fprintf(stderr, "%s: key %d of '%s' (%s) is taken first by '%s'\n", where, ch, b->label,
                  chain[t]->where, first ? first->label : "nothing");
        CHECK(first == b);
      }
    }
}

/* The overlays' cursors: a movement key's step, and a move that stays inside the list. */
static void Test_moves(void) {
  CHECK(Keys_delta(KEY_UP) == -1 && Keys_delta('k') == -1);
  CHECK(Keys_delta(KEY_LEFT) == -1 && Keys_delta('h') == -1);
  CHECK(Keys_delta(KEY_DOWN) == 1 && Keys_delta('j') == 1 && Keys_delta('\t') == 1);
  CHECK(Keys_delta(KEY_RIGHT) == 1 && Keys_delta('l') == 1);
  CHECK(Keys_delta(KEY_PPAGE) == -10 && Keys_delta(KEY_NPAGE) == 10);
  CHECK(Index_move(2, 5, 1) == 3 && Index_move(2, 5, -1) == 1);
  CHECK(Index_move(0, 5, -1) == 0 && Index_move(4, 5, 1) == 4);
  CHECK(Index_move(2, 5, 10) == 4 && Index_move(2, 5, -10) == 0);
  CHECK(Index_move(7, 5, -1) == 4); /* a list that shrank under the cursor */
  CHECK(Index_move(3, 0, 1) == 0);
  CHECK(Index_move(INT_MAX, 5, INT_MAX) == 4 && Index_move(INT_MIN + 1, 5, INT_MIN + 1) == 0);
  ListCursor c = {.sel = 3, .top = 2};
  ListCursor_move(&c, 0, 1);
  CHECK(c.sel == 0 && c.top == 0);
}

int main(void) {
  Test_moves();
  int ntables;
  const KeyTable *const *all = Keys_all(&ntables);
  CHECK(ntables > 5);
  for (int t = 0; t < ntables; t++) {
    CHECK(all[t]->where && all[t]->where[0]);
    CHECK(all[t]->count > 0);
    for (int i = 0; i < all[t]->count; i++) {
      const KeyBinding *b = &all[t]->bindings[i];
      CHECK(b->keys[0] != 0);
      CHECK(b->label && b->label[0]);
      CHECK(b->help && b->help[0]);
      CHECK(b->action != NULL);
      /* Bar words are "KEY what": the key bar colours the first word. */
      if (b->bar) CHECK(strchr(b->bar, ' ') != NULL);
    }
  }
  /* Every table a chain can hold is in the help's list: each overlay (and none) over each
   * screen with each panel focused, all from the table of views. */
  static App a;
  CHECK(View_panelCount() >= 1);
  for (int o = -1; o < Views_count; o++)
    for (int v = 0; v < Views_count; v++)
      for (int f = 0; f < View_panelCount(); f++) {
        if ((o >= 0 && Views[o]->layer != VIEW_OVERLAY) || Views[v]->layer != VIEW_SCREEN)
          continue;
        a.overlay = o >= 0 ? Views[o] : NULL;
        a.screen = Views[v];
        a.focus = View_panel(f);
        Test_chain(&a);
        const KeyTable *chain[8];
        int n = Keys_chain(&a, chain, 8);
        for (int t = 0; t < n; t++) {
          bool listed = false;
          for (int k = 0; k < ntables; k++) listed |= all[k] == chain[t];
          if (!listed) fprintf(stderr, "table %s is missing from the help\n", chain[t]->where);
          CHECK(listed);
        }
      }
  /* Every view has keys and a drawing; an opening key is documented; panels have a window
   * and a list. */
  for (int i = 0; i < Views_count; i++) {
    const View *v = Views[i];
    CHECK(v->name && v->keys && v->draw);
    if (v->open_keys[0]) CHECK(v->open_label && v->help);
    if (v->layer == VIEW_PANEL) CHECK(v->window && v->cursor && v->region);
    if (v->layer == VIEW_SCREEN) CHECK(v->region != 0);
  }
  return Check_done("tui_keys");
}
