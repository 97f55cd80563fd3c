/* The results table: a row per record, sortable by any column, columns can be hidden; after a
 * replay, a last column shows p50 against the original session's matching record. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

static const Record *ViewResults_original(const App *a, const Record *r) {
  if (!a->original) return NULL;
  for (int i = 0; i < a->original->nrecords; i++)
    if (Record_sameKey(&a->original->records[i], r)) return &a->original->records[i];
  return NULL;
}

static ThemeElem ViewResults_statusElem(RecordStatus st) {
  switch (st) {
  case REC_PASS: return TH_PASS;
  case REC_FAIL: case REC_ERROR: return TH_FAIL;
  default: return TH_NA;
  }
}

/* First scrollable column shown, so the column cursor stays on screen; variant is frozen. */
static int ViewResults_firstColumn(const App *a, int width) {
  int first = COL_VARIANT + 1;
  for (;;) {
    int x = 2 + Columns[COL_VARIANT].width + 1;
    bool seen = a->results.col_cursor == COL_VARIANT || a->results.col_cursor < first;
    for (int c = first; c < COL_COUNT && !seen; c++) {
      if (a->results.col_hidden[c]) continue;
      x += Columns[c].width + 1;
      if (x > width) break;
      if (c == a->results.col_cursor) seen = true;
    }
    if (seen || first >= COL_COUNT - 1) return first;
    first++;
  }
}

static void ViewResults_header(App *a, WINDOW *w, int width, int first) {
  wattrset(w, Theme_attr(TH_HEADER));
  mvwhline(w, 1, 1, ' ', width);
  int x = 3;
  for (int c = 0; c < COL_COUNT; c++) {
    if (a->results.col_hidden[c] || (c != COL_VARIANT && c < first)) continue;
    int cw = Columns[c].width;
    if (x + cw > width + 1) break;
    char title[32];
    const char *arrow = c == a->results.sort_col ? (a->results.sort_desc ? "v" : "^") : "";
    snprintf(title, sizeof title, "%s%s", Columns[c].title, arrow);
    attr_t at = Theme_attr(c == a->results.sort_col ? TH_HEADER_SORT : TH_HEADER);
    if (c == a->results.col_cursor && a->focus == PANEL_RESULTS) at |= A_UNDERLINE | A_BOLD;
    wattrset(w, at);
    if (Columns[c].numeric) mvwprintw(w, 1, x, "%*.*s", cw, cw, title);
    else mvwprintw(w, 1, x, "%-*.*s", cw, cw, title);
    x += cw + 1;
  }
  if (a->original && x + 9 <= width + 1) {
    wattrset(w, Theme_attr(TH_HEADER));
    mvwprintw(w, 1, x, "%9s", "vs orig");
  }
}

static void ViewResults_row(App *a, WINDOW *w, const Record *r, bool marked, int y, int width,
                            int first, attr_t cur) {
  wattrset(w, Draw_attr(cur, TH_MARKED));
  mvwaddstr(w, y, 1, marked ? " *" : "  ");
  int x = 3;
  for (int c = 0; c < COL_COUNT; c++) {
    if (a->results.col_hidden[c] || (c != COL_VARIANT && c < first)) continue;
    int cw = Columns[c].width;
    if (x + cw > width + 1) break;
    char cell[RECORD_KNOBS_MAX];
    Columns_format(r, (ColumnId)c, cell, sizeof cell);
    ThemeElem el = TH_NORMAL;
    if (c == COL_STATUS) el = ViewResults_statusElem(r->status);
    else if (c == COL_VARIANT && marked) el = TH_MARKED;
    else if (strcmp(cell, "n/a") == 0) el = TH_NA;
    wattrset(w, Draw_attr(cur, el));
    if (Columns[c].numeric) mvwprintw(w, y, x, "%*.*s", cw, cw, cell);
    else mvwprintw(w, y, x, "%-*.*s", cw, cw, cell);
    x += cw + 1;
  }
  const Record *o = ViewResults_original(a, r);
  if (a->original && x + 9 <= width + 1) {
    double pct;
    double po = NAN, pr = NAN;
    bool by_events = o && Record_comparableP50(o, r, &po, &pr); /* one clock on both sides */
    int better = o ? Columns_delta(po, pr, DIR_LOWER, &pct) : 0;
    char cell[32];
    if (!o || isnan(pct)) snprintf(cell, sizeof cell, "n/a");
    else snprintf(cell, sizeof cell, "%+.1f%%%s", pct, by_events ? "e" : "");
    wattrset(w, Draw_attr(cur, better > 0 ? TH_BETTER : better < 0 ? TH_WORSE : TH_NA));
    mvwprintw(w, y, x, "%9s", cell);
  }
}

void ViewResults_draw(App *a) {
  WINDOW *w = a->w_results;
  werase(w);
  int width = getmaxx(w) - 2, h = getmaxy(w) - 3;
  char title[160];
  if (a->results.sort_col >= 0)
    snprintf(title, sizeof title, "Results %d, by %s %s", a->results.norder, Columns[a->results.sort_col].title,
             a->results.sort_desc ? "desc" : "asc");
  else
    snprintf(title, sizeof title, "Results %d", a->results.norder);
  Draw_box(a, w, title, a->focus == PANEL_RESULTS);
  if (h <= 0 || width <= 10) {
    wnoutrefresh(w);
    return;
  }
  int first = ViewResults_firstColumn(a, width);
  ViewResults_header(a, w, width, first);
  ListCursor *c = &a->results.cur;
  ListCursor_move(c, a->results.norder, 0);
  if (c->sel < c->top) c->top = c->sel;
  if (c->sel >= c->top + h) c->top = c->sel - h + 1;
  if (c->top > a->results.norder - h) c->top = a->results.norder - h > 0 ? a->results.norder - h : 0;
  if (a->results.norder == 0) {
    wattrset(w, Theme_attr(TH_DIM));
    Draw_clip(w, 3, 3, width - 2,
              a->session.nrecords ? "" : "No records yet: check variants and shapes (Space), "
                                         "then r runs them.");
  }
  for (int i = 0; i < h && c->top + i < a->results.norder; i++) {
    int idx = a->results.order[c->top + i];
    attr_t cur = 0;
    if (c->top + i == c->sel) {
      cur = Theme_attr(a->focus == PANEL_RESULTS ? TH_CURSOR : TH_CURSOR_IDLE);
      wattrset(w, cur);
      mvwhline(w, 2 + i, 1, ' ', width);
    }
    ViewResults_row(a, w, &a->session.records[idx], a->results.marked[idx], 2 + i, width, first, cur);
  }
  if (a->results.norder > h) {
    char pos[32];
    snprintf(pos, sizeof pos, " %d/%d ", c->sel + 1, a->results.norder);
    wattrset(w, Theme_attr(TH_BORDER));
    mvwaddstr(w, h + 2, width - (int)strlen(pos), pos);
  }
  wattrset(w, Theme_attr(TH_NORMAL));
  wnoutrefresh(w);
}

static void ViewResults_moveColumn(App *a, int delta) {
  ResultsView *rv = &a->results;
  int c = rv->col_cursor;
  for (int step = 0; step < COL_COUNT; step++) {
    c += delta;
    if (c < 0 || c >= COL_COUNT) return;
    if (!rv->col_hidden[c]) break;
  }
  if (c >= 0 && c < COL_COUNT && !rv->col_hidden[c]) rv->col_cursor = c;
}

static void ViewResults_column(App *a, int ch) {
  ViewResults_moveColumn(a, ch == KEY_LEFT || ch == 'h' ? -1 : 1);
  a->dirty |= DIRTY_RESULTS;
}

static void ViewResults_sort(App *a, int ch) {
  (void)ch;
  ResultsView *rv = &a->results;
  if (rv->sort_col == rv->col_cursor) {
    rv->sort_desc = !rv->sort_desc;
  } else {
    rv->sort_col = rv->col_cursor;
    /* Best first: higher-is-better columns start descending. */
    rv->sort_desc = Columns[rv->col_cursor].dir == DIR_HIGHER;
  }
  Results_rebuild(a);
  App_message(a, false, "sorted by %s (%s)", Columns[rv->sort_col].title,
              rv->sort_desc ? "descending" : "ascending");
  App_settingChanged(a, CONF_SORT);
}

static void ViewResults_arrival(App *a, int ch) {
  (void)ch;
  a->results.sort_col = -1;
  Results_rebuild(a);
  App_message(a, false, "arrival order");
  App_settingChanged(a, CONF_SORT);
}

static void ViewResults_hide(App *a, int ch) {
  (void)ch;
  ResultsView *rv = &a->results;
  if (rv->col_cursor == COL_VARIANT) {
    App_message(a, true, "the variant column stays");
    return;
  }
  rv->col_hidden[rv->col_cursor] = true;
  App_message(a, false, "hid column %s (A shows all)", Columns[rv->col_cursor].title);
  ViewResults_moveColumn(a, 1);
  if (rv->col_hidden[rv->col_cursor]) ViewResults_moveColumn(a, -1);
  App_settingChanged(a, CONF_HIDDEN);
  a->dirty |= DIRTY_RESULTS;
}

static void ViewResults_showAll(App *a, int ch) {
  (void)ch;
  memset(a->results.col_hidden, 0, sizeof a->results.col_hidden);
  App_message(a, false, "all columns shown");
  App_settingChanged(a, CONF_HIDDEN);
  a->dirty |= DIRTY_RESULTS;
}

static void ViewResults_mark(App *a, int ch) {
  (void)ch;
  ResultsView *rv = &a->results;
  if (rv->norder == 0) return;
  int idx = rv->order[rv->cur.sel];
  rv->marked[idx] = !rv->marked[idx];
  ListCursor_move(&rv->cur, rv->norder, 1);
  int n = 0;
  for (int i = 0; i < a->session.nrecords; i++) n += rv->marked[i];
  App_message(a, false, "%d marked%s", n, n >= 2 ? " (c compares)" : "");
  a->dirty |= DIRTY_RESULTS | DIRTY_SIDE;
}

static void ViewResults_unmark(App *a, int ch) {
  (void)ch;
  memset(a->results.marked, 0, (size_t)a->session.nrecords * sizeof *a->results.marked);
  App_message(a, false, "marks cleared");
  a->dirty |= DIRTY_RESULTS;
}

static void ViewResults_detail(App *a, int ch) {
  (void)ch;
  if (a->results.norder > 0) ViewDetail_open(a, VIEW_MAIN);
}

static const KeyBinding ViewResults_bindings[] = {
  {{' '}, "Space", "Spc mark", "mark / unmark the record (for compare)", ViewResults_mark},
  {{'\n', KEY_ENTER}, "Enter", "Enter detail", "detail of the record", ViewResults_detail},
  {{'s'}, "s", "s sort", "sort by the column under the cursor (again: reverse)", ViewResults_sort},
  {{'n'}, "n", NULL, "back to arrival order", ViewResults_arrival},
  {{KEY_LEFT, KEY_RIGHT, 'h', 'l'}, "Left Right / h l", NULL, "move the column cursor",
   ViewResults_column},
  {{'H'}, "H", NULL, "hide the column under the cursor", ViewResults_hide},
  {{'A'}, "A", NULL, "show all columns", ViewResults_showAll},
  {{'u'}, "u", NULL, "clear all marks", ViewResults_unmark},
};
const KeyTable ViewResults_keys = KEY_TABLE("Results", ViewResults_bindings);
