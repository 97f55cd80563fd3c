/* The help overlay: every key from Keys_help, scrollable when the terminal is short. */
#include <stdio.h>

#include "tui/tui.h"

void ViewHelp_draw(App *a) {
  int h = Keys_helpCount + 4, wd = a->cols - 4 < 92 ? a->cols - 4 : 92;
  if (h > a->rows - 2) h = a->rows - 2; /* the caller lays out for the clamped height */
  WINDOW *w = Draw_overlay(a, h, wd);
  if (!w) return;
  Draw_box(a, w, "Keys", true);
  int body = h - 3;
  int maxscroll = Keys_helpCount - body;
  if (a->help_scroll > maxscroll) a->help_scroll = maxscroll > 0 ? maxscroll : 0;
  Page p;
  Page_begin(&p, a, w, a->help_scroll, 1, body, 2, wd - 4);
  for (int i = 0; i < Keys_helpCount; i++) {
    Page_text(&p, TH_ACCENT, "%-17s", Keys_help[i].keys);
    Page_text(&p, TH_DIM, "%-9s", Keys_help[i].where);
    Page_text(&p, TH_NORMAL, "%s", Keys_help[i].what);
    Page_newline(&p);
  }
  wattrset(w, Theme_attr(TH_DIM));
  char foot[96];
  snprintf(foot, sizeof foot, " benchtop %s  %s  any key closes ", BENCHTOP_VERSION,
           maxscroll > 0 ? "j/k scroll" : "");
  Draw_clip(w, h - 2, 2, wd - 4, foot);
  wnoutrefresh(w);
}
