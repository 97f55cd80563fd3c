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
  a->ncmp = 0;
  /* Display order, so the columns read like the table they were marked in. */
  for (int i = 0; i < a->norder && a->ncmp < (int)(sizeof a->cmp / sizeof a->cmp[0]); i++)
    if (a->marked[a->order[i]]) a->cmp[a->ncmp++] = a->order[i];
  if (a->ncmp < 2) {
    App_message(a, true, "mark at least two records with Space in Results, then c");
    return;
  }
  a->cmp_base = 0;
  a->cmp_sel = 0;
  a->cmp_first = 0;
  a->cmp_scroll = 0;
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
  WINDOW *w = a->w_body;
  werase(w);
  int h = getmaxy(w), width = getmaxx(w);
  char title[96];
  snprintf(title, sizeof title, "Compare %d records", a->ncmp);
  Draw_box(a, w, title, true);
  int fit = (width - 2 - CMP_LABEL) / CMP_COL;
  if (fit < 1) fit = 1;
  if (a->cmp_sel < a->cmp_first) a->cmp_first = a->cmp_sel;
  if (a->cmp_sel >= a->cmp_first + fit) a->cmp_first = a->cmp_sel - fit + 1;
  int last = a->cmp_first + fit < a->ncmp ? a->cmp_first + fit : a->ncmp;
  const Record *base = &a->session.records[a->cmp[a->cmp_base]];

  /* Header: four lines naming each record; the selected column in the cursor colour. */
  static const char *const head[] = {"variant", "knobs", "shape", "status"};
  for (int hl = 0; hl < 4; hl++) {
    wattrset(w, Theme_attr(TH_HEADER));
    mvwhline(w, 1 + hl, 1, ' ', width - 2);
    mvwprintw(w, 1 + hl, 1, " %-*s", CMP_LABEL - 1, head[hl]);
    for (int c = a->cmp_first; c < last; c++) {
      const Record *r = &a->session.records[a->cmp[c]];
      char text[RECORD_KNOBS_MAX];
      if (hl == 0) snprintf(text, sizeof text, "%s%s", c == a->cmp_base ? "=" : "", r->variant);
      else if (hl == 1) snprintf(text, sizeof text, "%s", r->knobs[0] ? r->knobs : "-");
      else if (hl == 2) Shape_format(&r->shape, text, sizeof text);
      else snprintf(text, sizeof text, "%s", Record_statusName(r->status));
      attr_t at = Theme_attr(c == a->cmp_base ? TH_BASELINE : TH_HEADER);
      if (c == a->cmp_sel) at = Theme_attr(TH_CURSOR);
      wattrset(w, at);
      mvwprintw(w, 1 + hl, 1 + CMP_LABEL + (c - a->cmp_first) * CMP_COL, " %-*.*s", CMP_COL - 2,
                CMP_COL - 2, text);
    }
  }
  Page p;
  int body_h = h - 2 - 4 - 1;
  int maxscroll = Columns_compareRowCount - body_h;
  if (a->cmp_scroll > maxscroll) a->cmp_scroll = maxscroll > 0 ? maxscroll : 0;
  Page_begin(&p, a, w, a->cmp_scroll, 5, body_h, 1, width - 2);
  for (int i = 0; i < Columns_compareRowCount; i++) {
    const CompareRow *row = &Columns_compareRows[i];
    const char *dir = row->dir == DIR_LOWER ? "-" : row->dir == DIR_HIGHER ? "+" : " ";
    Page_text(&p, TH_DIM, " %-*s%s", CMP_LABEL - 2, row->label, dir);
    for (int c = a->cmp_first; c < last; c++)
      ViewCompare_cell(&p, &a->session.records[a->cmp[c]], base, row, c == a->cmp_base);
    Page_newline(&p);
  }
  wattrset(w, Theme_attr(TH_DIM));
  char foot[160];
  snprintf(foot, sizeof foot, " h/l column  b baseline  j/k scroll  Esc back   (%d-%d of %d) ",
           a->cmp_first + 1, last, a->ncmp);
  Draw_clip(w, h - 1, 2, width - 4, foot);
  wattrset(w, Theme_attr(TH_NORMAL));
  wnoutrefresh(w);
}

void ViewCompare_key(App *a, int ch) {
  switch (ch) {
  case KEY_LEFT: case 'h': if (a->cmp_sel > 0) a->cmp_sel--; break;
  case KEY_RIGHT: case 'l': if (a->cmp_sel < a->ncmp - 1) a->cmp_sel++; break;
  case KEY_DOWN: case 'j': a->cmp_scroll++; break;
  case KEY_UP: case 'k': if (a->cmp_scroll > 0) a->cmp_scroll--; break;
  case 'b': {
    a->cmp_base = a->cmp_sel;
    const Record *r = &a->session.records[a->cmp[a->cmp_base]];
    App_message(a, false, "baseline: %s %s", r->variant, r->knobs);
    break;
  }
  case '\n': case KEY_ENTER: {
    /* Detail of the selected column's record. */
    for (int i = 0; i < a->norder; i++)
      if (a->order[i] == a->cmp[a->cmp_sel]) a->rcur.sel = i;
    a->view = VIEW_DETAIL;
    a->detail_return = VIEW_COMPARE;
    a->detail_scroll = 0;
    a->dirty = DIRTY_ALL;
    return;
  }
  case 27: case 'q': case 'c':
    a->view = VIEW_MAIN;
    a->dirty = DIRTY_ALL;
    return;
  default: return;
  }
  a->dirty |= DIRTY_BODY;
}
