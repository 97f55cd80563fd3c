/* The column chooser (C in Results): every column the table can show, the fixed ones, one per
 * metric of the catalog and one per metric of the session outside it (the user's own
 * --metrics names); Space puts one in or takes it out. The catalog's brief metrics are in by
 * default, its others and any metric without a value here are added from this list. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

void ViewColumns_open(App *a) {
  Results_rebuild(a); /* the session's own metrics registered */
  ListCursor *c = &a->columns.cur;
  int n = Columns_count();
  if (c->sel < 0 || c->sel >= n) c->sel = 0;
  if (a->results.col_cursor >= 0 && a->results.col_cursor < n)
    c->sel = Columns_position(a->results.col_cursor);
  a->overlay = OVERLAY_COLUMNS;
  a->dirty |= DIRTY_OVERLAY;
}

static void ViewColumns_row(App *a, WINDOW *w, int row, int y, int x, int width, attr_t cur) {
  int idx = Columns_at(row); /* rows in the table's order */
  const Column *col = &Columns[idx];
  bool shown = Results_columnShown(a, idx);
  int tw = 10; /* the titles' width: the longest, within reason */
  for (int c = 0; c < Columns_count(); c++) {
    int n = (int)strlen(Columns[c].title);
    if (n > tw) tw = n > 36 ? 36 : n;
  }
  char line[1024], note[300];
  bool optional = idx >= COL_METRICS || idx == COL_FLOOR || idx == COL_GBS || idx == COL_BOUND;
  if (optional && !a->results.col_valued[idx])
    snprintf(note, sizeof note, "no %s in this session", idx == COL_FLOOR || idx >= COL_METRICS
                                                             ? "values" : "decode problem");
  else
    snprintf(note, sizeof note, "%s", col->help ? col->help : "");
  snprintf(line, sizeof line, " [%c] %-*.*s %-10s", shown ? 'x' : ' ', tw, tw, col->title,
           col->unit);
  wattrset(w, Draw_attr(cur, shown ? TH_NORMAL : TH_DIM));
  Draw_clip(w, y, x, width, line);
  int at = (int)strlen(line) + 1;
  if (at < width) {
    /* The Nsight Compute name where the title is a short label, then what it counts. */
    bool named = col->metric[0] && strcmp(col->metric, col->title) != 0;
    snprintf(line, sizeof line, "%s%s%s", named ? col->metric : "", named ? "  " : "", note);
    wattrset(w, Draw_attr(cur, TH_DIM));
    Draw_clip(w, y, x + at, width - at, line);
  }
}

void ViewColumns_draw(App *a) {
  WINDOW *w = Draw_listOverlay(a, "Columns", 140, &a->columns.cur, Columns_count(),
                               ViewColumns_row, &ViewColumns_keys);
  if (w) wnoutrefresh(w);
}

static void ViewColumns_move(App *a, int ch) {
  ListCursor_move(&a->columns.cur, Columns_count(), Keys_delta(ch));
  a->dirty |= DIRTY_OVERLAY;
}

/* In or out: a hidden column comes back; a metric column that is not in by default is added. */
static void ViewColumns_toggle(App *a, int ch) {
  (void)ch;
  ResultsView *rv = &a->results;
  if (a->columns.cur.sel < 0 || a->columns.cur.sel >= Columns_count()) return;
  int c = Columns_at(a->columns.cur.sel);
  if (c == COL_VARIANT) {
    App_message(a, true, "the variant column stays");
    return;
  }
  bool was = Results_columnShown(a, c), hidden_before = rv->col_hidden[c];
  if (was) {
    rv->col_hidden[c] = true;
    rv->col_added[c] = false;
  } else {
    rv->col_hidden[c] = false;
    if (c >= COL_METRICS || c == COL_FLOOR || c == COL_GBS || c == COL_BOUND) rv->col_added[c] = true;
  }
  if (rv->col_hidden[c] != hidden_before) App_settingChanged(a, CONF_HIDDEN);
  App_message(a, false, "%s column %s", was ? "removed" : "added", Columns[c].title);
  a->dirty |= DIRTY_OVERLAY | DIRTY_RESULTS;
}

static void ViewColumns_close(App *a, int ch) {
  (void)ch;
  a->overlay = OVERLAY_NONE;
  if (!Results_columnShown(a, a->results.col_cursor)) a->results.col_cursor = COL_VARIANT;
  a->dirty = DIRTY_ALL;
}

static const KeyBinding ViewColumns_bindings[] = {
  {{KEY_UP, KEY_DOWN, 'k', 'j'}, "Up Down / k j", NULL, "move", ViewColumns_move},
  {{KEY_PPAGE, KEY_NPAGE}, "PgUp PgDn", NULL, "page up / down", ViewColumns_move},
  {{' '}, "Space", "Spc in/out", "put the column in the table or take it out", ViewColumns_toggle},
  {{27, '\n', KEY_ENTER, 'q'}, "Esc / Enter / q", "Esc close", "close the chooser",
   ViewColumns_close},
};
const KeyTable ViewColumns_keys = KEY_TABLE("Columns", ViewColumns_bindings);
