/* The directives of a kernel declaration, one function each (docs/kernel-declarations.md):
 * each reads the rest of its logical line into the Variant or its VariantDecl. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/decl_parser.h"

enum { KEY_NAME, KEY_SUMMARY, KEY_RUNG, KEY_BUILDS_ON, KEY_HEAD_DIMS, KEY_ARCH, KEY_TOLERANCE,
       KEY_SPLITS, KEY_TMA, KEY_QK_FP8, KEY_DTYPES, KEY_SUPPORTS, KEY_NSINGLE };

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
  if (Registry_reservedName(p->v->name))
    return Decl_fail(p, "name '%s' is a word of the command line (all, default, auto, none): "
                        "give the variant another name", p->v->name);
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

static bool Decl_toleranceValue(const char **s, double *out) {
  char *end;
  errno = 0;
  double t = strtod(*s, &end);
  if (end == *s || errno || !isfinite(t) || t <= 0 || t > 1) return false;
  *s = end;
  *out = t;
  return true;
}

/* tolerance 2e-3 [bf16 1e-2]: the second for bf16 problems (8 bits of mantissa). */
static bool Decl_tolerance(DeclParser *p, const char *s) {
  static const char usage[] = "tolerance is a relative L2 error above 0 and at most 1, e.g. 2e-3, "
                              "optionally followed by the bf16 one: 2e-3 bf16 1e-2";
  if (!Decl_toleranceValue(&s, &p->v->tolerance)) return Decl_fail(p, "%s", usage);
  if (Decl_atEnd(s)) return true;
  const char *word = (Decl_space(&s), s);
  size_t n = Decl_ident(&s);
  Decl_space(&s);
  if (n != 4 || strncmp(word, "bf16", 4) != 0 || !Decl_toleranceValue(&s, &p->v->tolerance_bf16) ||
      !Decl_atEnd(s))
    return Decl_fail(p, "%s", usage);
  return true;
}

/* dtypes fp16 bf16 */
static bool Decl_dtypes(DeclParser *p, const char *s) {
  unsigned mask = 0;
  while (!Decl_atEnd(s)) {
    const char *word = (Decl_space(&s), s);
    size_t n = Decl_ident(&s);
    int which = -1;
    for (int i = 0; i < DECL_NDTYPES; i++)
      if (n == strlen(Shape_dtypeName((ShapeDtype)i)) && strncmp(word, Shape_dtypeName((ShapeDtype)i), n) == 0)
        which = i;
    if (which < 0) return Decl_fail(p, "dtypes lists fp16 and/or bf16 (the element types it is compiled for)");
    if (mask & (1u << which)) return Decl_fail(p, "dtype %s is listed twice", Shape_dtypeName((ShapeDtype)(which)));
    mask |= 1u << which;
  }
  if (!mask) return Decl_fail(p, "dtypes needs at least one of fp16 bf16");
  p->v->dtypes = mask;
  return true;
}

/* supports gqa kv_cache: the problems beyond one K/V head per query head and Sq == Skv. */
static bool Decl_supports(DeclParser *p, const char *s) {
  bool any = false;
  while (!Decl_atEnd(s)) {
    const char *word = (Decl_space(&s), s);
    size_t n = Decl_ident(&s);
    if (n == 3 && strncmp(word, "gqa", 3) == 0) p->v->gqa = true;
    else if (n == 8 && strncmp(word, "kv_cache", 8) == 0) p->v->kv_cache = true;
    else return Decl_fail(p, "supports lists gqa (Hkv < Hq) and/or kv_cache (Sq < Skv)");
    any = true;
  }
  if (!any) return Decl_fail(p, "supports needs gqa and/or kv_cache");
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
    else if (strcmp(st->entry, "cudnn_sdpa") == 0) st->hook = HOOK_CUDNN_SDPA;
    else return Decl_fail(p, "unknown hook '%s' (there are cublas_qk, cublas_pv and cudnn_sdpa)", st->entry);
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

bool Decl_directive(DeclParser *p, const char *s) {
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
  if (!strcmp(key, "dtypes")) return Decl_once(p, KEY_DTYPES, key) && Decl_dtypes(p, s);
  if (!strcmp(key, "supports")) return Decl_once(p, KEY_SUPPORTS, key) && Decl_supports(p, s);
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
                   "tolerance qk_fp8 dtypes supports knob let require refuse splits scratch tma kernel hook "
                   "preset)",
                   n ? key : word);
}
