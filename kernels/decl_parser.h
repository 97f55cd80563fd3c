/* The declaration parser's state and the helpers its parts share: the words, numbers and
 * expressions of a directive line (decl_lex.c), the directives (decl_directive.c) and the block
 * (decl.c). Only the parser's files include it. */
#ifndef BENCHTOP_DECL_PARSER_H
#define BENCHTOP_DECL_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/decl_private.h"

typedef struct DeclParser {
  Variant *v;
  VariantDecl *d;
  const char *source;
  int line;
  char *err;
  size_t errsize;
  bool failed;
  int first[16]; /* line of the first use of each single-use directive */
  const char **presets;
  int *preset_lines;
  int npresets;
} DeclParser;

/* Sets the one error line "SOURCE:LINE: message" (the first failure wins); false. */
bool Decl_fail(DeclParser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A copy of s[0..n) kept alive as long as the variant. */
char *Decl_keepN(DeclParser *p, const char *s, size_t n);
void Decl_space(const char **s);
/* An identifier at *s (advanced past it); its length, 0 when there is none. */
size_t Decl_ident(const char **s);
bool Decl_integer(const char **s, long long *out);
bool Decl_atEnd(const char *s);
/* Whether a new knob or let may take this name (not a function, builtin, knob or let). */
bool Decl_nameFree(DeclParser *p, const char *name, size_t len, const char *what);
/* An expression at *s; -1 after the error. */
ExprId Decl_expr(DeclParser *p, const char **s);
/* "(e, e, e)": between 1 and max expressions into out (the rest -1). */
bool Decl_exprList(DeclParser *p, const char **s, ExprId *out, int max, const char *what);
/* One logical line of the block (continuations joined, leading " * " gone). */
bool Decl_directive(DeclParser *p, const char *s);

#endif
