/* Queries over records (see query.h). */
#include "tui/query.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tui/columns.h"

static void Query_lower(char *s) {
  for (; *s; s++) *s = (char)tolower((unsigned char)*s);
}

/* A column key at the start of word, ending at one of `ends`; its ColumnId or -1. */
static int Query_column(const char *word, size_t len) {
  char key[32];
  if (len == 0 || len >= sizeof key) return -1;
  memcpy(key, word, len);
  key[len] = 0;
  Query_lower(key);
  return Columns_find(key);
}

static bool Query_term(const char *word, QueryTerm *t, char *err, size_t errsize) {
  memset(t, 0, sizeof *t);
  if (word[0] == '!' && word[1]) {
    t->negate = true;
    word++;
  }
  size_t key = strcspn(word, "<>=:");
  int col = word[key] ? Query_column(word, key) : -1;
  if (col >= 0 && word[key] == ':' && !Columns[col].numeric) {
    t->kind = TERM_FIELD;
    t->col = col;
    Util_strlcpy(t->text, word + key + 1, sizeof t->text);
    Query_lower(t->text);
    return true;
  }
  if (col >= 0 && word[key] != ':' && Columns[col].numeric) {
    const char *op = word + key, *num = op + 1;
    if (op[0] == '<') t->kind = op[1] == '=' ? TERM_LESS_EQ : TERM_LESS;
    else if (op[0] == '>') t->kind = op[1] == '=' ? TERM_MORE_EQ : TERM_MORE;
    else t->kind = TERM_EQUAL;
    if (t->kind == TERM_LESS_EQ || t->kind == TERM_MORE_EQ || (op[0] == '=' && op[1] == '='))
      num++;
    char *end;
    t->number = strtod(num, &end);
    if (end == num || *end || !isfinite(t->number)) {
      snprintf(err, errsize, "%.60s: expected a number after the comparison (p50<12)", word);
      return false;
    }
    t->col = col;
    return true;
  }
  if (col >= 0) {
    snprintf(err, errsize, "%.60s: %s is a %s column (%s)", word, Columns[col].key,
             Columns[col].numeric ? "number" : "text",
             Columns[col].numeric ? "compare it: p50<12" : "match it: variant:mma");
    return false;
  }
  t->kind = TERM_TEXT;
  Util_strlcpy(t->text, word, sizeof t->text);
  Query_lower(t->text);
  return true;
}

bool Query_parse(const char *text, Query *q, char *err, size_t errsize) {
  memset(q, 0, sizeof *q);
  if (errsize) err[0] = 0;
  char buf[512];
  Util_strlcpy(buf, text, sizeof buf);
  for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    if (q->nterms == QUERY_MAX_TERMS) {
      snprintf(err, errsize, "at most %d terms", QUERY_MAX_TERMS);
      return false;
    }
    if (!Query_term(w, &q->terms[q->nterms], err, errsize)) return false;
    q->nterms++;
  }
  return true;
}

static bool Query_contains(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0) return true;
  return n == 0;
}

static bool Query_one(const QueryTerm *t, const Record *r) {
  char cell[RECORD_KNOBS_MAX + 64];
  switch (t->kind) {
  case TERM_TEXT:
    for (int c = COL_VARIANT; c <= COL_STATUS; c++) {
      if (c == COL_STATUS) snprintf(cell, sizeof cell, "%s", Record_statusName(r->status));
      else Columns_format(r, (ColumnId)c, cell, sizeof cell);
      if (Query_contains(cell, t->text)) return true;
    }
    return Query_contains(r->knobs, t->text);
  case TERM_FIELD:
    if (t->col == COL_STATUS) snprintf(cell, sizeof cell, "%s", Record_statusName(r->status));
    else Columns_format(r, (ColumnId)t->col, cell, sizeof cell);
    /* Knob lists are long ("block_m=64,block_n=64,..."): one setting is enough there, in
     * the full setting or the table's short label. */
    if (t->col == COL_KNOBS) return Query_contains(cell, t->text) || Query_contains(r->knobs, t->text);
    return strcasecmp(cell, t->text) == 0;
  default: {
    double v = Columns_value(r, (ColumnId)t->col);
    if (isnan(v)) return false;
    switch (t->kind) {
    case TERM_LESS: return v < t->number;
    case TERM_LESS_EQ: return v <= t->number;
    case TERM_MORE: return v > t->number;
    case TERM_MORE_EQ: return v >= t->number;
    default: return v == t->number;
    }
  }
  }
}

bool Query_match(const Query *q, const Record *r) {
  for (int i = 0; i < q->nterms; i++)
    if (Query_one(&q->terms[i], r) == q->terms[i].negate) return false;
  return true;
}
