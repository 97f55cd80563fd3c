/* Key tables: each binding both dispatches a key and documents it. The help overlay and the
 * key bar print the same tables the dispatcher walks (keys.c), so they cannot drift. */
#ifndef BENCHTOP_TUI_KEYS_H
#define BENCHTOP_TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct App App;

/* Key codes that stand for every printable character (a prompt's text) and for any key at
 * all; they match after the bindings listed before them in their table. */
#define KEYS_PRINTABLE (-2)
#define KEYS_ANY (-3)
#define KEYS_PER_BINDING 4

typedef void (*KeyAction)(App *a, int ch);

typedef struct KeyBinding {
  int keys[KEYS_PER_BINDING]; /* 0-terminated (no binding uses NUL) */
  const char *label;          /* the keys as the help writes them: "Up Down / k j" */
  const char *bar;            /* word for the key bar (NULL: help only) */
  const char *help;           /* one line for the help overlay */
  KeyAction action;
} KeyBinding;

typedef struct KeyTable {
  const char *where;          /* where the keys work, as the help says it: "Results" */
  const KeyBinding *bindings;
  int count;
  bool pinned;                /* its bar words stay at the key bar's right end (F1, F10) */
} KeyTable;

#define KEY_TABLE(where, array) {where, array, (int)(sizeof array / sizeof array[0]), false}
#define KEY_TABLE_PINNED(where, array) {where, array, (int)(sizeof array / sizeof array[0]), true}

/* keys.c: one key press, routed through the key tables of what is on screen. */
void Keys_handle(App *a, int ch);
/* The tables that apply now, most specific first (the order keys are looked up in); returns
 * how many were written to out. */
int Keys_chain(const App *a, const KeyTable **out, int max);
/* keytable.c (reads no view): the binding for ch in a chain, or NULL. */
const KeyBinding *Keys_lookup(const KeyTable *const *chain, int n, int ch);
/* A table's bar words on one line (" h/l column  b baseline "), for an overlay's footer. */
void Keys_barText(const KeyTable *t, char *buf, size_t size);
/* How far a movement key moves an overlay's cursor: Up/k and Left/h one back, PgUp ten back,
 * PgDn ten on, any other (Down/j, Right/l, Tab) one on. */
int Keys_delta(int ch);
/* The key action that closes the overlay on screen (help, run options, knob editor). */
void Keys_closeOverlay(App *a, int ch);
/* Every table, for the help overlay: *count gets how many. */
const KeyTable *const *Keys_all(int *count);

#endif
