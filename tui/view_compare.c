/* Compare: marked records side by side, one the baseline; each other cell shows its change
 * against the baseline, coloured better or worse by the row's direction. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "sessions/knob_label.h"
#include "tui/tui.h"

static const KeyTable ViewCompare_keys; /* at the end, with its actions */

#define CMP_LABEL 16
#define CMP_COL 22 /* at least: "slower [+23.6,+26.4]%" */
#define CMP_CELL 19 /* a value and its change */

/* Each record's p50 against the baseline's: interval and verdict, made once per baseline (the
 * bootstrap is too slow to repeat every frame). */
static void ViewCompare_verdicts(App *a) {
  CompareView *cv = &a->compare;
  const Record *base = &a->session.records[cv->rec[cv->base]];
  for (int i = 0; i < cv->count; i++)
    CompareStats_records(base, &a->session.records[cv->rec[i]], NULL, &cv->cmp[i]);
}

static void ViewCompare_open(App *a, int ch) {
  (void)ch;
  CompareView *cv = &a->compare;
  const ResultsView *rv = &a->results;
  const int most = (int)(sizeof cv->rec / sizeof cv->rec[0]);
  int marked = 0;
  cv->count = 0;
  /* Display order, so the columns read like the table they were marked in. */
  for (int i = 0; i < rv->norder; i++)
    if (rv->marked[rv->order[i]] && marked++ < most) cv->rec[cv->count++] = rv->order[i];
  if (cv->count < 2) {
    App_message(a, true, "mark at least two records with Space in Results, then c");
    return;
  }
  if (marked > most) /* side by side they would not fit anyway */
    App_message(a, true, "compare shows the first %d of the %d records marked (at most %d; u "
                "clears the marks)", most, marked, most);
  cv->base = cv->sel = cv->first = cv->scroll = 0;
  ViewCompare_verdicts(a);
  View_show(a, &View_compare);
}

/* A value and its change against the baseline's, coloured better or worse by the direction. */
static void ViewCompare_cell(Page *p, double v, double b, Direction dir, bool is_base) {
  char num[32];
  Columns_number(v, num, sizeof num);
  Page_text(p, isnan(v) ? TH_NA : TH_NORMAL, "%10s", num);
  if (is_base) {
    Page_text(p, TH_BASELINE, " %-8s", isnan(v) ? "" : "base");
    return;
  }
  double pct;
  int verdict = Columns_delta(b, v, dir, &pct);
  char d[32] = "";
  if (!isnan(pct)) snprintf(d, sizeof d, fabs(pct) >= 1000 ? "%+.0e%%" : "%+.1f%%", pct);
  else if (!isnan(v) && !isnan(b)) snprintf(d, sizeof d, "%+g", v - b); /* from zero: absolute */
  Page_text(p, verdict > 0 ? TH_BETTER : verdict < 0 ? TH_WORSE : TH_DIM, " %-8s", d);
}

/* The p50 verdict against the baseline: faster / slower / tied and the 95 % interval, as diff
 * and replay say it. */
static void ViewCompare_verdictCell(Page *p, const Comparison *c, bool is_base, int colw) {
  char iv[48] = "", text[64];
  if (is_base) {
    Page_text(p, TH_BASELINE, " %-*s", colw - 1, "base");
    return;
  }
  CompareStats_formatInterval(c, iv, sizeof iv);
  snprintf(text, sizeof text, "%s %s", c->verdict == VERDICT_NA ? "n/a" : CompareStats_verdictName(c->verdict), iv);
  ThemeElem el = c->verdict == VERDICT_FASTER ? TH_BETTER : c->verdict == VERDICT_SLOWER ? TH_WORSE
                 : c->verdict == VERDICT_NA ? TH_NA : TH_DIM;
  Page_text(p, el, " %-*.*s", colw - 1, colw - 1, text);
}

/* Metric columns that have a value in one of the compared records. */
static int ViewCompare_metricRows(const App *a, int *cols, int max) {
  const CompareView *cv = &a->compare;
  int n = 0;
  for (int c = COL_METRICS; c < Columns_count() && n < max; c++)
    for (int i = 0; i < cv->count; i++)
      if (!isnan(Columns_value(&a->session.records[cv->rec[i]], (ColumnId)c))) {
        cols[n++] = c;
        break;
      }
  return n;
}

static void ViewCompare_draw(App *a, unsigned dirty) {
  (void)dirty;
  CompareView *cv = &a->compare;
  WINDOW *w = a->w_body;
  werase(w);
  int h = getmaxy(w), width = getmaxx(w);
  char title[96];
  snprintf(title, sizeof title, "Compare %d records", cv->count);
  Draw_box(a, w, title, true);
  /* Columns as wide as the longest knob label: two settings never read the same. */
  int colw = CMP_COL;
  for (int c = 0; c < cv->count; c++) {
    char label[RECORD_KNOBS_MAX];
    const Record *r = &a->session.records[cv->rec[c]];
    KnobLabel_compact(r->variant, r->knobs, label, sizeof label);
    int need = (int)strlen(label) + 2;
    if (need > colw) colw = need > 44 ? 44 : need;
  }
  /* The label column as wide as the longest metric label (the user's own are long). */
  int mcols[COLUMNS_METRICS_MAX];
  int nmetric = ViewCompare_metricRows(a, mcols, COLUMNS_METRICS_MAX);
  int lw = CMP_LABEL;
  for (int k = 0; k < nmetric; k++) {
    int need = (int)strlen(Columns[mcols[k]].title) + 3;
    if (need > lw) lw = need > 48 ? 48 : need;
  }
  int fit = (width - 2 - lw) / colw;
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
    mvwprintw(w, 1 + hl, 1, " %-*s", lw - 1, head[hl]);
    for (int c = cv->first; c < last; c++) {
      const Record *r = &a->session.records[cv->rec[c]];
      char text[RECORD_KNOBS_MAX];
      if (hl == 0) snprintf(text, sizeof text, "%s%s", c == cv->base ? "=" : "", r->variant);
      else if (hl == 1) KnobLabel_compact(r->variant, r->knobs, text, sizeof text);
      else if (hl == 2) Shape_format(&r->shape, text, sizeof text);
      else snprintf(text, sizeof text, "%s", Record_statusName(r->status));
      attr_t at = Theme_attr(c == cv->base ? TH_BASELINE : TH_HEADER);
      if (c == cv->sel) at = Theme_attr(TH_CURSOR);
      wattrset(w, at);
      mvwaddch(w, 1 + hl, 1 + lw + (c - cv->first) * colw, ' ');
      Draw_text(w, 1 + hl, 2 + lw + (c - cv->first) * colw, colw - 2, true, text);
    }
  }
  Page p;
  int nrows = 1 + Columns_compareRowCount + nmetric;
  int body_h = h - 2 - 4 - 1;
  int maxscroll = nrows - body_h;
  if (cv->scroll > maxscroll) cv->scroll = maxscroll > 0 ? maxscroll : 0;
  Page_begin(&p, a, w, cv->scroll, 5, body_h, 1, width - 2);
  for (int i = 0; i < Columns_compareRowCount; i++) {
    const CompareRow *row = &Columns_compareRows[i];
    const char *dir = row->dir == DIR_LOWER ? "-" : row->dir == DIR_HIGHER ? "+" : " ";
    Page_text(&p, TH_DIM, " %-*s%s", lw - 2, row->label, dir);
    for (int c = cv->first; c < last; c++) {
      ViewCompare_cell(&p, row->get(&a->session.records[cv->rec[c]]), row->get(base), row->dir,
                       c == cv->base);
      Page_text(&p, TH_NORMAL, "%*s", colw - CMP_CELL, "");
    }
    Page_newline(&p);
    if (i == 0) { /* under p50: its verdict */
      Page_text(&p, TH_DIM, " %-*s ", lw - 2, "p50 verdict");
      for (int c = cv->first; c < last; c++) {
        ViewCompare_verdictCell(&p, &cv->cmp[c], c == cv->base, colw);
      }
      Page_newline(&p);
    }
  }
  for (int k = 0; k < nmetric; k++) {
    const Column *col = &Columns[mcols[k]];
    const char *dir = col->dir == DIR_LOWER ? "-" : col->dir == DIR_HIGHER ? "+" : " ";
    Page_text(&p, TH_DIM, " %-*.*s%s", lw - 2, lw - 2, col->title, dir);
    for (int c = cv->first; c < last; c++) {
      ViewCompare_cell(&p, Columns_value(&a->session.records[cv->rec[c]], (ColumnId)mcols[k]),
                       Columns_value(base, (ColumnId)mcols[k]), col->dir, c == cv->base);
      Page_text(&p, TH_NORMAL, "%*s", colw - CMP_CELL, "");
    }
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
  cv->sel = Index_move(cv->sel, cv->count, Keys_delta(ch));
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
  ViewCompare_verdicts(a);
  const Record *r = &a->session.records[cv->rec[cv->base]];
  App_message(a, false, "baseline: %s %s", r->variant, r->knobs);
  a->dirty |= DIRTY_BODY;
}

static void ViewCompare_detail(App *a, int ch) {
  (void)ch;
  const ResultsView *rv = &a->results;
  for (int i = 0; i < rv->norder; i++)
    if (rv->order[i] == a->compare.rec[a->compare.sel]) a->results.cur.sel = i;
  ViewDetail_open(a, &View_compare);
}

static void ViewCompare_close(App *a, int ch) {
  (void)ch;
  View_show(a, &View_main);
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
static const KeyTable ViewCompare_keys = KEY_TABLE("Compare", ViewCompare_bindings);

const View View_compare = {
  .name = "compare", .layer = VIEW_SCREEN, .open_keys = {'c'}, .open_label = "c",
  .open_bar = "c compare", .help = "compare the marked records side by side",
  .open = ViewCompare_open, .keys = &ViewCompare_keys, .draw = ViewCompare_draw,
  .region = DIRTY_BODY | DIRTY_RESULTS | DIRTY_SIDE,
};
