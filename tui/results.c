/* The results table's data: which records it shows and in what order. No drawing here; the
 * view (view_results.c) reads ResultsView and marks nothing but its own region dirty. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

static const App *Results_sortApp;

static int Results_sortCmp(const void *x, const void *y) {
  const App *a = Results_sortApp;
  const ResultsView *rv = &a->results;
  int i = *(const int *)x, j = *(const int *)y;
  const Record *ri = &a->session.records[i], *rj = &a->session.records[j];
  ColumnId c = (ColumnId)rv->sort_col;
  if (Columns[c].numeric) {
    /* n/a last in both directions. */
    bool ni = isnan(Columns_value(ri, c)), nj = isnan(Columns_value(rj, c));
    if (ni != nj) return ni ? 1 : -1;
  }
  int r = Columns_compare(ri, rj, c);
  if (rv->sort_desc) r = -r;
  return r ? r : (i > j) - (i < j); /* ties keep arrival order */
}

void Results_rebuild(App *a) {
  ResultsView *rv = &a->results;
  const Record *keep = Results_selected(a);
  int keep_idx = keep ? (int)(keep - a->session.records) : -1;
  int n = a->session.nrecords;
  rv->order = Util_xrealloc(rv->order, (size_t)(n ? n : 1) * sizeof *rv->order);
  if (rv->marked_cap < n) {
    rv->marked = Util_xrealloc(rv->marked, (size_t)n * sizeof *rv->marked);
    memset(rv->marked + rv->marked_cap, 0, (size_t)(n - rv->marked_cap) * sizeof *rv->marked);
    rv->marked_cap = n;
  }
  rv->norder = 0;
  for (int i = 0; i < n; i++)
    if (!rv->filter[0] || Query_match(&rv->filter_query, &a->session.records[i]))
      rv->order[rv->norder++] = i;
  if (rv->sort_col >= 0 && rv->sort_col < COL_COUNT && rv->norder > 1) {
    Results_sortApp = a;
    qsort(rv->order, (size_t)rv->norder, sizeof *rv->order, Results_sortCmp);
  }
  for (int i = 0; i < rv->norder; i++)
    if (rv->order[i] == keep_idx) rv->cur.sel = i;
  ListCursor_move(&rv->cur, rv->norder, 0);
  a->dirty |= DIRTY_RESULTS | DIRTY_SIDE;
}

const Record *Results_selected(const App *a) {
  const ResultsView *rv = &a->results;
  if (rv->norder == 0 || rv->cur.sel < 0 || rv->cur.sel >= rv->norder) return NULL;
  return &a->session.records[rv->order[rv->cur.sel]];
}

bool Results_setFilter(App *a, const char *text, char *err, size_t errsize) {
  ResultsView *rv = &a->results;
  Query q;
  if (!Query_parse(text, &q, err, errsize)) return false;
  rv->filter_query = q;
  /* Kept as typed, less the spaces around it. */
  while (*text == ' ' || *text == '\t') text++;
  size_t n = Util_strlcpy(rv->filter, text, sizeof rv->filter);
  if (n >= sizeof rv->filter) n = sizeof rv->filter - 1;
  while (n && (rv->filter[n - 1] == ' ' || rv->filter[n - 1] == '\t')) rv->filter[--n] = 0;
  Results_rebuild(a);
  return true;
}

int Results_find(const App *a, const Query *q, int from, int dir) {
  const ResultsView *rv = &a->results;
  int n = rv->norder;
  for (int step = 0; step < n; step++) {
    int pos = ((from + dir * step) % n + n) % n;
    if (Query_match(q, &a->session.records[rv->order[pos]])) return pos;
  }
  return -1;
}
