/* Compare: marked records side by side, one the baseline; each other cell shows its change
 * against the baseline, coloured better or worse by the row's direction. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

#define CMP_LABEL 16
#define CMP_COL 20

void ViewCompare_open(App *a) {
  CompareView *cv = &a->compare;
  const ResultsView *rv = &a->results;
  cv->count = 0;
  /* Display order, so the columns read like the table they were marked in. */
  for (int i = 0; i < rv->norder && cv->count < (int)(sizeof cv->rec / sizeof cv->rec[0]); i++)
    if (rv->marked[rv->order[i]]) cv->rec[cv->count++] = rv->order[i];
  if (cv->count < 2) {
    App_message(a, true, "mark at least two records with Space in Results, then c");
    return;
  }
  cv->base = cv->sel = cv->first = cv->scroll = 0;
  a->view = VIEW_COMPARE;
  a->dirty = DIRTY_ALL;
}

static void ViewCompare_cell(Page *p, const Record *r, const Record *base, const CompareRow *row,
                             bool is_base) {
  double v = row->get(r);
  char num[32];
  Columns_number(v, num, sizeof num);
  Page_text(p, isnan(v) ? TH_NA : TH_NORMAL, "%10s", num);
  if (is_base) {
    Page_text(p, TH_BASELINE, " %-8s", isnan(v) ? "" : "base");
    return;
  }
  double pct;
  int verdict = Columns_delta(row->get(base), v, row->dir, &pct);
  char d[32] = "";
  double b = row->get(base);
  if (!isnan(pct)) snprintf(d, sizeof d, fabs(pct) >= 1000 ? "%+.0e%%" : "%+.1f%%", pct);
  else if (!isnan(v) && !isnan(b)) snprintf(d, sizeof d, "%+g", v - b); /* from zero: absolute */
  Page_text(p, verdict > 0 ? TH_BETTER : verdict < 0 ? TH_WORSE : TH_DIM, " %-8s", d);
}

void ViewCompare_draw(App *a) {
  CompareView *cv = &a->compare;
  WINDOW *w = a->w_body;
  werase(w);
  int h = getmaxy(w), width = getmaxx(w);
  char title[96];
  snprintf(title, sizeof title, "Compare %d records", cv->count);
  Draw_box(a, w, title, true);
  int fit = (width - 2 - CMP_LABEL) / CMP_COL;
  if (fit < 1) fit = 1;
  if (cv->sel < cv->first) cv->first = cv->sel;
  if (cv->sel >= cv->first + fit) cv->first = cv->sel - fit + 1;
  int last = cv->first + fit < cv->count ? cv->first + fit : cv->count;
  const Record *base = &a->session.records[cv->rec[cv->base]];

  /* Header: four lines naming each record; the selected column in the cursor colour. */
  static const char *const head[] = {"variant", "knobs", "shape", "status"};
  for (int hl = 0; hl < 4; hl++) {
    wattrset(w, Theme_attr(TH_HEADER));
    mvwhline(w, 1 + hl, 1, ' ', width - 2);
    mvwprintw(w, 1 + hl, 1, " %-*s", CMP_LABEL - 1, head[hl]);
    for (int c = cv->first; c < last; c++) {
      const Record *r = &a->session.records[cv->rec[c]];
      char text[RECORD_KNOBS_MAX];
      if (hl == 0) snprintf(text, sizeof text, "%s%s", c == cv->base ? "=" : "", r->variant);
      else if (hl == 1) snprintf(text, sizeof text, "%s", r->knobs[0] ? r->knobs : "-");
      else if (hl == 2) Shape_format(&r->shape, text, sizeof text);
      else snprintf(text, sizeof text, "%s", Record_statusName(r->status));
      attr_t at = Theme_attr(c == cv->base ? TH_BASELINE : TH_HEADER);
      if (c == cv->sel) at = Theme_attr(TH_CURSOR);
      wattrset(w, at);
      mvwprintw(w, 1 + hl, 1 + CMP_LABEL + (c - cv->first) * CMP_COL, " %-*.*s", CMP_COL - 2,
                CMP_COL - 2, text);
    }
  }
  Page p;
  int body_h = h - 2 - 4 - 1;
  int maxscroll = Columns_compareRowCount - body_h;
  if (cv->scroll > maxscroll) cv->scroll = maxscroll > 0 ? maxscroll : 0;
  Page_begin(&p, a, w, cv->scroll, 5, body_h, 1, width - 2);
  for (int i = 0; i < Columns_compareRowCount; i++) {
    const CompareRow *row = &Columns_compareRows[i];
    const char *dir = row->dir == DIR_LOWER ? "-" : row->dir == DIR_HIGHER ? "+" : " ";
    Page_text(&p, TH_DIM, " %-*s%s", CMP_LABEL - 2, row->label, dir);
    for (int c = cv->first; c < last; c++)
      ViewCompare_cell(&p, &a->session.records[cv->rec[c]], base, row, c == cv->base);
    Page_newline(&p);
  }
  wattrset(w, Theme_attr(TH_DIM));
  char keys[160], foot[200];
  Keys_barText(&ViewCompare_keys, keys, sizeof keys);
  snprintf(foot, sizeof foot, "%s  (%d-%d of %d) ", keys, cv->first + 1, last, cv->count);
  Draw_clip(w, h - 1, 2, width - 4, foot);
  wattrset(w, Theme_attr(TH_NORMAL));
  wnoutrefresh(w);
}

static void ViewCompare_column(App *a, int ch) {
  CompareView *cv = &a->compare;
  if ((ch == KEY_LEFT || ch == 'h') && cv->sel > 0) cv->sel--;
  else if (ch != KEY_LEFT && ch != 'h' && cv->sel < cv->count - 1) cv->sel++;
  a->dirty |= DIRTY_BODY;
}

static void ViewCompare_scroll(App *a, int ch) {
  CompareView *cv = &a->compare;
  if (ch == KEY_DOWN || ch == 'j') cv->scroll++;
  else if (cv->scroll > 0) cv->scroll--;
  a->dirty |= DIRTY_BODY;
}

static void ViewCompare_baseline(App *a, int ch) {
  (void)ch;
  CompareView *cv = &a->compare;
  cv->base = cv->sel;
  const Record *r = &a->session.records[cv->rec[cv->base]];
  App_message(a, false, "baseline: %s %s", r->variant, r->knobs);
  a->dirty |= DIRTY_BODY;
}

static void ViewCompare_detail(App *a, int ch) {
  (void)ch;
  const ResultsView *rv = &a->results;
  for (int i = 0; i < rv->norder; i++)
    if (rv->order[i] == a->compare.rec[a->compare.sel]) a->results.cur.sel = i;
  ViewDetail_open(a, VIEW_COMPARE);
}

static void ViewCompare_close(App *a, int ch) {
  (void)ch;
  a->view = VIEW_MAIN;
  a->dirty = DIRTY_ALL;
}

static const KeyBinding ViewCompare_bindings[] = {
  {{KEY_LEFT, KEY_RIGHT, 'h', 'l'}, "Left Right / h l", "h/l column", "select a column",
   ViewCompare_column},
  {{'b'}, "b", "b baseline", "make the selected column the baseline", ViewCompare_baseline},
  {{KEY_UP, KEY_DOWN, 'k', 'j'}, "Up Down / k j", "j/k scroll", "scroll the rows",
   ViewCompare_scroll},
  {{'\n', KEY_ENTER}, "Enter", "Enter detail", "detail of the selected column's record",
   ViewCompare_detail},
  {{27, 'q', 'c'}, "Esc / q / c", "Esc back", "back to the main view", ViewCompare_close},
};
const KeyTable ViewCompare_keys = KEY_TABLE("Compare", ViewCompare_bindings);
