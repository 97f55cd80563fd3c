/* Queries over records, for the results filter (\ or F4) and search (/), as a user types
 * them: whitespace-separated terms that must all hold.
 *   mma            the text "mma" in variant, knobs, shape or status (any case)
 *   variant:mma    that column is exactly "mma" (variant, shape, status; knobs:block_m=64
 *                  holds that setting)
 *   p50<12         a number column compared (<, <=, >, >=, =); n/a never matches
 *   !fp8           not that term
 * No curses here. */
#ifndef BENCHTOP_TUI_QUERY_H
#define BENCHTOP_TUI_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "sessions/record.h"

#define QUERY_MAX_TERMS 16

typedef enum { TERM_TEXT, TERM_FIELD, TERM_LESS, TERM_LESS_EQ, TERM_MORE, TERM_MORE_EQ,
               TERM_EQUAL } TermKind;

typedef struct QueryTerm {
  TermKind kind;
  bool negate;
  int col;                 /* ColumnId for all but TERM_TEXT */
  char text[128];          /* TERM_TEXT, TERM_FIELD (lower case) */
  double number;
} QueryTerm;

typedef struct Query {
  int nterms;
  QueryTerm terms[QUERY_MAX_TERMS];
} Query;

/* False with one line in err ("p50<x: expected a number after <"). An empty text is the query
 * that every record matches. */
bool Query_parse(const char *text, Query *q, char *err, size_t errsize);
bool Query_match(const Query *q, const Record *r);

#endif
