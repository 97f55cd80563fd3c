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

/* Which metric columns have values, the user's metrics registered, the knobs column sized. */
static void Results_noteColumns(App *a) {
  ResultsView *rv = &a->results;
  Columns_noteSession(&a->session);
  for (int c = COL_METRICS; c < Columns_count(); c++)
    rv->col_valued[c] = Columns_anyValue(&a->session, c);
  rv->col_valued[COL_FLOOR] = Columns_anyValue(&a->session, COL_FLOOR);
  /* GB/s and the bound are the headline of a decode problem (bandwidth-bound). */
  bool decode = false;
  for (int i = 0; i < a->session.nrecords; i++) decode |= Shape_isDecode(&a->session.records[i].shape);
  rv->col_valued[COL_GBS] = rv->col_valued[COL_BOUND] = decode;
}

bool Results_columnShown(const App *a, int c) {
  const ResultsView *rv = &a->results;
  if (c < 0 || c >= Columns_count() || !Columns[c].key[0] || rv->col_hidden[c]) return false;
  if (c == COL_FLOOR || c == COL_GBS || c == COL_BOUND) /* ceilings measured; decode problems */
    return rv->col_valued[c] || rv->col_added[c];
  return c < COL_METRICS || rv->col_added[c] || (Columns[c].brief && rv->col_valued[c]);
}

void Results_forgetOriginal(App *a) {
  ResultsView *rv = &a->results;
  free(rv->vs_orig);
  free(rv->vs_orig_done);
  rv->vs_orig = NULL;
  rv->vs_orig_done = NULL;
  rv->vs_orig_cap = 0;
}

void Results_forgetRecords(App *a) {
  Results_forgetOriginal(a);
  ResultsView *rv = &a->results;
  free(rv->marked);
  rv->marked = NULL;
  rv->marked_cap = 0;
  rv->norder = 0;
  rv->cur.sel = rv->cur.top = 0;
}

const Comparison *Results_vsOriginal(App *a, int idx) {
  ResultsView *rv = &a->results;
  if (!a->original || idx < 0 || idx >= a->session.nrecords) return NULL;
  if (idx >= rv->vs_orig_cap) {
    int cap = a->session.nrecords + 16;
    rv->vs_orig = Util_xrealloc(rv->vs_orig, sizeof *rv->vs_orig * (size_t)cap);
    rv->vs_orig_done = Util_xrealloc(rv->vs_orig_done, sizeof *rv->vs_orig_done * (size_t)cap);
    memset(rv->vs_orig_done + rv->vs_orig_cap, 0,
           sizeof *rv->vs_orig_done * (size_t)(cap - rv->vs_orig_cap));
    rv->vs_orig_cap = cap;
  }
  const Record *r = &a->session.records[idx], *o = NULL;
  for (int i = 0; i < a->original->nrecords && !o; i++)
    if (Record_sameKey(&a->original->records[i], r)) o = &a->original->records[i];
  if (!o) return NULL;
  if (!rv->vs_orig_done[idx]) { /* the bootstrap once per record, not once per frame */
    CompareStats_records(o, r, NULL, &rv->vs_orig[idx]);
    rv->vs_orig_done[idx] = true;
  }
  return &rv->vs_orig[idx];
}

void Results_rebuild(App *a) {
  ResultsView *rv = &a->results;
  Results_noteColumns(a);
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
