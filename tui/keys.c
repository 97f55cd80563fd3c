/* The key map: overlays take keys first, then keys that work everywhere, then the open view
 * (detail, compare) or the focused panel. The help overlay prints Keys_help, so every key
 * handled here has a line there. */
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

const KeyHelp Keys_help[] = {
  {"Tab / S-Tab", "main", "next / previous panel (Variants, Shapes, Results)"},
  {"1 2 3", "main", "focus Variants, Shapes, Results"},
  {"Up Down / k j", "lists", "move the cursor"},
  {"PgUp PgDn g G", "lists", "page, first, last"},
  {"Space", "Variants", "check / uncheck the variant for the next run"},
  {"Enter / e", "Variants", "edit knobs (Left/Right pick allowed values, p presets)"},
  {"Space", "Shapes", "check / uncheck the shape"},
  {"a", "Shapes", "add a shape (BxHxSxD[:causal])"},
  {"Enter / e", "Shapes", "edit the shape"},
  {"d / Del", "Shapes", "delete the shape"},
  {"Space", "Results", "mark / unmark the record (for compare)"},
  {"u", "Results", "clear all marks"},
  {"Left Right / h l", "Results", "move the column cursor"},
  {"s", "Results", "sort by the column under the cursor (again: reverse)"},
  {"n", "Results", "back to arrival order"},
  {"H / A", "Results", "hide the column / show all columns"},
  {"Enter", "Results", "detail of the record"},
  {"c", "main", "compare the marked records side by side"},
  {"b", "Compare", "make the selected column the baseline"},
  {"h l / j k", "Compare", "select column / scroll rows"},
  {"j k / h l", "Detail", "scroll / previous and next record"},
  {"Esc / q", "views", "back to the main view"},
  {"r", "any", "run checked variants x checked shapes"},
  {"x", "any", "cancel the run"},
  {"R", "any", "replay the session's plan; results show p50 vs the original"},
  {"o", "any", "open a session (sessions dir and examples)"},
  {"S", "any", "save the session as..."},
  {"t", "any", "next theme"},
  {"Ctrl-L", "any", "repaint the screen"},
  {"?  F1", "any", "this help (j/k scroll, any other key closes)"},
  {"q", "main", "quit (asks first while a run is in flight)"},
};
const int Keys_helpCount = (int)(sizeof Keys_help / sizeof Keys_help[0]);

static void Keys_cycleTheme(App *a) {
  if (a->themes.count == 0) return;
  a->theme_idx = (a->theme_idx + 1) % a->themes.count;
  char err[512];
  bool ok = Theme_apply(&a->themes, a->theme_idx, err, sizeof err);
  if (err[0]) App_message(a, true, "theme %s: %s", a->themes.names[a->theme_idx], err);
  else App_message(a, false, "theme: %s%s", a->themes.names[a->theme_idx],
                   Theme_colorEnabled() ? "" : " (NO_COLOR or no colours: attributes only)");
  (void)ok;
  a->dirty = DIRTY_ALL;
}

/* Keys that mean the same thing whatever is on screen; true when ch was one of them. */
static bool Keys_global(App *a, int ch) {
  switch (ch) {
  case '?': case KEY_F(1):
    a->overlay = OVERLAY_HELP;
    a->help_scroll = 0;
    a->dirty |= DIRTY_OVERLAY;
    return true;
  case 't': Keys_cycleTheme(a); return true;
  case 'r': App_startRun(a); return true;
  case 'x': App_cancelRun(a); return true;
  case 'R': App_replay(a); return true;
  case 'o': ViewPicker_open(a); return true;
  case 'S': {
    char path[4096];
    if (a->session.path[0] && !a->from_example) Util_strlcpy(path, a->session.path, sizeof path);
    else Session_defaultPath(path, sizeof path);
    ViewPrompt_open(a, PROMPT_SAVE_AS, "save as: ", path);
    return true;
  }
  case 12: /* Ctrl-L */
    clearok(curscr, TRUE);
    a->dirty = DIRTY_ALL;
    return true;
  default: return false;
  }
}

static ListCursor *Keys_focusedCursor(App *a, int *count) {
  switch (a->focus) {
  case PANEL_VARIANTS: *count = a->nvariants; return &a->vcur;
  case PANEL_SHAPES: *count = a->nshapes; return &a->scur;
  default: *count = a->norder; return &a->rcur;
  }
}

static bool Keys_navigate(App *a, int ch) {
  int count;
  ListCursor *c = Keys_focusedCursor(a, &count);
  int page = a->focus == PANEL_RESULTS ? getmaxy(a->w_results) - 3 : 5;
  if (page < 1) page = 1;
  switch (ch) {
  case KEY_UP: case 'k': ListCursor_move(c, count, -1); break;
  case KEY_DOWN: case 'j': ListCursor_move(c, count, 1); break;
  case KEY_PPAGE: ListCursor_move(c, count, -page); break;
  case KEY_NPAGE: ListCursor_move(c, count, page); break;
  case KEY_HOME: case 'g': ListCursor_move(c, count, -count); break;
  case KEY_END: case 'G': ListCursor_move(c, count, count); break;
  default: return false;
  }
  static const unsigned region[PANEL_COUNT] = {DIRTY_VARIANTS, DIRTY_SHAPES, DIRTY_RESULTS};
  a->dirty |= region[a->focus] | (a->focus == PANEL_RESULTS ? DIRTY_SIDE : 0);
  return true;
}

static void Keys_focus(App *a, PanelId p) {
  if (p == a->focus) return;
  a->focus = p;
  a->dirty |= DIRTY_VARIANTS | DIRTY_SHAPES | DIRTY_RESULTS | DIRTY_KEYBAR;
}

static void Keys_helpOverlay(App *a, int ch) {
  switch (ch) {
  case KEY_DOWN: case 'j': a->help_scroll++; break;
  case KEY_UP: case 'k': if (a->help_scroll > 0) a->help_scroll--; break;
  case KEY_NPAGE: case ' ': a->help_scroll += 10; break;
  case KEY_PPAGE: a->help_scroll = a->help_scroll > 10 ? a->help_scroll - 10 : 0; break;
  default:
    a->overlay = OVERLAY_NONE;
    a->dirty = DIRTY_ALL;
    return;
  }
  a->dirty |= DIRTY_OVERLAY;
}

void Keys_handle(App *a, int ch) {
  /* A message belongs to the key that caused it; the next key clears it. */
  if (a->message[0] && a->overlay != OVERLAY_PROMPT) {
    a->message[0] = 0;
    a->dirty |= DIRTY_KEYBAR;
  }
  switch (a->overlay) {
  case OVERLAY_HELP: Keys_helpOverlay(a, ch); return;
  case OVERLAY_PICKER: ViewPicker_key(a, ch); return;
  case OVERLAY_KNOBS: ViewKnobs_key(a, ch); return;
  case OVERLAY_PROMPT: case OVERLAY_CONFIRM: ViewPrompt_key(a, ch); return;
  case OVERLAY_NONE: break;
  }
  if (Keys_global(a, ch)) return;
  if (a->view == VIEW_DETAIL) {
    ViewDetail_key(a, ch);
    return;
  }
  if (a->view == VIEW_COMPARE) {
    ViewCompare_key(a, ch);
    return;
  }
  switch (ch) {
  case 'q':
    if (a->running) {
      Util_strlcpy(a->confirm_text, "A run is in flight. Quit anyway (it is cancelled)? y/n",
                   sizeof a->confirm_text);
      a->overlay = OVERLAY_CONFIRM;
      a->dirty |= DIRTY_OVERLAY;
    } else {
      a->quit = true;
    }
    return;
  case '\t': Keys_focus(a, (PanelId)((a->focus + 1) % PANEL_COUNT)); return;
  case KEY_BTAB: Keys_focus(a, (PanelId)((a->focus + PANEL_COUNT - 1) % PANEL_COUNT)); return;
  case '1': Keys_focus(a, PANEL_VARIANTS); return;
  case '2': Keys_focus(a, PANEL_SHAPES); return;
  case '3': Keys_focus(a, PANEL_RESULTS); return;
  case 'c': ViewCompare_open(a); return;
  default: break;
  }
  if (Keys_navigate(a, ch)) return;
  switch (a->focus) {
  case PANEL_VARIANTS: ViewVariants_key(a, ch); break;
  case PANEL_SHAPES: ViewShapes_key(a, ch); break;
  default: ViewResults_key(a, ch); break;
  }
}
