/* A recursive-descent parser into a node pool, and an evaluator that checks every operation.
 * Precedence, lowest first: ?:, ||, &&, comparisons, + -, * / %, unary - and !. Nesting is
 * bounded so that a hostile declaration cannot exhaust the stack. */
#include "kernels/expr.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define EXPR_MAX_DEPTH 64
#define EXPR_MAX_NODES 100000

typedef enum {
  OP_NUM, OP_SLOT, OP_NEG, OP_NOT, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_LT, OP_LE, OP_GT,
  OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR, OP_COND, OP_CDIV, OP_MIN, OP_MAX,
} ExprOp;

typedef struct ExprNode {
  ExprOp op;
  int a, b, c;
  long long value; /* OP_NUM: the number; OP_SLOT: the slot */
} ExprNode;

void ExprPool_init(ExprPool *p) { memset(p, 0, sizeof *p); }

void ExprPool_free(ExprPool *p) {
  free(p->nodes);
  memset(p, 0, sizeof *p);
}

typedef struct Parser {
  ExprPool *pool;
  const char *s;
  const ExprScope *scope;
  char *err;
  size_t errsize;
  int depth;
  bool failed;
} Parser;

static ExprId Parser_fail(Parser *ps, const char *what) {
  if (!ps->failed) {
    char near[24];
    size_t n = strcspn(ps->s, "\n");
    if (n >= sizeof near) n = sizeof near - 1;
    memcpy(near, ps->s, n);
    near[n] = '\0';
    if (near[0])
      snprintf(ps->err, ps->errsize, "%s at '%s'", what, near);
    else
      snprintf(ps->err, ps->errsize, "%s at the end of the expression", what);
  }
  ps->failed = true;
  return -1;
}

static ExprId Parser_node(Parser *ps, ExprOp op, int a, int b, int c, long long value) {
  ExprPool *p = ps->pool;
  if (p->count >= EXPR_MAX_NODES) return Parser_fail(ps, "expression too large");
  if (p->count == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 64;
    p->nodes = Util_xrealloc(p->nodes, sizeof(ExprNode) * (size_t)p->cap);
  }
  p->nodes[p->count] = (ExprNode){op, a, b, c, value};
  return p->count++;
}

static void Parser_space(Parser *ps) {
  while (*ps->s == ' ' || *ps->s == '\t') ps->s++;
}

/* Consumes the operator tok when it comes next (and is not the start of a longer one). */
static bool Parser_accept(Parser *ps, const char *tok) {
  Parser_space(ps);
  size_t n = strlen(tok);
  if (strncmp(ps->s, tok, n) != 0) return false;
  char next = ps->s[n];
  if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!') && next == '=') return false;
  if (n == 1 && (tok[0] == '&' || tok[0] == '|') && next == tok[0]) return false;
  ps->s += n;
  return true;
}

static ExprId Parser_expr(Parser *ps);

static bool Parser_isName(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* A quoted word: only where a knob is compared with one of its word values. */
static ExprId Parser_word(Parser *ps, ExprId other) {
  const char *start = ++ps->s;
  while (Parser_isName(*ps->s)) ps->s++;
  size_t len = (size_t)(ps->s - start);
  if (*ps->s != '"' || len == 0) return Parser_fail(ps, "a quoted word must be a knob's word value");
  ps->s++;
  if (other < 0 || ps->pool->nodes[other].op != OP_SLOT || !ps->scope->word)
    return Parser_fail(ps, "a quoted word can only be compared (== or !=) with a knob");
  long long v;
  if (!ps->scope->word(ps->scope->user, (int)ps->pool->nodes[other].value, start, len, &v)) {
    ps->s = start - 1;
    return Parser_fail(ps, "not a value of that knob (dtype's are fp16 and bf16)");
  }
  return Parser_node(ps, OP_NUM, -1, -1, -1, v);
}

static ExprId Parser_call(Parser *ps, ExprOp op, int min_args, int max_args) {
  ExprId acc = Parser_expr(ps);
  int n = 1;
  while (acc >= 0 && Parser_accept(ps, ",")) {
    ExprId next = Parser_expr(ps);
    if (next < 0) return -1;
    acc = Parser_node(ps, op, acc, next, -1, 0);
    n++;
  }
  if (acc < 0) return -1;
  if (!Parser_accept(ps, ")")) return Parser_fail(ps, "expected ',' or ')'");
  if (n < min_args || n > max_args)
    return Parser_fail(ps, op == OP_CDIV ? "cdiv takes two arguments" : "min/max take two or more arguments");
  return acc;
}

static ExprId Parser_primary(Parser *ps) {
  Parser_space(ps);
  const char *start = ps->s;
  if (isdigit((unsigned char)*ps->s)) {
    long long v = 0;
    int base = 10;
    if (ps->s[0] == '0' && (ps->s[1] == 'x' || ps->s[1] == 'X') && isxdigit((unsigned char)ps->s[2])) {
      base = 16;
      ps->s += 2;
    }
    for (; isxdigit((unsigned char)*ps->s); ps->s++) {
      int d = isdigit((unsigned char)*ps->s) ? *ps->s - '0' : (tolower((unsigned char)*ps->s) - 'a' + 10);
      if (d >= base) break;
      if (v > (LLONG_MAX - d) / base) {
        ps->s = start;
        return Parser_fail(ps, "number too large");
      }
      v = v * base + d;
    }
    if (Parser_isName(*ps->s)) return Parser_fail(ps, "unexpected character in a number");
    return Parser_node(ps, OP_NUM, -1, -1, -1, v);
  }
  if (isalpha((unsigned char)*ps->s) || *ps->s == '_') {
    while (Parser_isName(*ps->s)) ps->s++;
    size_t len = (size_t)(ps->s - start);
    Parser_space(ps);
    if (*ps->s == '(') {
      ps->s++;
      if (len == 4 && strncmp(start, "cdiv", 4) == 0) return Parser_call(ps, OP_CDIV, 2, 2);
      if (len == 3 && strncmp(start, "min", 3) == 0) return Parser_call(ps, OP_MIN, 2, 64);
      if (len == 3 && strncmp(start, "max", 3) == 0) return Parser_call(ps, OP_MAX, 2, 64);
      ps->s = start;
      return Parser_fail(ps, "unknown function (cdiv, min and max exist)");
    }
    int slot = ps->scope->lookup(ps->scope->user, start, len);
    if (slot < 0) {
      if (!ps->failed)
        snprintf(ps->err, ps->errsize, "unknown name '%.*s'", len > 40 ? 40 : (int)len, start);
      ps->failed = true;
      ps->s = start;
      return -1;
    }
    return Parser_node(ps, OP_SLOT, -1, -1, -1, slot);
  }
  if (*ps->s == '(') {
    ps->s++;
    ExprId e = Parser_expr(ps);
    if (e < 0) return -1;
    if (!Parser_accept(ps, ")")) return Parser_fail(ps, "expected ')'");
    return e;
  }
  if (*ps->s == '"') return Parser_fail(ps, "a quoted word can only be compared (== or !=) with a knob");
  return Parser_fail(ps, *ps->s ? "expected a number, a name or '('" : "expected an expression");
}

static ExprId Parser_unary(Parser *ps) {
  if (++ps->depth > EXPR_MAX_DEPTH) return Parser_fail(ps, "expression nested too deeply");
  ExprId e;
  if (Parser_accept(ps, "-")) {
    e = Parser_unary(ps);
    e = e < 0 ? -1 : Parser_node(ps, OP_NEG, e, -1, -1, 0);
  } else if (Parser_accept(ps, "!")) {
    e = Parser_unary(ps);
    e = e < 0 ? -1 : Parser_node(ps, OP_NOT, e, -1, -1, 0);
  } else {
    e = Parser_primary(ps);
  }
  ps->depth--;
  return e;
}

typedef struct BinaryOp {
  const char *tok;
  ExprOp op;
} BinaryOp;

/* One left-associative level of binary operators: operands parsed by next, joined by any of
 * ops (tried in order). */
static ExprId Parser_binary(Parser *ps, ExprId (*next)(Parser *), const BinaryOp *ops, int nops) {
  ExprId a = next(ps);
  while (a >= 0) {
    int k = 0;
    while (k < nops && !Parser_accept(ps, ops[k].tok)) k++;
    if (k == nops) break;
    ExprId b = next(ps);
    a = b < 0 ? -1 : Parser_node(ps, ops[k].op, a, b, -1, 0);
  }
  return a;
}

static ExprId Parser_mul(Parser *ps) {
  static const BinaryOp ops[] = {{"*", OP_MUL}, {"/", OP_DIV}, {"%", OP_MOD}};
  return Parser_binary(ps, Parser_unary, ops, (int)(sizeof ops / sizeof *ops));
}

static ExprId Parser_add(Parser *ps) {
  static const BinaryOp ops[] = {{"+", OP_ADD}, {"-", OP_SUB}};
  return Parser_binary(ps, Parser_mul, ops, (int)(sizeof ops / sizeof *ops));
}

/* Not Parser_binary: after == or != a quoted word may stand for a knob's word value. */
static ExprId Parser_cmp(Parser *ps) {
  ExprId a = Parser_add(ps);
  while (a >= 0) {
    static const BinaryOp ops[] = {
      {"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE}, {"<", OP_LT}, {">", OP_GT}};
    int k = -1;
    for (int i = 0; i < 6 && k < 0; i++)
      if (Parser_accept(ps, ops[i].tok)) k = i;
    if (k < 0) break;
    Parser_space(ps);
    ExprId b;
    if (*ps->s == '"' && (ops[k].op == OP_EQ || ops[k].op == OP_NE))
      b = Parser_word(ps, a);
    else
      b = Parser_add(ps);
    a = b < 0 ? -1 : Parser_node(ps, ops[k].op, a, b, -1, 0);
  }
  return a;
}

static ExprId Parser_and(Parser *ps) {
  static const BinaryOp ops[] = {{"&&", OP_AND}};
  return Parser_binary(ps, Parser_cmp, ops, (int)(sizeof ops / sizeof *ops));
}

static ExprId Parser_or(Parser *ps) {
  static const BinaryOp ops[] = {{"||", OP_OR}};
  return Parser_binary(ps, Parser_and, ops, (int)(sizeof ops / sizeof *ops));
}

static ExprId Parser_expr(Parser *ps) {
  if (++ps->depth > EXPR_MAX_DEPTH) return Parser_fail(ps, "expression nested too deeply");
  ExprId c = Parser_or(ps);
  if (c >= 0 && Parser_accept(ps, "?")) {
    ExprId a = Parser_expr(ps);
    if (a >= 0 && !Parser_accept(ps, ":")) a = Parser_fail(ps, "expected ':' of '?'");
    ExprId b = a < 0 ? -1 : Parser_expr(ps);
    c = b < 0 ? -1 : Parser_node(ps, OP_COND, c, a, b, 0);
  }
  ps->depth--;
  return c;
}

ExprId Expr_parse(ExprPool *p, const char **text, const ExprScope *scope, char *err,
                  size_t errsize) {
  Parser ps = {p, *text, scope, err, errsize, 0, false};
  int mark = p->count;
  ExprId e = Parser_expr(&ps);
  if (e < 0) p->count = mark; /* drop a half-built tree */
  Parser_space(&ps);
  *text = ps.s;
  return e;
}

/* ---- evaluation ------------------------------------------------------------------------- */

static ExprStatus Expr_fail(char *err, size_t errsize, const char *what) {
  snprintf(err, errsize, "%s", what);
  return EXPR_FAILED;
}

ExprStatus Expr_eval(const ExprPool *p, ExprId e, const ExprEnv *env, long long *out, char *err,
                     size_t errsize) {
  if (e < 0 || e >= p->count) return Expr_fail(err, errsize, "no expression");
  const ExprNode *n = &p->nodes[e];
  long long a = 0, b = 0;
  ExprStatus st;
  switch (n->op) {
  case OP_NUM: *out = n->value; return EXPR_OK;
  case OP_SLOT: return env->get(env->user, (int)n->value, out, err, errsize);
  case OP_AND:
  case OP_OR:
  case OP_COND:
    if ((st = Expr_eval(p, n->a, env, &a, err, errsize)) != EXPR_OK) return st;
    if (n->op == OP_AND && !a) { *out = 0; return EXPR_OK; }
    if (n->op == OP_OR && a) { *out = 1; return EXPR_OK; }
    if (n->op == OP_COND) return Expr_eval(p, a ? n->b : n->c, env, out, err, errsize);
    if ((st = Expr_eval(p, n->b, env, &b, err, errsize)) != EXPR_OK) return st;
    *out = b != 0;
    return EXPR_OK;
  default: break;
  }
  if ((st = Expr_eval(p, n->a, env, &a, err, errsize)) != EXPR_OK) return st;
  if (n->op == OP_NEG) {
    if (a == LLONG_MIN) return Expr_fail(err, errsize, "integer overflow in '-'");
    *out = -a;
    return EXPR_OK;
  }
  if (n->op == OP_NOT) {
    *out = !a;
    return EXPR_OK;
  }
  if ((st = Expr_eval(p, n->b, env, &b, err, errsize)) != EXPR_OK) return st;
  switch (n->op) {
  case OP_ADD:
    if (__builtin_add_overflow(a, b, out)) return Expr_fail(err, errsize, "integer overflow in '+'");
    return EXPR_OK;
  case OP_SUB:
    if (__builtin_sub_overflow(a, b, out)) return Expr_fail(err, errsize, "integer overflow in '-'");
    return EXPR_OK;
  case OP_MUL:
    if (__builtin_mul_overflow(a, b, out)) return Expr_fail(err, errsize, "integer overflow in '*'");
    return EXPR_OK;
  case OP_DIV:
  case OP_MOD:
  case OP_CDIV: {
    const char *name = n->op == OP_DIV ? "'/'" : n->op == OP_MOD ? "'%'" : "cdiv";
    char what[64];
    if (b == 0) {
      snprintf(what, sizeof what, "division by zero in %s", name);
      return Expr_fail(err, errsize, what);
    }
    if (a == LLONG_MIN && b == -1) {
      snprintf(what, sizeof what, "integer overflow in %s", name);
      return Expr_fail(err, errsize, what);
    }
    long long q = a / b, r = a % b;
    if (n->op == OP_MOD) *out = r;
    else if (n->op == OP_CDIV) *out = q + (r != 0 && ((r < 0) == (b < 0)));
    else *out = q;
    return EXPR_OK;
  }
  case OP_LT: *out = a < b; return EXPR_OK;
  case OP_LE: *out = a <= b; return EXPR_OK;
  case OP_GT: *out = a > b; return EXPR_OK;
  case OP_GE: *out = a >= b; return EXPR_OK;
  case OP_EQ: *out = a == b; return EXPR_OK;
  case OP_NE: *out = a != b; return EXPR_OK;
  case OP_MIN: *out = a < b ? a : b; return EXPR_OK;
  case OP_MAX: *out = a > b ? a : b; return EXPR_OK;
  default: return Expr_fail(err, errsize, "bad expression node");
  }
}

bool Expr_uses(const ExprPool *p, ExprId e, int slot) {
  if (e < 0 || e >= p->count) return false;
  const ExprNode *n = &p->nodes[e];
  if (n->op == OP_SLOT) return n->value == slot;
  return Expr_uses(p, n->a, slot) || Expr_uses(p, n->b, slot) || Expr_uses(p, n->c, slot);
}
