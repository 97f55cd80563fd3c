/* The key tables and their dispatcher. What is on screen picks a chain of tables, most
 * specific first: an overlay's own table alone, or the screen's table then the global one, or
 * on the main screen the focused panel's table, list movement, the main screen's, the views'
 * opening keys and the global one (all read from the views' interface, tui/view.h).
 * A key runs the first binding that lists it. The help overlay prints every table and the key
 * bar the chain's bar words, so a key cannot work without being documented, nor be documented
 * without working. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/runs.h"
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

static void Keys_help(App *a, int ch) { View_help.open(a, ch); }
static void Keys_run(App *a, int ch) { (void)ch; App_startRun(a); }
static void Keys_cancel(App *a, int ch) { (void)ch; App_cancelRun(a); }
static void Keys_replay(App *a, int ch) { (void)ch; App_replay(a); }
static void Keys_open(App *a, int ch) { View_picker.open(a, ch); }
static void Keys_quit(App *a, int ch) { (void)ch; App_requestQuit(a); }
static void Keys_runOptions(App *a, int ch) { View_runopts.open(a, ch); }

static void Keys_saveAs(App *a, int ch) {
  (void)ch;
  char path[4096];
  if (a->session.path[0] && !a->from_example) Util_strlcpy(path, a->session.path, sizeof path);
  else if (!Session_defaultPath(path, sizeof path)) path[0] = '\0';
  ViewPrompt_open(a, &Save_prompt, "save as (.json session, .csv .md table): ", path);
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

/* ---- the chain and the dispatcher ---------------------------------------------------------- */

int Keys_chain(const App *a, const KeyTable **out, int max) {
  int n = 0;
#define PUSH(t) do { const KeyTable *t_ = (t); if (n < max && t_) out[n++] = t_; } while (0)
  if (a->overlay) {
    PUSH(a->overlay->keys);
    return n;
  }
  const View *s = a->screen;
  if (s->has_panels && a->focus) {
    PUSH(a->focus->keys);
    PUSH(&ViewMain_listKeys);
  }
  PUSH(s->keys);
  if (s->has_panels) PUSH(View_openers());
  PUSH(&Keys_global);
  PUSH(&Keys_function);
#undef PUSH
  return n;
}

const KeyTable *const *Keys_all(int *count) {
  /* In the order the help lists them: what works everywhere first, then each view's keys in
   * the order of the table of views. Made once; kept for the life of the process. */
  static const KeyTable **all;
  static int n;
  if (!all) {
    all = Util_xcalloc(2 + 3 * (size_t)Views_count, sizeof *all);
    all[n++] = &Keys_function;
    all[n++] = &Keys_global;
    for (int i = 0; i < Views_count; i++) {
      if (Views[i]->keys) all[n++] = Views[i]->keys;
      if (Views[i]->has_panels) {
        all[n++] = View_openers();
        all[n++] = &ViewMain_listKeys;
      }
    }
  }
  *count = n;
  return all;
}

void Keys_handle(App *a, int ch) {
  /* A message belongs to the key that caused it; the next key clears it. A mouse report is not
   * a key yet: the clicks it becomes come back here as keys, and a lone release or right click
   * that becomes nothing must not wipe what a run just said. */
  if (a->message[0] && !(a->overlay && a->overlay->shows_message) && ch != KEY_MOUSE) {
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
