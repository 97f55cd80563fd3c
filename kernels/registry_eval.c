/* Evaluating a declaration for one record: its refusals (Registry_refusal) and its launch
 * (Registry_plan: geometry, splits, scratch buffers, tensor-map boxes), checked against the
 * device's limits. Every failure names the declaration's file and line. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kernels/decl_private.h"

typedef struct EvalCtx {
  const Variant *v;
  const Shape *s;
  const KnobValues *kv;
  const DeviceProps *dev;
  long long letv[DECL_MAX_LETS];
  unsigned char state[DECL_MAX_LETS]; /* 0 not yet, 1 done */
  bool located; /* err already names a file and line (a let's) */
} EvalCtx;

/* A device property (0 or less when unknown: no device, or one that did not say) as a name's
 * value; unknown names what is missing. */
static ExprStatus Eval_device(long long value, const char *what, long long *out, char *err,
                              size_t errsize) {
  if (value <= 0) {
    snprintf(err, errsize, "needs %s, known only on a device", what);
    return EXPR_UNKNOWN;
  }
  *out = value;
  return EXPR_OK;
}

static ExprStatus Eval_expr(EvalCtx *c, ExprId e, int line, long long *out, char *err,
                            size_t errsize);

static ExprStatus Eval_get(void *user, int slot, long long *out, char *err, size_t errsize) {
  EvalCtx *c = user;
  const DeviceProps *dev = c->dev;
  switch (slot) {
  case SLOT_B: *out = c->s->B; return EXPR_OK;
  case SLOT_H: *out = c->s->H; return EXPR_OK;
  case SLOT_S: *out = c->s->S; return EXPR_OK;
  case SLOT_D: *out = c->s->D; return EXPR_OK;
  case SLOT_CAUSAL: *out = c->s->causal ? 1 : 0; return EXPR_OK;
  case SLOT_HQ: *out = c->s->H; return EXPR_OK;
  case SLOT_HKV: *out = Shape_hkv(c->s); return EXPR_OK;
  case SLOT_SQ: *out = c->s->S; return EXPR_OK;
  case SLOT_SKV: *out = Shape_skv(c->s); return EXPR_OK;
  case SLOT_DTYPE: *out = (long long)c->s->dtype; return EXPR_OK;
  case SLOT_SMS:
    return Eval_device(dev ? dev->sm_count : 0, "the SM count (sms)", out, err, errsize);
  case SLOT_CC:
    return Eval_device(dev ? dev->cc : 0, "the compute capability (cc)", out, err, errsize);
  case SLOT_L2_BYTES:
    return Eval_device(dev ? dev->l2_bytes : 0, "the L2 size (l2_bytes)", out, err, errsize);
  case SLOT_SMEM_OPTIN:
    return Eval_device(dev ? dev->smem_optin : 0, "the shared memory a block may use (smem_optin)",
                       out, err, errsize);
  default: break;
  }
  if (slot >= SLOT_KNOB0 && slot < SLOT_KNOB0 + c->v->nknobs) {
    *out = Registry_knobNumber(c->v, c->kv, slot - SLOT_KNOB0);
    return EXPR_OK;
  }
  int l = slot - SLOT_LET0;
  if (l < 0 || l >= c->v->decl->nlets) {
    snprintf(err, errsize, "bad name slot %d", slot);
    return EXPR_FAILED;
  }
  if (c->state[l]) {
    *out = c->letv[l];
    return EXPR_OK;
  }
  const DeclLet *let = &c->v->decl->lets[l];
  ExprStatus st = Eval_expr(c, let->expr, let->line, out, err, errsize);
  if (st == EXPR_OK) {
    c->letv[l] = *out;
    c->state[l] = 1;
  }
  return st;
}

/* e at its declaration line; a failure's message begins "FILE:LINE: ". */
static ExprStatus Eval_expr(EvalCtx *c, ExprId e, int line, long long *out, char *err,
                            size_t errsize) {
  ExprEnv env = {Eval_get, c};
  ExprStatus st = Expr_eval(&c->v->decl->pool, e, &env, out, err, errsize);
  if (st != EXPR_OK && !c->located) {
    char why[300];
    snprintf(why, sizeof why, "%s", err);
    snprintf(err, errsize, "%s:%d: %s", c->v->source, line, why);
    c->located = true;
  }
  return st;
}

static void Eval_init(EvalCtx *c, const Variant *v, const Shape *s, const KnobValues *kv,
                      const DeviceProps *dev) {
  memset(c, 0, sizeof *c);
  c->v = v;
  c->s = s;
  c->kv = kv;
  c->dev = dev;
}

typedef enum { RULES_OK, RULES_REFUSED, RULES_BROKEN } RulesResult;

/* The problem's dtype, grouped heads and key length against what the variant declares
 * (`dtypes`, `supports`): a kernel that declares nothing new runs today's problem only. */
static bool Eval_problem(const Variant *v, const Shape *s, char *buf, size_t size) {
  int dt = (int)s->dtype;
  if (dt < 0 || dt >= DECL_NDTYPES || !(v->dtypes & (1u << dt))) {
    char list[32] = "";
    for (int i = 0; i < DECL_NDTYPES; i++)
      if (v->dtypes & (1u << i)) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", Shape_dtypeName((ShapeDtype)(i)));
      }
    snprintf(buf, size, "%s: %s only (not %s)", v->name, list,
             dt >= 0 && dt < DECL_NDTYPES ? Shape_dtypeName((ShapeDtype)(dt)) : "this dtype");
    return false;
  }
  if (Shape_hkv(s) != s->H && !v->gqa) {
    snprintf(buf, size, "%s: no grouped-query heads (Hkv < Hq)", v->name);
    return false;
  }
  if (Shape_skv(s) != s->S && !v->kv_cache) {
    snprintf(buf, size, "%s: no KV cache (Sq < Skv)", v->name);
    return false;
  }
  return true;
}

/* The head dims, the architecture and the declared rules, in that order. */
static RulesResult Eval_rules(const Variant *v, const Shape *s, const KnobValues *kv,
                              const DeviceProps *dev, char *buf, size_t size) {
  bool d_ok = false;
  for (int i = 0; i < VARIANT_MAX_HEAD_DIMS && v->head_dims[i]; i++) d_ok |= v->head_dims[i] == s->D;
  if (!d_ok) {
    char dims[64] = "";
    for (int i = 0; i < VARIANT_MAX_HEAD_DIMS && v->head_dims[i]; i++) {
      size_t n = strlen(dims);
      snprintf(dims + n, sizeof dims - n, "%s%d", i ? "," : "", v->head_dims[i]);
    }
    snprintf(buf, size, "%s supports D in {%s}, not %d", v->name, dims, s->D);
    return RULES_REFUSED;
  }
  if (!Eval_problem(v, s, buf, size)) return RULES_REFUSED;
  int cc = dev ? dev->cc : 0;
  if (cc && cc < v->min_cc) {
    snprintf(buf, size, "%s needs sm_%d or newer, this GPU is sm_%d", v->name, v->min_cc, cc);
    return RULES_REFUSED;
  }
  if (cc && v->arch_specific && cc != v->min_cc) {
    snprintf(buf, size, "%s is sm_%da-only%s, this GPU is sm_%d", v->name, v->min_cc,
             v->min_cc == 90 ? " (Hopper)" : "", cc);
    return RULES_REFUSED;
  }
  EvalCtx c;
  Eval_init(&c, v, s, kv, dev);
  const VariantDecl *d = v->decl;
  for (int i = 0; i < d->nrules; i++) {
    const DeclRule *r = &d->rules[i];
    long long x = 0;
    c.located = false;
    ExprStatus st = Eval_expr(&c, r->expr, r->line, &x, buf, size);
    if (st == EXPR_UNKNOWN) continue; /* decided on the device */
    if (st == EXPR_FAILED) return RULES_BROKEN;
    if ((x != 0) == r->refuse_when_true) {
      snprintf(buf, size, "%s", r->reason);
      return RULES_REFUSED;
    }
  }
  return RULES_OK;
}

/* One value of a launch, in range, or a failure naming the step's line. */
static ExprStatus Eval_dim(EvalCtx *c, const KernelStep *st, ExprId e, long long fallback,
                           long long lo, long long hi, const char *what, long long *out, char *err,
                           size_t errsize) {
  if (e < 0) {
    *out = fallback;
    return EXPR_OK;
  }
  c->located = false;
  ExprStatus s = Eval_expr(c, e, st->line, out, err, errsize);
  if (s != EXPR_OK) return s;
  if (*out < lo || *out > hi) {
    snprintf(err, errsize, "%s:%d: kernel %s: %s is %lld, outside %lld..%lld", c->v->source,
             st->line, st->entry, what, *out, lo, hi);
    return EXPR_FAILED;
  }
  return EXPR_OK;
}

static ExprStatus Eval_step(EvalCtx *c, const KernelStep *st, const DeviceProps *dev,
                            LaunchDims *d, bool *skip, char *err, size_t errsize) {
  static const char *const gname[3] = {"grid x", "grid y", "grid z"};
  static const char *const bname[3] = {"block x", "block y", "block z"};
  long long g[3], b[3], smem, persist;
  ExprStatus r;
  for (int i = 0; i < 3; i++) {
    if ((r = Eval_dim(c, st, st->grid[i], 1, 0, UINT_MAX, gname[i], &g[i], err, errsize)) != EXPR_OK ||
        (r = Eval_dim(c, st, st->block[i], 1, 1, 1024, bname[i], &b[i], err, errsize)) != EXPR_OK)
      return r;
  }
  if ((r = Eval_dim(c, st, st->smem, 0, 0, INT_MAX, "smem", &smem, err, errsize)) != EXPR_OK ||
      (r = Eval_dim(c, st, st->persistent, 0, 0, 1, "persistent", &persist, err, errsize)) != EXPR_OK)
    return r;
  *skip = g[0] == 0 || g[1] == 0 || g[2] == 0;
  long long threads = b[0] * b[1] * b[2];
  const char *where = c->v->source;
  if (dev && dev->max_threads > 0 && threads > dev->max_threads) {
    snprintf(err, errsize, "%s:%d: kernel %s: a block of %lld threads exceeds the %d a block may have",
             where, st->line, st->entry, threads, dev->max_threads);
    return EXPR_FAILED;
  }
  for (int i = 0; dev && i < 3; i++) {
    if (dev->max_block[i] > 0 && b[i] > dev->max_block[i]) {
      snprintf(err, errsize, "%s:%d: kernel %s: %s %lld exceeds the device's %d", where, st->line,
               st->entry, bname[i], b[i], dev->max_block[i]);
      return EXPR_FAILED;
    }
    if (!persist && !*skip && dev->max_grid[i] > 0 && g[i] > dev->max_grid[i]) {
      snprintf(err, errsize, "%s:%d: kernel %s: %s %lld exceeds the device's %lld", where,
               st->line, st->entry, gname[i], g[i], (long long)dev->max_grid[i]);
      return EXPR_FAILED;
    }
  }
  if (dev && dev->smem_optin > 0 && smem > dev->smem_optin) {
    snprintf(err, errsize, "%s:%d: kernel %s: %lld bytes of dynamic shared memory exceed the %d a "
             "block may use", where, st->line, st->entry, smem, dev->smem_optin);
    return EXPR_FAILED;
  }
  for (int i = 0; i < 3; i++) {
    d->grid[i] = (unsigned)g[i];
    d->block[i] = (unsigned)b[i];
  }
  d->smem = (size_t)smem;
  d->persistent = persist != 0;
  return EXPR_OK;
}

static ExprStatus Eval_plan(const Variant *v, const Shape *s, const KnobValues *kv,
                            const DeviceProps *dev, LaunchPlan *out, char *err, size_t errsize) {
  static const char *const scratch_names[SCRATCH_COUNT] = {"workspace", "o_f32", "lse"};
  memset(out, 0, sizeof *out);
  EvalCtx c;
  Eval_init(&c, v, s, kv, dev);
  const VariantDecl *d = v->decl;
  out->nsteps = v->nsteps;
  for (int i = 0; i < v->nsteps; i++) {
    if (v->steps[i].hook != HOOK_NONE) continue;
    ExprStatus r = Eval_step(&c, &v->steps[i], dev, &out->dims[i], &out->skip[i], err, errsize);
    if (r != EXPR_OK) return r;
  }
  out->num_splits = 1;
  if (d->splits_let >= 0) {
    const DeclLet *l = &d->lets[d->splits_let];
    long long x;
    c.located = false;
    ExprStatus r = Eval_expr(&c, l->expr, l->line, &x, err, errsize);
    if (r != EXPR_OK) return r;
    if (x < 1 || x > 65535) {
      snprintf(err, errsize, "%s:%d: splits is %lld, outside 1..65535", v->source, l->line, x);
      return EXPR_FAILED;
    }
    out->num_splits = (int)x;
  }
  for (int i = 0; i < SCRATCH_COUNT; i++) {
    if (d->scratch[i].expr < 0) continue;
    long long x;
    c.located = false;
    ExprStatus r = Eval_expr(&c, d->scratch[i].expr, d->scratch[i].line, &x, err, errsize);
    if (r != EXPR_OK) return r;
    if (x < 0 || x > (1LL << 46)) {
      snprintf(err, errsize, "%s:%d: scratch %s is %lld bytes, outside 0..64 TiB", v->source,
               d->scratch[i].line, scratch_names[i], x);
      return EXPR_FAILED;
    }
    out->scratch[i] = (size_t)x;
  }
  for (int i = 0; i < 4; i++) {
    if (d->tma[i].expr < 0) continue;
    long long x;
    c.located = false;
    ExprStatus r = Eval_expr(&c, d->tma[i].expr, d->tma[i].line, &x, err, errsize);
    if (r != EXPR_OK) return r;
    if (x < 0 || x > 256) {
      snprintf(err, errsize, "%s:%d: a tma box of %lld rows (a box has 0..256)", v->source,
               d->tma[i].line, x);
      return EXPR_FAILED;
    }
    out->tma_rows[i] = (int)x;
  }
  return EXPR_OK;
}

double Registry_tolerance(const Variant *v, ShapeDtype dtype) {
  return dtype == SHAPE_BF16 && v->tolerance_bf16 > 0 ? v->tolerance_bf16 : v->tolerance;
}

bool Registry_plan(const Variant *v, const Shape *s, const KnobValues *kv, const DeviceProps *dev,
                   LaunchPlan *out, char *err, size_t errsize) {
  return Eval_plan(v, s, kv, dev, out, err, errsize) == EXPR_OK;
}

const char *Registry_refusal(const Variant *v, const Shape *s, const KnobValues *kv,
                             const DeviceProps *dev, char *buf, size_t size) {
  if (Eval_rules(v, s, kv, dev, buf, size) != RULES_OK) return buf;
  if (!dev) return NULL;
  LaunchPlan plan;
  /* A fact not known here (no SM count yet) is decided on the device itself. */
  return Eval_plan(v, s, kv, dev, &plan, buf, size) == EXPR_FAILED ? buf : NULL;
}

void Registry_anyDevice(DeviceProps *dev) {
  memset(dev, 0, sizeof *dev);
  dev->smem_optin = 232448; /* 227 KiB: the most any supported GPU lets a block use */
  dev->max_threads = 1024;
  dev->max_block[0] = dev->max_block[1] = 1024;
  dev->max_block[2] = 64;
  dev->max_grid[0] = INT_MAX;
  dev->max_grid[1] = dev->max_grid[2] = 65535;
}

bool Decl_probe(const Variant *v, char *err, size_t errsize) {
  static const int sms[] = {1, 256};
  for (int di = 0; di < VARIANT_MAX_HEAD_DIMS && v->head_dims[di]; di++) {
    /* The third: the widest problem it declares (grouped heads, a KV cache, its last dtype). */
    const Shape shapes[3] = {{.B = 1, .H = 1, .S = 128, .D = v->head_dims[di], .causal = false},
                             {.B = 2, .H = 8, .S = 512, .D = v->head_dims[di], .causal = true},
                             {.B = 2, .H = 8, .S = v->kv_cache ? 1 : 512, .D = v->head_dims[di],
                              .causal = true, .Hkv = v->gqa ? 1 : 8, .Skv = 512,
                              .dtype = v->dtypes & (1u << SHAPE_BF16) ? SHAPE_BF16 : SHAPE_FP16}};
    for (int p = 0; p < v->npresets; p++)
      for (int si = 0; si < 3; si++)
        for (int mi = 0; mi < 2; mi++) {
          KnobValues kv;
          char why[400];
          Registry_defaults(v, &kv);
          Registry_applyKnobs(v, v->presets[p], &kv, false, why, sizeof why);
          DeviceProps dev;
          Registry_anyDevice(&dev);
          dev.cc = v->min_cc;
          dev.sm_count = sms[mi];
          RulesResult r = Eval_rules(v, &shapes[si], &kv, &dev, why, sizeof why);
          LaunchPlan plan;
          if (r == RULES_REFUSED) continue;
          if (r == RULES_OK && Eval_plan(v, &shapes[si], &kv, &dev, &plan, why, sizeof why) != EXPR_FAILED)
            continue;
          char shape[48], knobs[200];
          Shape_format(&shapes[si], shape, sizeof shape);
          Registry_formatKnobs(v, &kv, knobs, sizeof knobs);
          snprintf(err, errsize, "%s (at %s%s%s, %d SMs)", why, shape, knobs[0] ? ", " : "", knobs,
                   sms[mi]);
          return false;
        }
  }
  return true;
}
