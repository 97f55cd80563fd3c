/* Reading a kernel declaration: the comment block that opens with a line `/ * benchtop` (no
 * space) and ends at `* /`, one directive per line (docs/kernel-declarations.md). Every error
 * is one line naming the file and the line; the first one ends the parse. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/decl_private.h"

#define DECL_MAX_LINE 4096  /* a logical line, continuations joined */
#define DECL_MAX_LINES 2000 /* of the declaration block */

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

static bool Decl_fail(DeclParser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool Decl_fail(DeclParser *p, const char *fmt, ...) {
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

void *Decl_own(Variant *v, void *block) {
  VariantDecl *d = v->decl;
  d->owned = Util_xrealloc(d->owned, sizeof(void *) * (size_t)(d->nowned + 1));
  return d->owned[d->nowned++] = block;
}

char *Decl_keep(Variant *v, const char *s) { return Decl_own(v, Util_xstrdup(s)); }

static char *Decl_keepN(DeclParser *p, const char *s, size_t n) {
  char *t = Util_xmalloc(n + 1);
  memcpy(t, s, n);
  t[n] = '\0';
  char *kept = Decl_keep(p->v, t);
  free(t);
  return kept;
}

static void Decl_space(const char **s) {
  while (**s == ' ' || **s == '\t') (*s)++;
}

/* An identifier at *s (advanced past it); its length, 0 when there is none. */
static size_t Decl_ident(const char **s) {
  Decl_space(s);
  const char *start = *s;
  if (!isalpha((unsigned char)**s) && **s != '_') return 0;
  while (isalnum((unsigned char)**s) || **s == '_') (*s)++;
  return (size_t)(*s - start);
}

static bool Decl_integer(const char **s, long long *out) {
  Decl_space(s);
  char *end;
  errno = 0;
  long long v = strtoll(*s, &end, 10);
  if (end == *s || errno || isalnum((unsigned char)*end) || *end == '_') return false;
  *s = end;
  *out = v;
  return true;
}

static bool Decl_atEnd(const char *s) {
  Decl_space(&s);
  return *s == '\0';
}

/* ---- names expressions may use ------------------------------------------------------------ */

/* In slot order (decl_private.h). */
static const char *const Decl_builtinNames[] = {"B", "H", "S", "D", "causal", "sms", "cc",
                                                "smem_optin", "l2_bytes"};
enum { DECL_NBUILTIN = 9 };

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
  if (slot < SLOT_KNOB0 || slot >= SLOT_KNOB0 + p->v->nknobs) return false;
  const KnobDesc *k = &p->d->knobs[slot - SLOT_KNOB0];
  for (int i = 0; i < k->nvalues; i++)
    if (k->defines[i] && strlen(k->values[i]) == len && strncmp(k->values[i], word, len) == 0) {
      *value = k->numbers[i];
      return true;
    }
  return false;
}

static bool Decl_nameFree(DeclParser *p, const char *name, size_t len, const char *what) {
  static const char *const functions[] = {"cdiv", "min", "max"};
  for (int i = 0; i < 3; i++)
    if (strlen(functions[i]) == len && strncmp(functions[i], name, len) == 0)
      return Decl_fail(p, "%s '%.*s' has the name of a function", what, (int)len, name);
  if (Decl_lookup(p, name, len) >= 0)
    return Decl_fail(p, "%s '%.*s' is already a name (the shape B H S D causal, the device sms cc "
                     "smem_optin l2_bytes, a knob or a let)", what, (int)len, name);
  return true;
}

/* An expression at *s; -1 after the error. */
static ExprId Decl_expr(DeclParser *p, const char **s) {
  ExprScope scope = {Decl_lookup, Decl_word, p};
  char why[200];
  ExprId e = Expr_parse(&p->d->pool, s, &scope, why, sizeof why);
  if (e < 0) Decl_fail(p, "%s", why);
  return e;
}

/* "(e, e, e)": between 1 and max expressions into out (the rest -1). */
static bool Decl_exprList(DeclParser *p, const char **s, ExprId *out, int max, const char *what) {
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

/* ---- directives --------------------------------------------------------------------------- */

enum { KEY_NAME, KEY_SUMMARY, KEY_RUNG, KEY_BUILDS_ON, KEY_HEAD_DIMS, KEY_ARCH, KEY_TOLERANCE,
       KEY_SPLITS, KEY_TMA, KEY_QK_FP8, KEY_NSINGLE };

static bool Decl_once(DeclParser *p, int key, const char *word) {
  if (p->first[key]) return Decl_fail(p, "'%s' is declared twice (first at line %d)", word, p->first[key]);
  p->first[key] = p->line;
  return true;
}

static bool Decl_rest(DeclParser *p, const char *s, const char **out, const char *what) {
  Decl_space(&s);
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  if (n == 0) return Decl_fail(p, "%s needs a value", what);
  *out = Decl_keepN(p, s, n);
  return true;
}

static bool Decl_name(DeclParser *p, const char *s) {
  const char *start = (Decl_space(&s), s);
  size_t n = Decl_ident(&s);
  if (n == 0 || !Decl_atEnd(s)) return Decl_fail(p, "name must be one word of letters, digits and '_'");
  if (n >= VARIANT_NAME_MAX) return Decl_fail(p, "name is longer than %d characters", VARIANT_NAME_MAX - 1);
  p->v->name = Decl_keepN(p, start, n);
  return true;
}

static bool Decl_headDims(DeclParser *p, const char *s) {
  int n = 0;
  long long d;
  while (!Decl_atEnd(s)) {
    if (!Decl_integer(&s, &d) || d < 1 || d > SHAPE_MAX_D)
      return Decl_fail(p, "head_dims are whole numbers from 1 to %d", SHAPE_MAX_D);
    if (n == VARIANT_MAX_HEAD_DIMS) return Decl_fail(p, "at most %d head_dims", VARIANT_MAX_HEAD_DIMS);
    for (int i = 0; i < n; i++)
      if (p->v->head_dims[i] == d) return Decl_fail(p, "head dim %lld is listed twice", d);
    p->v->head_dims[n++] = (int)d;
  }
  if (n == 0) return Decl_fail(p, "head_dims needs at least one head dimension");
  return true;
}

static bool Decl_arch(DeclParser *p, const char *s) {
  Decl_space(&s);
  int cc = 0, len = 0;
  char a = 0;
  if (sscanf(s, "sm_%3d%n", &cc, &len) != 1 || cc < 50 || cc > 200)
    return Decl_fail(p, "arch is sm_NN (the lowest architecture) or sm_NNa (that one only), e.g. sm_80");
  s += len;
  if (*s == 'a') { a = 'a'; s++; }
  if (!Decl_atEnd(s)) return Decl_fail(p, "arch is sm_NN or sm_NNa, e.g. sm_80 or sm_90a");
  p->v->min_cc = cc;
  p->v->arch_specific = a == 'a';
  return true;
}

static bool Decl_tolerance(DeclParser *p, const char *s) {
  char *end;
  errno = 0;
  double t = strtod(s, &end);
  if (end == s || errno || !Decl_atEnd(end) || !isfinite(t) || t <= 0 || t > 1)
    return Decl_fail(p, "tolerance is a relative L2 error above 0 and at most 1, e.g. 2e-3");
  p->v->tolerance = t;
  return true;
}

static bool Decl_knobValue(DeclParser *p, KnobDesc *k, const char *text, const char *define,
                           long long number) {
  if (k->nvalues == KNOB_MAX_VALUES)
    return Decl_fail(p, "knob %s has more than %d values", k->name, KNOB_MAX_VALUES);
  for (int i = 0; i < k->nvalues; i++)
    if (strcmp(k->values[i], text) == 0) return Decl_fail(p, "knob %s lists '%s' twice", k->name, text);
  const char **values = (const char **)k->values, **defines = (const char **)k->defines;
  values[k->nvalues] = Decl_keep(p->v, text);
  defines[k->nvalues] = define ? Decl_keep(p->v, define) : NULL;
  ((long long *)k->numbers)[k->nvalues] = number;
  k->nvalues++;
  return true;
}

/* {64, 128, auto=0} */
static bool Decl_knobList(DeclParser *p, KnobDesc *k, const char **s) {
  (*s)++;
  for (;;) {
    Decl_space(s);
    long long v;
    const char *start = *s;
    size_t n = Decl_ident(s);
    if (n) {
      char word[64], def[32];
      if (n >= sizeof word) return Decl_fail(p, "knob %s: value name too long", k->name);
      memcpy(word, start, n);
      word[n] = '\0';
      Decl_space(s);
      if (**s != '=') return Decl_fail(p, "knob %s: word value '%s' needs its macro value (%s=1)", k->name, word, word);
      (*s)++;
      if (!Decl_integer(s, &v) || v < -2147483647LL || v > 2147483647LL)
        return Decl_fail(p, "knob %s: '%s=' needs a whole number", k->name, word);
      snprintf(def, sizeof def, "%lld", v);
      if (!Decl_knobValue(p, k, word, def, v)) return false;
    } else {
      if (!Decl_integer(s, &v) || v < -2147483647LL || v > 2147483647LL)
        return Decl_fail(p, "knob %s: values are whole numbers or word=number", k->name);
      char text[32];
      snprintf(text, sizeof text, "%lld", v);
      if (!Decl_knobValue(p, k, text, NULL, v)) return false;
    }
    Decl_space(s);
    if (**s == ',') { (*s)++; continue; }
    if (**s == '}') { (*s)++; return true; }
    return Decl_fail(p, "knob %s: expected ',' or '}' in the value list", k->name);
  }
}

/* 16..128 step 16 */
static bool Decl_knobRange(DeclParser *p, KnobDesc *k, const char **s) {
  long long lo, hi, step = 1;
  if (!Decl_integer(s, &lo) || strncmp(*s, "..", 2) != 0)
    return Decl_fail(p, "knob %s: values are {a, b, ...} or lo..hi [step n]", k->name);
  *s += 2;
  if (!Decl_integer(s, &hi)) return Decl_fail(p, "knob %s: expected a number after '..'", k->name);
  const char *save = *s;
  size_t n = Decl_ident(s);
  if (n == 4 && strncmp(*s - 4, "step", 4) == 0) {
    if (!Decl_integer(s, &step)) return Decl_fail(p, "knob %s: expected a number after step", k->name);
  } else {
    *s = save;
  }
  if (lo < -2147483647LL || hi > 2147483647LL || lo > hi || step < 1)
    return Decl_fail(p, "knob %s: a range needs lo <= hi (whole numbers) and step >= 1", k->name);
  if ((hi - lo) / step >= KNOB_MAX_VALUES)
    return Decl_fail(p, "knob %s: %lld..%lld step %lld has more than %d values", k->name, lo, hi,
                     step, KNOB_MAX_VALUES);
  k->is_range = true;
  k->lo = lo;
  k->hi = hi;
  k->step = step;
  for (long long x = lo; x <= hi; x += step) {
    char text[32];
    snprintf(text, sizeof text, "%lld", x);
    if (!Decl_knobValue(p, k, text, NULL, x)) return false;
  }
  return true;
}

/* knob NAME MACRO VALUES [default V] [: help] */
static bool Decl_knob(DeclParser *p, const char *s) {
  if (p->v->nknobs == KNOB_MAX) return Decl_fail(p, "more than %d knobs", KNOB_MAX);
  const char *name = (Decl_space(&s), s);
  size_t nl = Decl_ident(&s);
  if (!nl) return Decl_fail(p, "knob needs a name: knob NAME MACRO {values} : meaning");
  if (!Decl_nameFree(p, name, nl, "knob")) return false;
  const char *macro = (Decl_space(&s), s);
  size_t ml = Decl_ident(&s);
  if (!ml) return Decl_fail(p, "knob %.*s needs the macro it sets: knob NAME MACRO {values}", (int)nl, name);
  if (ml == 8 && strncmp(macro, "HEAD_DIM", 8) == 0)
    return Decl_fail(p, "knob %.*s: HEAD_DIM is set by the engine", (int)nl, name);
  for (int i = 0; i < p->v->nknobs; i++)
    if (strlen(p->d->knobs[i].macro) == ml && strncmp(p->d->knobs[i].macro, macro, ml) == 0)
      return Decl_fail(p, "knob %.*s: macro %.*s is already set by knob %s", (int)nl, name, (int)ml,
                       macro, p->d->knobs[i].name);
  KnobDesc *k = &p->d->knobs[p->v->nknobs];
  memset(k, 0, sizeof *k);
  k->name = Decl_keepN(p, name, nl);
  k->macro = Decl_keepN(p, macro, ml);
  k->line = p->line;
  k->values = Decl_own(p->v, Util_xcalloc(KNOB_MAX_VALUES + 1, sizeof(char *)));
  k->defines = Decl_own(p->v, Util_xcalloc(KNOB_MAX_VALUES + 1, sizeof(char *)));
  k->numbers = Decl_own(p->v, Util_xcalloc(KNOB_MAX_VALUES, sizeof(long long)));
  Decl_space(&s);
  bool ok = *s == '{' ? Decl_knobList(p, k, &s) : Decl_knobRange(p, k, &s);
  if (!ok) return false;
  k->def = 0;
  const char *save = s;
  size_t n = Decl_ident(&s);
  if (n == 7 && strncmp(s - 7, "default", 7) == 0) {
    Decl_space(&s);
    const char *start = s;
    while (*s && *s != ' ' && *s != '\t' && *s != ':') s++;
    char text[64];
    size_t len = (size_t)(s - start);
    if (len == 0 || len >= sizeof text) return Decl_fail(p, "knob %s: default needs a value", k->name);
    memcpy(text, start, len);
    text[len] = '\0';
    k->def = Registry_knobValueIndex(k, text);
    if (k->def < 0) return Decl_fail(p, "knob %s: default %s is not one of its values", k->name, text);
  } else {
    s = save;
  }
  Decl_space(&s);
  if (*s == ':') {
    s++;
    if (!Decl_rest(p, s, &k->help, "the knob's meaning after ':'")) return false;
  } else if (*s) {
    return Decl_fail(p, "knob %s: unexpected '%.20s' (the meaning goes after ':')", k->name, s);
  } else {
    k->help = "";
  }
  p->v->nknobs++;
  return true;
}

/* let NAME = EXPR */
static bool Decl_let(DeclParser *p, const char *s, bool splits) {
  if (p->d->nlets == DECL_MAX_LETS) return Decl_fail(p, "more than %d lets", DECL_MAX_LETS);
  const char *name = "splits";
  size_t nl = 6;
  if (!splits) {
    name = (Decl_space(&s), s);
    nl = Decl_ident(&s);
    if (!nl) return Decl_fail(p, "let needs a name: let NAME = EXPRESSION");
    Decl_space(&s);
    if (*s != '=') return Decl_fail(p, "expected '=' after let %.*s", (int)nl, name);
    s++;
  }
  if (!Decl_nameFree(p, name, nl, splits ? "splits" : "let")) return false;
  ExprId e = Decl_expr(p, &s);
  if (e < 0) return false;
  if (!Decl_atEnd(s)) return Decl_fail(p, "unexpected '%.20s' after the expression", s);
  DeclLet *l = &p->d->lets[p->d->nlets];
  l->name = Decl_keepN(p, name, nl);
  l->expr = e;
  l->line = p->line;
  if (splits) p->d->splits_let = p->d->nlets;
  p->d->nlets++;
  return true;
}

/* require COND : reason   /   refuse COND : reason */
static bool Decl_rule(DeclParser *p, const char *s, bool refuse) {
  if (p->d->nrules == DECL_MAX_RULES) return Decl_fail(p, "more than %d rules", DECL_MAX_RULES);
  DeclRule *r = &p->d->rules[p->d->nrules];
  if ((r->expr = Decl_expr(p, &s)) < 0) return false;
  if (*s != ':') return Decl_fail(p, "expected ':' and the reason after the condition");
  const char *reason;
  if (!Decl_rest(p, s + 1, &reason, "the reason after ':'")) return false;
  r->reason = (char *)reason;
  r->refuse_when_true = refuse;
  r->line = p->line;
  p->d->nrules++;
  return true;
}

/* scratch workspace|o_f32|lse EXPR (bytes) */
static bool Decl_scratch(DeclParser *p, const char *s) {
  static const char *const names[SCRATCH_COUNT] = {"workspace", "o_f32", "lse"};
  const char *name = (Decl_space(&s), s);
  size_t n = Decl_ident(&s);
  for (int i = 0; i < SCRATCH_COUNT; i++)
    if (n == strlen(names[i]) && strncmp(name, names[i], n) == 0) {
      if (p->d->scratch[i].expr >= 0)
        return Decl_fail(p, "scratch %s is declared twice (first at line %d)", names[i], p->d->scratch[i].line);
      if ((p->d->scratch[i].expr = Decl_expr(p, &s)) < 0) return false;
      if (!Decl_atEnd(s)) return Decl_fail(p, "unexpected '%.20s' after the size", s);
      p->d->scratch[i].line = p->line;
      return true;
    }
  return Decl_fail(p, "scratch is workspace, o_f32 or lse (AttnParams' buffers), then its size in bytes");
}

/* tma q(ROWS) k(ROWS) v(ROWS) o(ROWS) */
static bool Decl_tma(DeclParser *p, const char *s) {
  if (!Decl_once(p, KEY_TMA, "tma")) return false;
  while (!Decl_atEnd(s)) {
    const char *name = (Decl_space(&s), s);
    size_t n = Decl_ident(&s);
    const char *which = n == 1 ? strchr("qkvo", name[0]) : NULL;
    if (!which) return Decl_fail(p, "tma names the boxes of q, k, v and o: tma q(64) k(block_n) ...");
    ExprId e[1];
    if (!Decl_exprList(p, &s, e, 1, "a tma box")) return false;
    p->d->tma[which - "qkvo"] = (DeclValue){e[0], p->line};
  }
  return true;
}

/* kernel ENTRY grid(x[, y[, z]]) block(x[, y[, z]]) [smem(bytes)] [persistent(cond)]  /  hook NAME */
static bool Decl_step(DeclParser *p, const char *s, bool hook) {
  if (p->v->nsteps == VARIANT_MAX_STEPS) return Decl_fail(p, "more than %d steps", VARIANT_MAX_STEPS);
  KernelStep *st = &p->v->steps[p->v->nsteps];
  memset(st, 0, sizeof *st);
  for (int i = 0; i < 3; i++) st->grid[i] = st->block[i] = -1;
  st->smem = st->persistent = -1;
  st->line = p->line;
  const char *entry = (Decl_space(&s), s);
  size_t n = Decl_ident(&s);
  if (!n) return Decl_fail(p, hook ? "hook needs a name" : "kernel needs its entry point's name");
  st->entry = Decl_keepN(p, entry, n);
  if (hook) {
    if (strcmp(st->entry, "cublas_qk") == 0) st->hook = HOOK_CUBLAS_QK;
    else if (strcmp(st->entry, "cublas_pv") == 0) st->hook = HOOK_CUBLAS_PV;
    else return Decl_fail(p, "unknown hook '%s' (there are cublas_qk and cublas_pv)", st->entry);
    if (!Decl_atEnd(s)) return Decl_fail(p, "a hook takes no arguments");
    p->v->nsteps++;
    return true;
  }
  while (!Decl_atEnd(s)) {
    const char *word = (Decl_space(&s), s);
    size_t wl = Decl_ident(&s);
    if (wl == 4 && strncmp(word, "grid", 4) == 0) {
      if (st->grid[0] >= 0) return Decl_fail(p, "grid given twice");
      if (!Decl_exprList(p, &s, st->grid, 3, "grid")) return false;
    } else if (wl == 5 && strncmp(word, "block", 5) == 0) {
      if (st->block[0] >= 0) return Decl_fail(p, "block given twice");
      if (!Decl_exprList(p, &s, st->block, 3, "block")) return false;
    } else if (wl == 4 && strncmp(word, "smem", 4) == 0) {
      if (st->smem >= 0) return Decl_fail(p, "smem given twice");
      if (!Decl_exprList(p, &s, &st->smem, 1, "smem")) return false;
    } else if (wl == 10 && strncmp(word, "persistent", 10) == 0) {
      if (st->persistent >= 0) return Decl_fail(p, "persistent given twice");
      if (!Decl_exprList(p, &s, &st->persistent, 1, "persistent")) return false;
    } else {
      return Decl_fail(p, "kernel %s: expected grid(...), block(...), smem(...) or persistent(...) at '%.20s'",
                       st->entry, word);
    }
  }
  if (st->grid[0] < 0 || st->block[0] < 0)
    return Decl_fail(p, "kernel %s needs grid(...) and block(...)", st->entry);
  p->v->nsteps++;
  return true;
}

static bool Decl_directive(DeclParser *p, const char *s) {
  const char *word = (Decl_space(&s), s);
  size_t n = Decl_ident(&s);
  char key[32] = "";
  if (n && n < sizeof key) memcpy(key, word, n), key[n] = '\0';
  if (!strcmp(key, "name")) return Decl_once(p, KEY_NAME, key) && Decl_name(p, s) && (p->d->name_line = p->line);
  if (!strcmp(key, "summary")) return Decl_once(p, KEY_SUMMARY, key) && Decl_rest(p, s, &p->v->summary, key);
  if (!strcmp(key, "builds_on")) {
    const char *name = (Decl_space(&s), s);
    size_t nl = Decl_ident(&s);
    if (!Decl_once(p, KEY_BUILDS_ON, key)) return false;
    if (!nl || !Decl_atEnd(s)) return Decl_fail(p, "builds_on names one variant");
    p->v->builds_on = Decl_keepN(p, name, nl);
    p->d->builds_on_line = p->line;
    return true;
  }
  if (!strcmp(key, "rung")) {
    long long r;
    if (!Decl_once(p, KEY_RUNG, key)) return false;
    if (!Decl_integer(&s, &r) || !Decl_atEnd(s) || r < 1 || r > 1000)
      return Decl_fail(p, "rung is a whole number from 1 to 1000");
    p->v->rung = (int)r;
    return true;
  }
  if (!strcmp(key, "head_dims")) return Decl_once(p, KEY_HEAD_DIMS, key) && Decl_headDims(p, s);
  if (!strcmp(key, "arch")) return Decl_once(p, KEY_ARCH, key) && Decl_arch(p, s);
  if (!strcmp(key, "tolerance")) return Decl_once(p, KEY_TOLERANCE, key) && Decl_tolerance(p, s);
  if (!strcmp(key, "qk_fp8")) { /* a flag: QK^T runs on fp8 tensor cores (the floors' FLOP rate) */
    if (!Decl_once(p, KEY_QK_FP8, key)) return false;
    if (!Decl_atEnd(s)) return Decl_fail(p, "qk_fp8 takes no value (QK^T runs on fp8 tensor cores)");
    p->v->qk_fp8 = true;
    return true;
  }
  if (!strcmp(key, "knob")) return Decl_knob(p, s);
  if (!strcmp(key, "let")) return Decl_let(p, s, false);
  if (!strcmp(key, "splits")) return Decl_once(p, KEY_SPLITS, key) && Decl_let(p, s, true);
  if (!strcmp(key, "require") || !strcmp(key, "refuse")) return Decl_rule(p, s, key[2] == 'f');
  if (!strcmp(key, "scratch")) return Decl_scratch(p, s);
  if (!strcmp(key, "tma")) return Decl_tma(p, s);
  if (!strcmp(key, "kernel") || !strcmp(key, "hook")) return Decl_step(p, s, key[0] == 'h');
  if (!strcmp(key, "preset")) {
    const char *spec;
    if (!Decl_rest(p, s, &spec, key)) return false;
    if (p->npresets == VARIANT_MAX_PRESETS - 1) return Decl_fail(p, "more than %d presets", VARIANT_MAX_PRESETS - 1);
    p->presets = Util_xrealloc(p->presets, sizeof(char *) * (size_t)(p->npresets + 2));
    p->preset_lines = Util_xrealloc(p->preset_lines, sizeof(int) * (size_t)(p->npresets + 1));
    p->preset_lines[p->npresets] = p->line;
    p->presets[p->npresets++] = spec;
    p->presets[p->npresets] = NULL;
    return true;
  }
  return Decl_fail(p, "unknown key '%.30s' (known: name summary rung builds_on head_dims arch "
                   "tolerance qk_fp8 knob let require refuse splits scratch tma kernel hook preset)",
                   n ? key : word);
}

/* ---- the block ---------------------------------------------------------------------------- */

/* The line after the opening "/ * benchtop" line (its number in *line), or NULL. */
static const char *Decl_findBlock(const char *text, int *line) {
  int n = 1;
  for (const char *p = text; *p; n++) {
    const char *q = p;
    Decl_space(&q);
    if (strncmp(q, "/* benchtop", 11) == 0) {
      q += 11;
      while (*q == ' ' || *q == '\t' || *q == '\r') q++;
      if (*q == '\n' || *q == '\0') {
        *line = n;
        return *q ? q + 1 : q;
      }
    }
    const char *eol = strchr(p, '\n');
    if (!eol) break;
    p = eol + 1;
  }
  return NULL;
}

/* Runs every directive of the block starting at body (the line after the opening one). */
static bool Decl_block(DeclParser *p, const char *body, int open_line, const char **after) {
  /* Without its closing the block would swallow the code below it as directives. */
  const char *end = strstr(body, "*/");
  int lines = 0;
  for (const char *q = body; end && q < end; q++) lines += *q == '\n';
  if (!end || lines >= DECL_MAX_LINES) {
    p->line = open_line;
    return Decl_fail(p, "the declaration opened here has no closing '*/' within %d lines", DECL_MAX_LINES);
  }
  char logical[DECL_MAX_LINE];
  size_t ll = 0;
  int logical_line = 0;
  const char *s = body;
  for (int line = open_line + 1; line - open_line <= DECL_MAX_LINES; line++) {
    p->line = line;
    if (!*s) break;
    const char *eol = strchr(s, '\n');
    size_t len = eol ? (size_t)(eol - s) : strlen(s);
    const char *close = NULL;
    for (size_t i = 0; i + 1 < len; i++)
      if (s[i] == '*' && s[i + 1] == '/') { close = s + i; break; }
    size_t n = close ? (size_t)(close - s) : len;
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)s[i];
      if (c == '\r' && i + 1 == n) break;
      if ((c < 0x20 && c != '\t') || c >= 0x7f)
        return Decl_fail(p, "byte 0x%02x: a declaration is plain printable ASCII", c);
    }
    const char *seg = s;
    while (n && (seg[n - 1] == ' ' || seg[n - 1] == '\t' || seg[n - 1] == '\r')) n--;
    size_t lead = 0;
    while (lead < n && (seg[lead] == ' ' || seg[lead] == '\t')) lead++;
    if (lead < n && seg[lead] == '*' && (lead + 1 == n || seg[lead + 1] == ' ')) lead++; /* " * " */
    seg += lead;
    n -= lead;
    bool more = n && seg[n - 1] == '\\';
    if (more) n--;
    if (ll == 0) logical_line = line;
    if (ll + n + 1 >= sizeof logical) return Decl_fail(p, "line longer than %d characters", DECL_MAX_LINE);
    if (ll) logical[ll++] = ' ';
    memcpy(logical + ll, seg, n);
    ll += n;
    logical[ll] = '\0';
    if (more && close) return Decl_fail(p, "'\\' continues a line past the end of the declaration");
    if (!more) {
      const char *t = logical;
      Decl_space(&t);
      p->line = logical_line;
      if (*t && *t != '#' && !Decl_directive(p, t)) return false;
      ll = 0;
    }
    if (close) {
      *after = close + 2;
      return true;
    }
    s = eol ? eol + 1 : s + len;
  }
  p->line = open_line;
  return Decl_fail(p, "the declaration opened here has no closing '*/' within %d lines", DECL_MAX_LINES);
}

/* What every declaration must state, and presets that name real knob values. */
static bool Decl_finish(DeclParser *p, int open_line) {
  Variant *v = p->v;
  p->line = open_line;
  if (!v->name) return Decl_fail(p, "the declaration needs a name");
  if (!v->head_dims[0]) return Decl_fail(p, "the declaration needs head_dims (e.g. head_dims 64 128)");
  if (!v->min_cc) return Decl_fail(p, "the declaration needs arch (e.g. arch sm_80)");
  if (!(v->tolerance > 0)) return Decl_fail(p, "the declaration needs tolerance (e.g. tolerance 2e-3)");
  if (v->nsteps == 0) return Decl_fail(p, "the declaration launches nothing: add a kernel line");
  if (!v->summary) v->summary = "";
  v->knobs = p->d->knobs;
  if (p->npresets == 0) {
    p->presets = Util_xcalloc(2, sizeof(char *));
    p->presets[0] = "";
    p->npresets = 1;
    p->preset_lines = Util_xcalloc(1, sizeof(int));
    p->preset_lines[0] = open_line;
  }
  v->presets = Decl_own(v, p->presets);
  v->npresets = p->npresets;
  p->d->preset_lines = Decl_own(v, p->preset_lines);
  p->presets = NULL;
  p->preset_lines = NULL;
  for (int i = 0; i < v->npresets; i++) {
    KnobValues kv;
    char why[300];
    Registry_defaults(v, &kv);
    p->line = p->d->preset_lines[i];
    if (!Registry_applyKnobs(v, v->presets[i], &kv, false, why, sizeof why))
      return Decl_fail(p, "preset: %s", why);
  }
  return true;
}

/* Whether name occurs as an identifier in code: outside comments, strings and the block. */
static bool Decl_inCode(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *q = text; *q;) {
    if (q[0] == '/' && q[1] == '/') {
      while (*q && *q != '\n') q++;
    } else if (q[0] == '/' && q[1] == '*') {
      const char *e = strstr(q + 2, "*/");
      q = e ? e + 2 : q + strlen(q);
    } else if (*q == '"' || *q == '\'') {
      char quote = *q++;
      while (*q && *q != quote && *q != '\n') q += (*q == '\\' && q[1]) ? 2 : 1;
      if (*q == quote) q++;
    } else if (isalpha((unsigned char)*q) || *q == '_') {
      const char *start = q;
      while (isalnum((unsigned char)*q) || *q == '_') q++;
      if ((size_t)(q - start) == n && strncmp(start, name, n) == 0) return true;
    } else {
      q++;
    }
  }
  return false;
}

/* The entry points exist in the source's code (a typo is caught here, not by a launch that
 * finds no kernel). */
static bool Decl_entriesExist(DeclParser *p, const char *text) {
  for (int i = 0; i < p->v->nsteps; i++) {
    const KernelStep *st = &p->v->steps[i];
    if (st->hook != HOOK_NONE || Decl_inCode(text, st->entry)) continue;
    p->line = st->line;
    return Decl_fail(p, "kernel %s: no such function in the file", st->entry);
  }
  return true;
}

static Variant *Decl_new(const char *source) {
  Variant *v = Util_xcalloc(1, sizeof *v);
  VariantDecl *d = Util_xcalloc(1, sizeof *d);
  v->decl = d;
  ExprPool_init(&d->pool);
  d->splits_let = -1;
  for (int i = 0; i < SCRATCH_COUNT; i++) d->scratch[i].expr = -1;
  for (int i = 0; i < 4; i++) d->tma[i].expr = -1;
  v->source = Decl_keep(v, source);
  return v;
}

static Variant *Decl_run(const char *source, const char *text, const char *body, int open_line,
                         bool check_entries, char *err, size_t errsize) {
  Variant *v = Decl_new(source);
  DeclParser p = {.v = v, .d = v->decl, .source = v->source, .err = err, .errsize = errsize};
  const char *after = body;
  bool ok = Decl_block(&p, body, open_line, &after);
  int second = 0;
  if (ok && Decl_findBlock(after, &second)) {
    int base = 1;
    for (const char *q = text; q < after; q++) base += *q == '\n';
    p.line = base + second - 1;
    ok = Decl_fail(&p, "a second declaration (the first opens at line %d)", open_line);
  }
  ok = ok && Decl_finish(&p, open_line) && (!check_entries || Decl_entriesExist(&p, text));
  free(p.presets);
  free(p.preset_lines);
  if (!ok) {
    Decl_free(v);
    return NULL;
  }
  v->decl->decl_line = open_line;
  return v;
}

Variant *Decl_parse(const char *source, const char *text, bool *bare, char *err, size_t errsize) {
  int open_line = 0;
  const char *body = Decl_findBlock(text, &open_line);
  *bare = body == NULL;
  if (!body) {
    snprintf(err, errsize, "%s: no declaration (a comment block opening with '/* benchtop')", source);
    return NULL;
  }
  return Decl_run(source, text, body, open_line, true, err, errsize);
}

Variant *Decl_bare(const char *name, const char *source, const char *file_text) {
  char text[512], err[300];
  if (!Decl_inCode(file_text, "attn_fwd")) return NULL;
  snprintf(text, sizeof text,
           "name %s\nsummary bare kernel (no declaration): attn_fwd, one thread per query row\n"
           "head_dims 64 128\narch sm_80\ntolerance 2e-3\n"
           "kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)\n*/\n", name);
  Variant *v = Decl_run(source, text, text, 0, false, err, sizeof err);
  if (v) v->bare = true;
  return v;
}

void Decl_free(Variant *v) {
  if (!v) return;
  VariantDecl *d = v->decl;
  if (d) {
    for (int i = 0; i < d->nowned; i++) free(d->owned[i]);
    free(d->owned);
    ExprPool_free(&d->pool);
    free(d);
  }
  free(v);
}

bool Registry_validName(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n >= VARIANT_NAME_MAX || isdigit((unsigned char)name[0])) return false;
  for (size_t i = 0; i < n; i++)
    if (!(isalnum((unsigned char)name[i]) || name[i] == '_') || (unsigned char)name[i] >= 0x80) return false;
  return true;
}

/* Line `line` (1-based) of text with the value after its directive word replaced by value. */
static void Decl_rewriteLine(char **lines, int line, const char *word, const char *value) {
  char *l = lines[line - 1];
  char *at = strstr(l, word);
  if (!at) return;
  size_t prefix = (size_t)(at - l) + strlen(word);
  while (l[prefix] == ' ' || l[prefix] == '\t') prefix++;
  char *out = Util_asprintf("%.*s%s", (int)prefix, l, value);
  free(l);
  lines[line - 1] = out;
}

char *Registry_copyAs(const Variant *v, const char *name) {
  if (v->bare || !v->decl->name_line)
    return Util_asprintf("/* benchtop\nname      %s\nsummary   a copy of %s\nbuilds_on %s\n"
                         "head_dims 64 128\narch      sm_80\ntolerance 2e-3\n"
                         "kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)\n*/\n%s",
                         name, v->name, v->name, v->text);
  /* Split into lines (the last one may have no newline), rewrite, join. */
  int n = 1;
  for (const char *q = v->text; *q; q++) n += *q == '\n';
  char **lines = Util_xcalloc((size_t)n + 1, sizeof(char *));
  const char *q = v->text;
  for (int i = 0; i < n; i++) {
    const char *eol = strchr(q, '\n');
    size_t len = eol ? (size_t)(eol - q) : strlen(q);
    lines[i] = Util_xmalloc(len + 1);
    memcpy(lines[i], q, len);
    lines[i][len] = '\0';
    q = eol ? eol + 1 : q + len;
  }
  const VariantDecl *d = v->decl;
  Decl_rewriteLine(lines, d->name_line, "name", name);
  char *extra = NULL; /* a builds_on line after the name line when there is none */
  if (d->builds_on_line) {
    Decl_rewriteLine(lines, d->builds_on_line, "builds_on", v->name);
  } else {
    const char *l = lines[d->name_line - 1], *at = strstr(l, "name");
    extra = Util_asprintf("%.*sbuilds_on %s", at ? (int)(at - l) : 0, l, v->name);
  }
  size_t total = 1 + (extra ? strlen(extra) + 1 : 0);
  for (int i = 0; i < n; i++) total += strlen(lines[i]) + 1;
  char *out = Util_xmalloc(total), *w = out;
  for (int i = 0; i < n; i++) {
    size_t len = strlen(lines[i]);
    memcpy(w, lines[i], len);
    w += len;
    if (i + 1 < n) *w++ = '\n';
    if (extra && i + 1 == d->name_line) {
      w += sprintf(w, "%s\n", extra);
    }
    free(lines[i]);
  }
  *w = '\0';
  free(lines);
  free(extra);
  return out;
}
