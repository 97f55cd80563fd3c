/* The integer expressions of kernel declarations (launch geometry, scratch sizes, constraints):
 * 64-bit integers, + - * / %, comparisons, ! && || (short-circuit), c ? a : b, cdiv, min, max,
 * parentheses, and names resolved when the text is parsed (a typo is a parse error, never a
 * silent zero). No side effects, no loops: evaluation always ends. Overflow and division by
 * zero are evaluation errors, never wrapped or undefined values. */
#ifndef BENCHTOP_EXPR_H
#define BENCHTOP_EXPR_H

#include <stdbool.h>
#include <stddef.h>

/* The nodes of every expression of one declaration; an expression is the index of its root. */
typedef struct ExprPool {
  struct ExprNode *nodes;
  int count, cap;
} ExprPool;

typedef int ExprId; /* -1: none */

/* Resolving names while parsing. lookup: the slot of a name, or -1 when unknown. word: the
 * number a quoted word stands for when compared with slot (a knob's word value: sched ==
 * "plain"); false when that slot has no such word. */
typedef struct ExprScope {
  int (*lookup)(void *user, const char *name, size_t len);
  bool (*word)(void *user, int slot, const char *word, size_t len, long long *value);
  void *user;
} ExprScope;

typedef enum {
  EXPR_OK,
  EXPR_FAILED,  /* division by zero, overflow: err says which */
  EXPR_UNKNOWN, /* a name whose value is not known here (a device fact with no device) */
} ExprStatus;

/* Reading a slot's value while evaluating (a shape dimension, a knob, a device fact, or a
 * named sub-expression evaluated on demand). */
typedef struct ExprEnv {
  ExprStatus (*get)(void *user, int slot, long long *out, char *err, size_t errsize);
  void *user;
} ExprEnv;

void ExprPool_init(ExprPool *p);
void ExprPool_free(ExprPool *p);

/* Parses one expression at *text, leaving *text at the first character it does not belong to
 * (a ',' or ')' of an enclosing list, a ':' ending a condition, a keyword, the end). On
 * failure -1 with err holding what is wrong and *text where. */
ExprId Expr_parse(ExprPool *p, const char **text, const ExprScope *scope, char *err,
                  size_t errsize);
ExprStatus Expr_eval(const ExprPool *p, ExprId e, const ExprEnv *env, long long *out, char *err,
                     size_t errsize);
/* True when e reads slot (directly: names of sub-expressions are slots of their own). */
bool Expr_uses(const ExprPool *p, ExprId e, int slot);

#endif
