/* The words, numbers and expressions of a declaration's directive line, and the names an
 * expression may use: the shape, the device, the knobs and the lets declared so far. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/decl_parser.h"

bool Decl_fail(DeclParser *p, const char *fmt, ...) {
  if (p->failed) return false;
  p->failed = true;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(p->err, p->errsize, "%s:%d: %s", p->source, p->line, msg);
  return false;
}

char *Decl_keepN(DeclParser *p, const char *s, size_t n) {
  char *t = Util_xmalloc(n + 1);
  memcpy(t, s, n);
  t[n] = '\0';
  char *kept = Decl_keep(p->v, t);
  free(t);
  return kept;
}

void Decl_space(const char **s) {
  while (**s == ' ' || **s == '\t') (*s)++;
}

size_t Decl_ident(const char **s) {
  Decl_space(s);
  const char *start = *s;
  if (!isalpha((unsigned char)**s) && **s != '_') return 0;
  while (isalnum((unsigned char)**s) || **s == '_') (*s)++;
  return (size_t)(*s - start);
}

bool Decl_integer(const char **s, long long *out) {
  Decl_space(s);
  char *end;
  errno = 0;
  long long v = strtoll(*s, &end, 10);
  if (end == *s || errno || isalnum((unsigned char)*end) || *end == '_') return false;
  *s = end;
  *out = v;
  return true;
}

bool Decl_atEnd(const char *s) {
  Decl_space(&s);
  return *s == '\0';
}

/* ---- names expressions may use ------------------------------------------------------------ */

/* In slot order (decl_private.h). */
static const char *const Decl_builtinNames[] = {"B",   "H",  "S",   "D",   "causal", "sms",
                                                "cc",  "smem_optin", "l2_bytes", "Hq",  "Hkv",
                                                "Sq",  "Skv", "dtype"};
enum { DECL_NBUILTIN = (int)(sizeof Decl_builtinNames / sizeof Decl_builtinNames[0]) };

static int Decl_lookup(void *user, const char *name, size_t len) {
  DeclParser *p = user;
  for (int i = 0; i < DECL_NBUILTIN; i++)
    if (strlen(Decl_builtinNames[i]) == len && strncmp(Decl_builtinNames[i], name, len) == 0) return i;
  for (int k = 0; k < p->v->nknobs; k++)
    if (strlen(p->d->knobs[k].name) == len && strncmp(p->d->knobs[k].name, name, len) == 0)
      return SLOT_KNOB0 + k;
  for (int l = 0; l < p->d->nlets; l++)
    if (strlen(p->d->lets[l].name) == len && strncmp(p->d->lets[l].name, name, len) == 0)
      return SLOT_LET0 + l;
  return -1;
}

static bool Decl_word(void *user, int slot, const char *word, size_t len, long long *value) {
  DeclParser *p = user;
  if (slot == SLOT_DTYPE) { /* dtype == "bf16" */
    for (int i = 0; i < DECL_NDTYPES; i++) {
      const char *name = Shape_dtypeName((ShapeDtype)i);
      if (strlen(name) == len && strncmp(name, word, len) == 0) {
        *value = i;
        return true;
      }
    }
    return false;
  }
  if (slot < SLOT_KNOB0 || slot >= SLOT_KNOB0 + p->v->nknobs) return false;
  const KnobDesc *k = &p->d->knobs[slot - SLOT_KNOB0];
  for (int i = 0; i < k->nvalues; i++)
    if (k->defines[i] && strlen(k->values[i]) == len && strncmp(k->values[i], word, len) == 0) {
      *value = k->numbers[i];
      return true;
    }
  return false;
}

bool Decl_nameFree(DeclParser *p, const char *name, size_t len, const char *what) {
  static const char *const functions[] = {"cdiv", "min", "max"};
  for (int i = 0; i < 3; i++)
    if (strlen(functions[i]) == len && strncmp(functions[i], name, len) == 0)
      return Decl_fail(p, "%s '%.*s' has the name of a function", what, (int)len, name);
  if (Decl_lookup(p, name, len) >= 0)
    return Decl_fail(p, "%s '%.*s' is already a name (the problem B H S D causal Hq Hkv Sq Skv "
                     "dtype, the device sms cc smem_optin l2_bytes, a knob or a let)", what, (int)len, name);
  return true;
}

ExprId Decl_expr(DeclParser *p, const char **s) {
  ExprScope scope = {Decl_lookup, Decl_word, p};
  char why[200];
  ExprId e = Expr_parse(&p->d->pool, s, &scope, why, sizeof why);
  if (e < 0) Decl_fail(p, "%s", why);
  return e;
}

bool Decl_exprList(DeclParser *p, const char **s, ExprId *out, int max, const char *what) {
  Decl_space(s);
  if (**s != '(') return Decl_fail(p, "expected '(' after %s", what);
  (*s)++;
  int n = 0;
  for (;;) {
    if (n == max) return Decl_fail(p, "%s takes at most %d value%s", what, max, max > 1 ? "s" : "");
    if ((out[n++] = Decl_expr(p, s)) < 0) return false;
    Decl_space(s);
    if (**s == ',') { (*s)++; continue; }
    if (**s == ')') { (*s)++; return true; }
    return Decl_fail(p, "expected ',' or ')' in %s", what);
  }
}
