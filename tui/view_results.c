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
    bool seen = a->col_cursor == COL_VARIANT || a->col_cursor < first;
    for (int c = first; c < COL_COUNT && !seen; c++) {
      if (a->col_hidden[c]) continue;
      x += Columns[c].width + 1;
      if (x > width) break;
      if (c == a->col_cursor) seen = true;
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
    if (a->col_hidden[c] || (c != COL_VARIANT && c < first)) continue;
    int cw = Columns[c].width;
    if (x + cw > width + 1) break;
    char title[32];
    const char *arrow = c == a->sort_col ? (a->sort_desc ? "v" : "^") : "";
    snprintf(title, sizeof title, "%s%s", Columns[c].title, arrow);
    attr_t at = Theme_attr(c == a->sort_col ? TH_HEADER_SORT : TH_HEADER);
    if (c == a->col_cursor && a->focus == PANEL_RESULTS) at |= A_UNDERLINE | A_BOLD;
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
    if (a->col_hidden[c] || (c != COL_VARIANT && c < first)) continue;
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
  if (a->sort_col >= 0)
    snprintf(title, sizeof title, "Results %d, by %s %s", a->norder, Columns[a->sort_col].title,
             a->sort_desc ? "desc" : "asc");
  else
    snprintf(title, sizeof title, "Results %d", a->norder);
  Draw_box(a, w, title, a->focus == PANEL_RESULTS);
  if (h <= 0 || width <= 10) {
    wnoutrefresh(w);
    return;
  }
  int first = ViewResults_firstColumn(a, width);
  ViewResults_header(a, w, width, first);
  ListCursor *c = &a->rcur;
  ListCursor_move(c, a->norder, 0);
  if (c->sel < c->top) c->top = c->sel;
  if (c->sel >= c->top + h) c->top = c->sel - h + 1;
  if (c->top > a->norder - h) c->top = a->norder - h > 0 ? a->norder - h : 0;
  if (a->norder == 0) {
    wattrset(w, Theme_attr(TH_DIM));
    Draw_clip(w, 3, 3, width - 2,
              a->session.nrecords ? "" : "No records yet: check variants and shapes (Space), "
                                         "then r runs them.");
  }
  for (int i = 0; i < h && c->top + i < a->norder; i++) {
    int idx = a->order[c->top + i];
    attr_t cur = 0;
    if (c->top + i == c->sel) {
      cur = Theme_attr(a->focus == PANEL_RESULTS ? TH_CURSOR : TH_CURSOR_IDLE);
      wattrset(w, cur);
      mvwhline(w, 2 + i, 1, ' ', width);
    }
    ViewResults_row(a, w, &a->session.records[idx], a->marked[idx], 2 + i, width, first, cur);
  }
  if (a->norder > h) {
    char pos[32];
    snprintf(pos, sizeof pos, " %d/%d ", c->sel + 1, a->norder);
    wattrset(w, Theme_attr(TH_BORDER));
    mvwaddstr(w, h + 2, width - (int)strlen(pos), pos);
  }
  wattrset(w, Theme_attr(TH_NORMAL));
  wnoutrefresh(w);
}

static void ViewResults_moveColumn(App *a, int delta) {
  int c = a->col_cursor;
  for (int step = 0; step < COL_COUNT; step++) {
    c += delta;
    if (c < 0 || c >= COL_COUNT) return;
    if (!a->col_hidden[c]) break;
  }
  if (c >= 0 && c < COL_COUNT && !a->col_hidden[c]) a->col_cursor = c;
}

void ViewResults_key(App *a, int ch) {
  switch (ch) {
  case KEY_LEFT: case 'h': ViewResults_moveColumn(a, -1); break;
  case KEY_RIGHT: case 'l': ViewResults_moveColumn(a, 1); break;
  case 's':
    if (a->sort_col == a->col_cursor) {
      a->sort_desc = !a->sort_desc;
    } else {
      a->sort_col = a->col_cursor;
      /* Best first: higher-is-better columns start descending. */
      a->sort_desc = Columns[a->col_cursor].dir == DIR_HIGHER;
    }
    App_rebuildOrder(a);
    App_message(a, false, "sorted by %s (%s)", Columns[a->sort_col].title,
                a->sort_desc ? "descending" : "ascending");
    break;
  case 'n':
    a->sort_col = -1;
    App_rebuildOrder(a);
    App_message(a, false, "arrival order");
    break;
  case 'H':
    if (a->col_cursor == COL_VARIANT) {
      App_message(a, true, "the variant column stays");
      return;
    }
    a->col_hidden[a->col_cursor] = true;
    App_message(a, false, "hid column %s (A shows all)", Columns[a->col_cursor].title);
    ViewResults_moveColumn(a, 1);
    if (a->col_hidden[a->col_cursor]) ViewResults_moveColumn(a, -1);
    break;
  case 'A':
    memset(a->col_hidden, 0, sizeof a->col_hidden);
    App_message(a, false, "all columns shown");
    break;
  case ' ': {
    if (a->norder == 0) return;
    int idx = a->order[a->rcur.sel];
    a->marked[idx] = !a->marked[idx];
    ListCursor_move(&a->rcur, a->norder, 1);
    int n = 0;
    for (int i = 0; i < a->session.nrecords; i++) n += a->marked[i];
    App_message(a, false, "%d marked%s", n, n >= 2 ? " (c compares)" : "");
    break;
  }
  case 'u':
    memset(a->marked, 0, (size_t)a->session.nrecords * sizeof *a->marked);
    App_message(a, false, "marks cleared");
    break;
  case '\n': case KEY_ENTER:
    if (a->norder == 0) return;
    a->view = VIEW_DETAIL;
    a->detail_return = VIEW_MAIN;
    a->detail_scroll = 0;
    a->dirty = DIRTY_ALL;
    return;
  default: return;
  }
  a->dirty |= DIRTY_RESULTS | DIRTY_SIDE;
}
