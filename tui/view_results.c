/* The results table: a row per record, sortable by any column, columns can be hidden; after a
 * replay, a last column shows p50 against the original session's matching record. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/best.h"
#include "tui/tui.h"

#define VS_ORIG_WIDTH 14 /* "+12.3% slower" */

static ThemeElem ViewResults_statusElem(RecordStatus st) {
  switch (st) {
  case REC_PASS: return TH_PASS;
  case REC_FAIL: case REC_ERROR: return TH_FAIL;
  default: return TH_NA;
  }
}

/* First scrollable column shown, so the column cursor stays on screen; variant is frozen. */
static int ViewResults_firstColumn(const App *a, int width) {
  const ResultsView *rv = &a->results;
  int first = COL_VARIANT + 1;
  for (;;) {
    int x = 2 + Columns[COL_VARIANT].width + 1;
    bool seen = rv->col_cursor == COL_VARIANT || Columns_position(rv->col_cursor) < first;
    for (int pos = first; pos < Columns_count() && !seen; pos++) {
      int c = Columns_at(pos);
      if (!Results_columnShown(a, c)) continue;
      x += Columns[c].width + 1;
      if (x > width) break;
      if (c == rv->col_cursor) seen = true;
    }
    if (seen || first >= Columns_count() - 1) return first;
    first++;
  }
}

/* Where each column goes (col_x, 0: not shown) and whether more columns lie off either side;
 * drawn rows and mouse clicks both read it. */
static void ViewResults_layout(App *a, int width) {
  ResultsView *rv = &a->results;
  int first = ViewResults_firstColumn(a, width), x = 3;
  rv->more_right = rv->more_left = false;
  memset(rv->col_x, 0, sizeof rv->col_x);
  for (int pos = 0; pos < Columns_count(); pos++) {
    int c = Columns_at(pos);
    if (!Results_columnShown(a, c)) continue;
    if (c != COL_VARIANT && pos < first) {
      rv->more_left = true;
      continue;
    }
    if (x + Columns[c].width > width + 1) {
      rv->more_right = true;
      break;
    }
    rv->col_x[c] = x;
    x += Columns[c].width + 1;
  }
  rv->end_x = x;
}

static void ViewResults_header(App *a, WINDOW *w, int width) {
  const ResultsView *rv = &a->results;
  wattrset(w, Theme_attr(TH_HEADER));
  mvwhline(w, 1, 1, ' ', width);
  for (int c = 0; c < COL_COUNT; c++) {
    if (!rv->col_x[c]) continue;
    int cw = Columns[c].width;
    char title[METRIC_NAME_MAX + 2];
    const char *arrow = c == rv->sort_col ? (rv->sort_desc ? "v" : "^") : "";
    snprintf(title, sizeof title, "%.*s%s", METRIC_NAME_MAX - 1, Columns[c].title, arrow);
    attr_t at = Theme_attr(c == rv->sort_col ? TH_HEADER_SORT : TH_HEADER);
    if (c == rv->col_cursor && a->focus == &View_results) at |= A_UNDERLINE | A_BOLD;
    wattrset(w, at);
    Draw_text(w, 1, rv->col_x[c], cw, !Columns[c].numeric, title); /* a session's metric name */
  }
  /* Columns off screen: < after the frozen variant column, > on the right border (h/l go
   * there), where it costs no column. */
  wattrset(w, Theme_attr(TH_HEADER_SORT) | A_BOLD);
  if (rv->more_left) mvwaddch(w, 1, rv->col_x[COL_VARIANT] + Columns[COL_VARIANT].width, '<');
  if (rv->more_right) mvwaddch(w, 1, width + 1, '>');
  if (a->original && !rv->more_right && rv->end_x + VS_ORIG_WIDTH <= width + 1) {
    wattrset(w, Theme_attr(TH_HEADER));
    mvwprintw(w, 1, rv->end_x, "%*s", VS_ORIG_WIDTH, "vs orig");
  }
}

static void ViewResults_row(App *a, WINDOW *w, const Record *r, bool marked, int y, int width,
                            attr_t cur) {
  const ResultsView *rv = &a->results;
  /* * marked for compare; W the winner of its tune (benchtop tune, T). */
  wattrset(w, Draw_attr(cur, TH_MARKED));
  mvwaddstr(w, y, 1, marked ? " *" : "  ");
  if (r->tune.winner) {
    wattrset(w, Draw_attr(cur, TH_ACCENT));
    mvwaddch(w, y, 1, 'W');
  }
  for (int c = 0; c < COL_COUNT; c++) {
    if (!rv->col_x[c]) continue;
    int cw = Columns[c].width, x = rv->col_x[c];
    char cell[RECORD_KNOBS_MAX];
    Columns_format(r, (ColumnId)c, cell, sizeof cell);
    ThemeElem el = TH_NORMAL;
    if (c == COL_STATUS) el = ViewResults_statusElem(r->status);
    else if (c == COL_VARIANT && marked) el = TH_MARKED;
    else if (strcmp(cell, "n/a") == 0) el = TH_NA;
    wattrset(w, Draw_attr(cur, el));
    Draw_text(w, y, x, cw, !Columns[c].numeric, cell);
  }
  if (a->original && !rv->more_right && rv->end_x + VS_ORIG_WIDTH <= width + 1) {
    /* The same verdict as diff and replay: faster or slower only when the interval says so. */
    const Comparison *cmp = Results_vsOriginal(a, (int)(r - a->session.records));
    char cell[48] = "n/a";
    ThemeElem el = TH_NA;
    if (cmp && !isnan(cmp->ratio)) {
      snprintf(cell, sizeof cell, "%+.1f%%%s %s", (cmp->ratio - 1) * 100,
               cmp->verdict == VERDICT_NA && cmp->reason[0] == 't' ? "e" : "",
               cmp->verdict == VERDICT_NA ? "?" : CompareStats_verdictName(cmp->verdict));
      el = cmp->verdict == VERDICT_FASTER ? TH_BETTER : cmp->verdict == VERDICT_SLOWER ? TH_WORSE
                                                                                     : TH_DIM;
    }
    wattrset(w, Draw_attr(cur, el));
    mvwprintw(w, y, rv->end_x, "%*s", VS_ORIG_WIDTH, cell);
  }
}

static void ViewResults_draw(App *a, unsigned dirty) {
  (void)dirty;
  WINDOW *w = a->w_results;
  werase(w);
  int width = getmaxx(w) - 2, h = getmaxy(w) - 3;
  ResultsView *rv = &a->results;
  char title[400], count[64], sort[96] = "", filter[300] = "";
  if (rv->filter[0]) {
    snprintf(count, sizeof count, "%d of %d", rv->norder, a->session.nrecords);
    snprintf(filter, sizeof filter, ", filter %s", rv->filter);
  } else {
    snprintf(count, sizeof count, "%d", rv->norder);
  }
  if (rv->sort_col >= 0)
    snprintf(sort, sizeof sort, ", by %s %s", Columns[rv->sort_col].title,
             rv->sort_desc ? "desc" : "asc");
  snprintf(title, sizeof title, "Results %s%s%s", count, sort, filter);
  Draw_box(a, w, title, a->focus == &View_results);
  if (h <= 0 || width <= 10) {
    wnoutrefresh(w);
    return;
  }
  ViewResults_layout(a, width);
  ViewResults_header(a, w, width);
  ListCursor *c = &a->results.cur;
  ListCursor_move(c, a->results.norder, 0);
  if (c->sel < c->top) c->top = c->sel;
  if (c->sel >= c->top + h) c->top = c->sel - h + 1;
  if (c->top > a->results.norder - h) c->top = a->results.norder - h > 0 ? a->results.norder - h : 0;
  if (a->results.norder == 0) {
    wattrset(w, Theme_attr(TH_DIM));
    Draw_clip(w, 3, 3, width - 2,
              a->session.nrecords ? "No record matches the filter (\\ or F4 changes it)."
                                  : "No records yet: check variants and shapes (Space), "
                                    "then r runs them.");
  }
  for (int i = 0; i < h && c->top + i < a->results.norder; i++) {
    int idx = a->results.order[c->top + i];
    attr_t cur = 0;
    if (c->top + i == c->sel) {
      cur = Theme_attr(a->focus == &View_results ? TH_CURSOR : TH_CURSOR_IDLE);
      wattrset(w, cur);
      mvwhline(w, 2 + i, 1, ' ', width);
    }
    ViewResults_row(a, w, &a->session.records[idx], rv->marked[idx], 2 + i, width, cur);
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
  int pos = Columns_position(rv->col_cursor);
  for (int step = 0; step < COL_COUNT; step++) {
    pos += delta;
    if (pos < 0 || pos >= Columns_count()) return;
    if (Results_columnShown(a, Columns_at(pos))) break;
  }
  if (Results_columnShown(a, Columns_at(pos))) rv->col_cursor = Columns_at(pos);
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
  rv->col_added[rv->col_cursor] = false;
  App_message(a, false, "hid column %s (A shows all, C chooses)", Columns[rv->col_cursor].title);
  ViewResults_moveColumn(a, 1);
  if (!Results_columnShown(a, rv->col_cursor)) ViewResults_moveColumn(a, -1);
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

static void ViewResults_chooseColumns(App *a, int ch) {
  (void)ch;
  View_columns.open(a, ch);
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
  if (a->results.norder > 0) ViewDetail_open(a, &View_main);
}

/* The filter and search prompts' hooks: at the end, with what they do. */
static const PromptHooks ViewResults_filterHooks, ViewResults_searchHooks;

/* ---- filter and search ---------------------------------------------------------------------- */

static void ViewResults_filterPrompt(App *a, int ch) {
  (void)ch;
  ResultsView *rv = &a->results;
  Util_strlcpy(rv->filter_before, rv->filter, sizeof rv->filter_before);
  ViewPrompt_open(a, &ViewResults_filterHooks, "filter: ", rv->filter);
}

static void ViewResults_searchPrompt(App *a, int ch) {
  (void)ch;
  a->results.search_from = a->results.cur.sel;
  ViewPrompt_open(a, &ViewResults_searchHooks, "search: ", "");
}

/* Moves the cursor to pos (a display position) and repaints. */
static void ViewResults_goTo(App *a, int pos) {
  a->results.cur.sel = pos;
  a->dirty |= DIRTY_RESULTS | DIRTY_SIDE;
}

/* The text typed so far as a query; false (the last good one stands) with the problem said. */
static bool ViewResults_liveQuery(App *a, const char *text, Query *q) {
  char err[256];
  if (!Query_parse(text, q, err, sizeof err)) {
    App_message(a, true, "%s", err); /* half typed */
    return false;
  }
  a->message[0] = 0;
  return true;
}

static void ViewResults_filterChanged(App *a, const char *text) {
  Query q;
  char err[256];
  if (ViewResults_liveQuery(a, text, &q)) Results_setFilter(a, text, err, sizeof err);
}

static void ViewResults_filterSaid(App *a, bool accepted) {
  ResultsView *rv = &a->results;
  if (rv->filter[0])
    App_message(a, false, "filter %s: %d of %d records (\\ then Ctrl-U clears it)", rv->filter,
                rv->norder, a->session.nrecords);
  else if (accepted)
    App_message(a, false, "no filter: all %d records", a->session.nrecords);
}

static bool ViewResults_filterAccept(App *a, const char *text, char *err, size_t errsize) {
  Query q;
  if (!Query_parse(text, &q, err, errsize)) return false;
  ViewResults_filterSaid(a, true);
  return true;
}

static void ViewResults_filterCancelled(App *a) {
  char err[256];
  Results_setFilter(a, a->results.filter_before, err, sizeof err);
  ViewResults_filterSaid(a, false);
}

static void ViewResults_searchChanged(App *a, const char *text) {
  ResultsView *rv = &a->results;
  Query q;
  if (!ViewResults_liveQuery(a, text, &q)) return;
  rv->search_query = q;
  Util_strlcpy(rv->search, text, sizeof rv->search);
  if (!text[0]) {
    ViewResults_goTo(a, rv->search_from);
    return;
  }
  int pos = Results_find(a, &q, rv->search_from, 1);
  if (pos < 0) App_message(a, true, "no match for %s", text);
  else ViewResults_goTo(a, pos);
}

static bool ViewResults_searchAccept(App *a, const char *text, char *err, size_t errsize) {
  Query q;
  if (!Query_parse(text, &q, err, errsize)) return false;
  if (a->results.search[0])
    App_message(a, false, "n / N: next / previous match of %s", a->results.search);
  return true;
}

static void ViewResults_searchCancelled(App *a) {
  ViewResults_goTo(a, a->results.search_from);
  a->results.search[0] = 0;
}

static const PromptHooks ViewResults_filterHooks = {
  ViewResults_filterAccept, ViewResults_filterChanged, ViewResults_filterCancelled,
};
static const PromptHooks ViewResults_searchHooks = {
  ViewResults_searchAccept, ViewResults_searchChanged, ViewResults_searchCancelled,
};

static void ViewResults_next(App *a, int ch) {
  ResultsView *rv = &a->results;
  if (!rv->search[0]) {
    App_message(a, false, "no search yet: / searches");
    return;
  }
  int dir = ch == 'N' ? -1 : 1;
  int pos = Results_find(a, &rv->search_query, rv->cur.sel + dir, dir);
  if (pos < 0) {
    App_message(a, true, "no match for %s", rv->search);
    return;
  }
  bool wrapped = dir > 0 ? pos <= rv->cur.sel : pos >= rv->cur.sel;
  ViewResults_goTo(a, pos);
  App_message(a, false, "match %s%s", rv->search, wrapped ? " (wrapped)" : "");
}

static const KeyBinding ViewResults_bindings[] = {
  {{' '}, "Space", "Spc mark", "mark / unmark the record (for compare)", ViewResults_mark},
  {{'\n', KEY_ENTER}, "Enter", "Enter detail", "detail of the record", ViewResults_detail},
  {{'s'}, "s", "s sort", "sort by the column under the cursor (again: reverse)", ViewResults_sort},
  {{'a'}, "a", NULL, "back to arrival order", ViewResults_arrival},
  {{'/', KEY_F(3)}, "/  F3", "/ search", "search (as you type; the terms of a filter)",
   ViewResults_searchPrompt},
  {{'n', 'N'}, "n N", NULL, "next / previous match of the search", ViewResults_next},
  {{'\\', KEY_F(4)}, "\\  F4", "\\ filter",
   "show only matching records: mma  variant:fa3  knobs:split=2  p50<12  !fail", ViewResults_filterPrompt},
  {{KEY_LEFT, KEY_RIGHT, 'h', 'l'}, "Left Right / h l", NULL, "move the column cursor",
   ViewResults_column},
  {{'H'}, "H", NULL, "hide the column under the cursor", ViewResults_hide},
  {{'A'}, "A", NULL, "show all columns", ViewResults_showAll},
  {{'C'}, "C", NULL, "choose columns: every metric, the catalog's and the session's own",
   ViewResults_chooseColumns},
  {{'u'}, "u", NULL, "clear all marks", ViewResults_unmark},
  {{'L'}, "L", NULL, "best so far: beside each record the best p50 of its configuration over the "
   "sessions folder and this session, and where (benchtop best's leaderboard; L again re-reads)",
   Best_load},
};
static const KeyTable ViewResults_keys = KEY_TABLE("Results", ViewResults_bindings);

static WINDOW *ViewResults_window(const App *a) { return a->w_results; }

static ListCursor *ViewResults_cursor(App *a, int *count) {
  *count = a->results.norder;
  return &a->results.cur;
}

/* A press on a column title sorts by it (as s does); one on a row selects it. */
static void ViewResults_click(App *a, int y, int x) {
  WINDOW *w = a->w_results;
  int wy = y - getbegy(w), wx = x - getbegx(w);
  if (wy != 1) {
    ViewMain_clickList(a, y, x, 2);
    return;
  }
  for (int c = 0; c < COL_COUNT; c++)
    if (a->results.col_x[c] && wx >= a->results.col_x[c] &&
        wx < a->results.col_x[c] + Columns[c].width) {
      a->results.col_cursor = c;
      Keys_handle(a, 's');
    }
}

const View View_results = {
  .name = "results", .layer = VIEW_PANEL, .keys = &ViewResults_keys,
  .draw = ViewResults_draw, .region = DIRTY_RESULTS, .click = ViewResults_click,
  .window = ViewResults_window, .cursor = ViewResults_cursor,
};
