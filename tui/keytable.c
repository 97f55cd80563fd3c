/* What is done with a key table apart from dispatching keys (keys.c): looking a key up, the bar
 * words of a table, the movement keys' steps, closing an overlay. Reads no view, so that every
 * view and the drawing helpers can call it. */
#include <stdio.h>

#include "common/util.h"
#include "tui/tui.h"

static bool Keys_matches(const KeyBinding *b, int ch) {
  for (int i = 0; i < KEYS_PER_BINDING && b->keys[i]; i++)
    if (b->keys[i] == ch || (b->keys[i] == KEYS_ANY && ch != KEY_MOUSE) ||
        (b->keys[i] == KEYS_PRINTABLE && ch >= 32 && ch < 127))
      return true;
  return false;
}

const KeyBinding *Keys_lookup(const KeyTable *const *chain, int n, int ch) {
  for (int t = 0; t < n; t++)
    for (int i = 0; i < chain[t]->count; i++)
      if (Keys_matches(&chain[t]->bindings[i], ch)) return &chain[t]->bindings[i];
  return NULL;
}

int Keys_delta(int ch) {
  switch (ch) {
  case KEY_UP: case 'k': case KEY_LEFT: case 'h': return -1;
  case KEY_PPAGE: return -10;
  case KEY_NPAGE: return 10;
  default: return 1;
  }
}

void Keys_closeOverlay(App *a, int ch) {
  (void)ch;
  a->overlay = NULL;
  a->dirty = DIRTY_ALL;
}

void Keys_barText(const KeyTable *t, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < t->count; i++) {
    if (!t->bindings[i].bar) continue;
    int w = snprintf(buf + len, size - len, "%s%s", len ? "  " : " ", t->bindings[i].bar);
    if (w < 0 || (size_t)w >= size - len) return; /* truncated, still terminated */
    len += (size_t)w;
  }
  if (len + 1 < size) Util_strlcpy(buf + len, " ", size - len);
}
