/* The key tables and their dispatcher. What is on screen picks a chain of tables, most
 * specific first: an overlay's own table alone, or the view's table then the global one, or on
 * the main view the focused panel's table, list movement, the main view's and the global one.
 * A key runs the first binding that lists it. The help overlay prints every table and the key
 * bar the chain's bar words, so a key cannot work without being documented, nor be documented
 * without working. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

/* ---- keys that work on every view ---------------------------------------------------------- */

static void Keys_cycleTheme(App *a, int ch) {
  (void)ch;
  if (a->themes.count == 0) return;
  a->theme_idx = (a->theme_idx + 1) % a->themes.count;
  char err[512];
  Theme_apply(&a->themes, a->theme_idx, err, sizeof err);
  if (err[0]) App_message(a, true, "theme %s: %s", a->themes.names[a->theme_idx], err);
  else App_message(a, false, "theme: %s%s", a->themes.names[a->theme_idx],
                   Theme_colorEnabled() ? "" : " (NO_COLOR or no colours: attributes only)");
  App_settingChanged(a, CONF_THEME);
  a->dirty = DIRTY_ALL;
}

static void Keys_help(App *a, int ch) { (void)ch; ViewHelp_open(a); }
static void Keys_run(App *a, int ch) { (void)ch; App_startRun(a); }
static void Keys_cancel(App *a, int ch) { (void)ch; App_cancelRun(a); }
static void Keys_replay(App *a, int ch) { (void)ch; App_replay(a); }
static void Keys_open(App *a, int ch) { (void)ch; ViewPicker_open(a); }
static void Keys_quit(App *a, int ch) { (void)ch; App_requestQuit(a); }
static void Keys_runOptions(App *a, int ch) { (void)ch; ViewRunOpts_open(a); }

static void Keys_saveAs(App *a, int ch) {
  (void)ch;
  char path[4096];
  if (a->session.path[0] && !a->from_example) Util_strlcpy(path, a->session.path, sizeof path);
  else if (!Session_defaultPath(path, sizeof path)) path[0] = '\0';
  ViewPrompt_open(a, PROMPT_SAVE_AS, "save as (.json session, .csv .md table): ", path);
  a->prompt.selected = path[0] != '\0';
}

static void Keys_repaint(App *a, int ch) {
  (void)ch;
  clearok(curscr, TRUE);
  a->dirty = DIRTY_ALL;
}

static const KeyBinding Keys_globalBindings[] = {
  {{'r'}, "r", "r run", "run checked variants x checked shapes", Keys_run},
  {{'x'}, "x", "x cancel", "cancel the run", Keys_cancel},
  {{'O', KEY_F(2)}, "O  F2", "O options", "run options: reps, warm-up, cold L2, graph, metrics, seed",
   Keys_runOptions},
  {{'R'}, "R", NULL, "replay the session's plan; results show p50 vs the original", Keys_replay},
  {{'o'}, "o", "o open", "open a session (sessions dir and examples)", Keys_open},
  {{'S'}, "S", NULL, "save as: NAME.json the session, NAME.csv or .md the table (~, $VAR)",
   Keys_saveAs},
  {{'t'}, "t", "t theme", "next theme", Keys_cycleTheme},
  {{12}, "Ctrl-L", NULL, "repaint the screen", Keys_repaint},
  {{'?'}, "?", NULL, "this help", Keys_help},
  {{KEY_MOUSE}, "mouse", NULL,
   "click selects (again: Enter), a title sorts, the wheel scrolls, the key bar presses",
   Mouse_event},
  {{'M'}, "M", NULL, "mouse on / off (off: the terminal selects text; kept in tui.conf)",
   Mouse_toggle},
};
static const KeyTable Keys_global = KEY_TABLE("any", Keys_globalBindings);

/* htop's function keys, always at the key bar's right end. */
static const KeyBinding Keys_functionBindings[] = {
  {{KEY_F(1)}, "F1", "F1 help", "this help", Keys_help},
  {{KEY_F(10)}, "F10", "F10 quit", "quit from any view (asks first while a run is in flight)",
   Keys_quit},
};
static const KeyTable Keys_function = KEY_TABLE_PINNED("any", Keys_functionBindings);

/* ---- the main view ------------------------------------------------------------------------- */

static void Keys_focus(App *a, PanelId p) {
  if (p == a->focus) return;
  a->focus = p;
  a->dirty |= DIRTY_VARIANTS | DIRTY_SHAPES | DIRTY_RESULTS | DIRTY_KEYBAR;
}

static void Keys_nextPanel(App *a, int ch) {
  int step = ch == KEY_BTAB ? PANEL_COUNT - 1 : 1;
  Keys_focus(a, (PanelId)((a->focus + step) % PANEL_COUNT));
}

static void Keys_panel(App *a, int ch) { Keys_focus(a, (PanelId)(ch - '1')); }
static void Keys_tune(App *a, int ch) { (void)ch; Tunes_start(a); }
static void Keys_compare(App *a, int ch) { (void)ch; ViewCompare_open(a); }

static const KeyBinding Keys_mainBindings[] = {
  {{'\t', KEY_BTAB}, "Tab / S-Tab", "Tab panel",
   "next / previous panel (Variants, Shapes, Results)", Keys_nextPanel},
  {{'1', '2', '3'}, "1 2 3", NULL, "focus Variants, Shapes, Results", Keys_panel},
  {{'c'}, "c", "c compare", "compare the marked records side by side", Keys_compare},
  {{'p'}, "p", "p plot", "chart the records on screen: roofline, sweep, tune (docs/charts.md)",
   ViewChart_open},
  {{'T'}, "T", "T tune", "tune the variant under the Variants cursor on the checked shapes "
   "(a quarter of each space; winners marked W; x cancels)", Keys_tune},
  {{'q'}, "q", NULL, "quit (asks first while a run is in flight)", Keys_quit},
};
static const KeyTable Keys_main = KEY_TABLE("main", Keys_mainBindings);

static ListCursor *Keys_focusedCursor(App *a, int *count) {
  switch (a->focus) {
  case PANEL_VARIANTS: *count = a->variants.count; return &a->variants.cur;
  case PANEL_SHAPES: *count = a->shapes.count; return &a->shapes.cur;
  default: *count = a->results.norder; return &a->results.cur;
  }
}

static void Keys_move(App *a, int ch) {
  int count;
  ListCursor *c = Keys_focusedCursor(a, &count);
  int page = a->focus == PANEL_RESULTS && a->w_results ? getmaxy(a->w_results) - 3 : 5;
  if (page < 1) page = 1;
  switch (ch) {
  case KEY_UP: case 'k': ListCursor_move(c, count, -1); break;
  case KEY_DOWN: case 'j': ListCursor_move(c, count, 1); break;
  case KEY_PPAGE: ListCursor_move(c, count, -page); break;
  case KEY_NPAGE: ListCursor_move(c, count, page); break;
  case KEY_HOME: case 'g': ListCursor_move(c, count, -count); break;
  default: ListCursor_move(c, count, count); break; /* End, G */
  }
  static const unsigned region[PANEL_COUNT] = {DIRTY_VARIANTS, DIRTY_SHAPES, DIRTY_RESULTS};
  a->dirty |= region[a->focus] | (a->focus == PANEL_RESULTS ? DIRTY_SIDE : 0);
}

static const KeyBinding Keys_listBindings[] = {
  {{KEY_UP, KEY_DOWN, 'k', 'j'}, "Up Down / k j", NULL, "move the cursor", Keys_move},
  {{KEY_PPAGE, KEY_NPAGE}, "PgUp PgDn", NULL, "page up / down", Keys_move},
  {{KEY_HOME, 'g', KEY_END, 'G'}, "Home g / End G", NULL, "first / last", Keys_move},
};
static const KeyTable Keys_list = KEY_TABLE("lists", Keys_listBindings);

/* ---- the chain and the dispatcher ---------------------------------------------------------- */

int Keys_chain(const App *a, const KeyTable **out, int max) {
  int n = 0;
#define PUSH(t) do { if (n < max) out[n++] = &(t); } while (0)
  switch (a->overlay) {
  case OVERLAY_HELP: PUSH(ViewHelp_keys); return n;
  case OVERLAY_PICKER: PUSH(ViewPicker_keys); return n;
  case OVERLAY_KNOBS: PUSH(ViewKnobs_keys); return n;
  case OVERLAY_RUNOPTS: PUSH(ViewRunOpts_keys); return n;
  case OVERLAY_PROMPT: PUSH(ViewPrompt_keys); return n;
  case OVERLAY_CONFIRM: PUSH(ViewConfirm_keys); return n;
  case OVERLAY_COLUMNS: PUSH(ViewColumns_keys); return n;
  case OVERLAY_NONE: break;
  }
  if (a->view == VIEW_DETAIL) {
    PUSH(ViewDetail_keys);
  } else if (a->view == VIEW_COMPARE) {
    PUSH(ViewCompare_keys);
  } else if (a->view == VIEW_CHART) {
    PUSH(ViewChart_keys);
  } else {
    if (a->focus == PANEL_VARIANTS) PUSH(ViewVariants_keys);
    else if (a->focus == PANEL_SHAPES) PUSH(ViewShapes_keys);
    else PUSH(ViewResults_keys);
    PUSH(Keys_list);
    PUSH(Keys_main);
  }
  PUSH(Keys_global);
  PUSH(Keys_function);
#undef PUSH
  return n;
}

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

const KeyTable *const *Keys_all(int *count) {
  /* In the order the help lists them: what works everywhere first. */
  static const KeyTable *const all[] = {
    &Keys_function, &Keys_global, &Keys_main, &Keys_list, &ViewVariants_keys, &ViewKnobs_keys,
    &ViewShapes_keys, &ViewResults_keys, &ViewColumns_keys, &ViewCompare_keys, &ViewChart_keys, &ViewDetail_keys,
    &ViewPicker_keys, &ViewRunOpts_keys, &ViewPrompt_keys, &ViewConfirm_keys, &ViewHelp_keys,
  };
  *count = (int)(sizeof all / sizeof all[0]);
  return all;
}

void Keys_handle(App *a, int ch) {
  /* A message belongs to the key that caused it; the next key clears it. A mouse report is not
   * a key yet: the clicks it becomes come back here as keys, and a lone release or right click
   * that becomes nothing must not wipe what a run just said. */
  if (a->message[0] && a->overlay != OVERLAY_PROMPT && ch != KEY_MOUSE) {
    a->message[0] = 0;
    a->dirty |= DIRTY_KEYBAR;
  }
  const KeyTable *chain[8];
  int n = Keys_chain(a, chain, 8);
  const KeyBinding *b = Keys_lookup(chain, n, ch);
  if (!b) return;
  const KeyTable *before = chain[0];
  b->action(a, ch);
  /* Another view or overlay now: the key bar shows its keys. */
  if (Keys_chain(a, chain, 8) > 0 && chain[0] != before) a->dirty |= DIRTY_KEYBAR;
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
  a->overlay = OVERLAY_NONE;
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
