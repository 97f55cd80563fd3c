/* The help overlay: every binding of every key table (keys.c), in the tables' own words,
 * scrollable when the terminal is short. */
#include <stdio.h>

#include "tui/tui.h"

static int ViewHelp_lines(void) {
  int ntables, n = 0;
  const KeyTable *const *t = Keys_all(&ntables);
  for (int i = 0; i < ntables; i++) n += t[i]->count;
  return n;
}

static void ViewHelp_open(App *a, int ch) {
  (void)ch;
  a->help.scroll = 0;
  View_show(a, &View_help);
}

static void ViewHelp_draw(App *a, unsigned dirty) {
  (void)dirty;
  int lines = ViewHelp_lines();
  int h = lines + 4, wd = a->cols - 4 < 96 ? a->cols - 4 : 96;
  if (h > a->rows - 2) h = a->rows - 2; /* the caller lays out for the clamped height */
  WINDOW *w = Draw_overlay(a, h, wd);
  if (!w) return;
  Draw_box(a, w, "Keys", true);
  int body = h - 3;
  int maxscroll = lines - body;
  if (a->help.scroll > maxscroll) a->help.scroll = maxscroll > 0 ? maxscroll : 0;
  Page p;
  Page_begin(&p, a, w, a->help.scroll, 1, body, 2, wd - 4);
  int ntables;
  const KeyTable *const *t = Keys_all(&ntables);
  for (int i = 0; i < ntables; i++)
    for (int k = 0; k < t[i]->count; k++) {
      const KeyBinding *b = &t[i]->bindings[k];
      Page_text(&p, TH_ACCENT, "%-18s", b->label);
      Page_text(&p, TH_DIM, "%-9s", t[i]->where);
      Page_text(&p, TH_NORMAL, "%s", b->help);
      Page_newline(&p);
    }
  wattrset(w, Theme_attr(TH_DIM));
  char foot[96];
  snprintf(foot, sizeof foot, " benchtop %s  %s  any key closes ", BENCHTOP_VERSION,
           maxscroll > 0 ? "j/k scroll" : "");
  Draw_clip(w, h - 2, 2, wd - 4, foot);
  wnoutrefresh(w);
}

static void ViewHelp_scroll(App *a, int ch) {
  int *s = &a->help.scroll;
  switch (ch) {
  case KEY_DOWN: case 'j': (*s)++; break;
  case KEY_UP: case 'k': if (*s > 0) (*s)--; break;
  case KEY_NPAGE: case ' ': *s += 10; break;
  default: *s = *s > 10 ? *s - 10 : 0; break; /* PgUp */
  }
  a->dirty |= DIRTY_OVERLAY;
}

static const KeyBinding ViewHelp_bindings[] = {
  {{KEY_UP, KEY_DOWN, 'k', 'j'}, "Up Down / k j", NULL, "scroll this help", ViewHelp_scroll},
  {{KEY_PPAGE, KEY_NPAGE, ' '}, "PgUp PgDn Space", NULL, "scroll a page", ViewHelp_scroll},
  {{KEYS_ANY}, "any other key", NULL, "close this help", Keys_closeOverlay},
};
static const KeyTable ViewHelp_keys = KEY_TABLE("Help", ViewHelp_bindings);

const View View_help = {
  .name = "help", .layer = VIEW_OVERLAY, .open = ViewHelp_open, .keys = &ViewHelp_keys,
  .draw = ViewHelp_draw,
};
