/* The expression evaluator and the declaration parser, without a GPU: every operator, the
 * errors a hostile declaration can cause (each a message naming the file and line), and a
 * declaration that uses every directive. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/expr.h"
#include "kernels/jit.h"
#include "kernels/registry.h"
#include "tests/unit/check.h"

/* ---- expressions: two names, x (slot 0) = 7 and y (slot 1) = 0, and an unknown z (slot 2) ---- */

static int Test_lookup(void *user, const char *name, size_t len) {
  (void)user;
  if (len == 1 && name[0] >= 'x' && name[0] <= 'z') return name[0] - 'x';
  return -1;
}

static bool Test_word(void *user, int slot, const char *word, size_t len, long long *value) {
  (void)user;
  if (slot == 0 && len == 4 && strncmp(word, "auto", 4) == 0) {
    *value = 7;
    return true;
  }
  return false;
}

static ExprStatus Test_get(void *user, int slot, long long *out, char *err, size_t errsize) {
  (void)user;
  if (slot == 2) {
    snprintf(err, errsize, "z is not known here");
    return EXPR_UNKNOWN;
  }
  *out = slot == 0 ? 7 : 0;
  return EXPR_OK;
}

/* Parses and evaluates text; returns the status, *out the value, err the message. */
static ExprStatus Test_eval(const char *text, long long *out, char *err, size_t errsize) {
  ExprPool pool;
  ExprPool_init(&pool);
  ExprScope scope = {Test_lookup, Test_word, NULL};
  ExprEnv env = {Test_get, NULL};
  const char *s = text;
  ExprId e = Expr_parse(&pool, &s, &scope, err, errsize);
  ExprStatus st = EXPR_FAILED;
  if (e >= 0 && *s) snprintf(err, errsize, "stopped at '%s'", s);
  else if (e >= 0) st = Expr_eval(&pool, e, &env, out, err, errsize);
  ExprPool_free(&pool);
  return st;
}

static long long Test_value(const char *text) {
  long long v = LLONG_MIN;
  char err[200];
  if (Test_eval(text, &v, err, sizeof err) != EXPR_OK) fprintf(stderr, "'%s': %s\n", text, err);
  return v;
}

static bool Test_fails(const char *text, const char *why) {
  long long v;
  char err[200] = "";
  ExprStatus st = Test_eval(text, &v, err, sizeof err);
  bool ok = st == EXPR_FAILED && strstr(err, why) != NULL;
  if (!ok) fprintf(stderr, "'%s': expected an error with '%s', got '%s'\n", text, why, err);
  return ok;
}

static void Test_expressions(void) {
  CHECK(Test_value("1 + 2 * 3") == 7);
  CHECK(Test_value("(1 + 2) * 3") == 9);
  CHECK(Test_value("x - 10 / 3 % 2") == 6);
  CHECK(Test_value("-x + !y") == -6);
  CHECK(Test_value("0x40 + 1") == 65);
  CHECK(Test_value("cdiv(x, 2)") == 4 && Test_value("cdiv(8, 2)") == 4);
  CHECK(Test_value("cdiv(-7, 2)") == -3 && Test_value("cdiv(7, -2)") == -3 && Test_value("cdiv(-7, -2)") == 4);
  CHECK(Test_value("min(5, x, 3)") == 3 && Test_value("max(5, x, 3)") == 7);
  CHECK(Test_value("x > 5 && y == 0") == 1 && Test_value("x < 5 || y != 0") == 0);
  CHECK(Test_value("x >= 7") == 1 && Test_value("x <= 6") == 0);
  CHECK(Test_value("y ? 1 : x ? 2 : 3") == 2);
  CHECK(Test_value("x == \"auto\"") == 1 && Test_value("x != \"auto\"") == 0);
  /* Short-circuits and the untaken branch are never evaluated: guards work. */
  CHECK(Test_value("y != 0 && x / y > 1") == 0);
  CHECK(Test_value("y == 0 || x / y > 1") == 1);
  CHECK(Test_value("y ? x / y : 5") == 5);
  /* Errors: each names what went wrong. */
  CHECK(Test_fails("x / y", "division by zero"));
  CHECK(Test_fails("x % y", "division by zero"));
  CHECK(Test_fails("cdiv(x, y)", "division by zero"));
  CHECK(Test_fails("9223372036854775807 + 1", "overflow"));
  CHECK(Test_fails("-9223372036854775807 - 2", "overflow"));
  CHECK(Test_fails("4611686018427387904 * 2", "overflow"));
  CHECK(Test_fails("(-9223372036854775807 - 1) / -1", "overflow"));
  CHECK(Test_fails("-(-9223372036854775807 - 1)", "overflow"));
  CHECK(Test_fails("99999999999999999999", "number too large"));
  CHECK(Test_fails("x + w", "unknown name"));
  CHECK(Test_fails("pow(x, 2)", "unknown function"));
  CHECK(Test_fails("cdiv(x)", "cdiv takes two"));
  CHECK(Test_fails("min(x)", "min/max take two"));
  CHECK(Test_fails("(x + 1", "expected ')'"));
  CHECK(Test_fails("x ? 1", "expected ':'"));
  CHECK(Test_fails("x +", "expected"));
  CHECK(Test_fails("x == \"manual\"", "not a value"));
  CHECK(Test_fails("\"auto\"", "quoted word"));
  CHECK(Test_fails("3 == \"auto\"", "quoted word"));
  CHECK(Test_fails("12abc", "unexpected character"));
  char deep[400];
  memset(deep, '(', 200);
  strcpy(deep + 200, "1");
  CHECK(Test_fails(deep, "nested too deeply"));
  /* A fact not known here is its own status, not an error. */
  long long v;
  char err[200];
  CHECK(Test_eval("z + 1", &v, err, sizeof err) == EXPR_UNKNOWN);
  CHECK(Test_eval("y && z", &v, err, sizeof err) == EXPR_OK && v == 0);
  /* The parser stops where a list or a condition ends. */
  ExprPool pool;
  ExprPool_init(&pool);
  ExprScope scope = {Test_lookup, Test_word, NULL};
  const char *s = "x * 2, y) : reason";
  CHECK(Expr_parse(&pool, &s, &scope, err, sizeof err) >= 0 && strcmp(s, ", y) : reason") == 0);
  s = "x > 1 ? 2 : 3 : why";
  CHECK(Expr_parse(&pool, &s, &scope, err, sizeof err) >= 0 && strcmp(s, ": why") == 0);
  ExprPool_free(&pool);
}

/* ---- declarations --------------------------------------------------------------------------- */

static const char Test_full[] =
    "// a user kernel\n"
    "/* benchtop\n"
    " * name      tiles\n"
    " * summary   a test kernel with every directive\n"
    "rung      12\n"
    "builds_on mma\n"
    "head_dims 64 96 128\n"
    "arch      sm_80\n"
    "tolerance 3e-3\n"
    "# a comment line\n"
    "knob tile  TILE  16..128 step 16 default 64 : query rows per block\n"
    "knob mode  MODE  {fast=1, exact=0}          : a word knob\n"
    "knob depth DEPTH {2, 3}\n"
    "let warps = tile / 16\n"
    "let smem = (tile + depth * 64) * D * 2\n"
    "splits mode == \"fast\" && S >= 1024 ? 2 : 1\n"
    "require smem <= 101376 : tiles: too much shared memory\n"
    "refuse D == 96 && tile > 64 \\\n"
    "       : tiles: D=96 takes tile<=64\n"
    "kernel attn_fwd grid(cdiv(S, tile), B * H, splits) block(32 * warps) smem(smem)\n"
    "kernel combine grid(splits > 1 ? cdiv(S, 64) : 0, B * H) block(128)\n"
    "scratch o_f32 splits > 1 ? splits * B * H * S * D * 4 : 0\n"
    "scratch workspace 16\n"
    "preset tile=64,mode=exact\n"
    "preset tile=128,depth=3\n"
    "*/\n"
    "extern \"C\" __global__ void attn_fwd(AttnParams p) {}\n"
    "extern \"C\" __global__ void combine(AttnParams p) {}\n";

static void Test_fullDeclaration(void) {
  char err[400] = "";
  Variant *v = Registry_parseFile("/k/tiles.cu", Test_full, err, sizeof err);
  CHECK(v != NULL);
  if (!v) {
    fprintf(stderr, "%s\n", err);
    return;
  }
  CHECK(strcmp(v->name, "tiles") == 0 && v->rung == 12 && strcmp(v->builds_on, "mma") == 0);
  CHECK(strcmp(v->summary, "a test kernel with every directive") == 0);
  CHECK(v->head_dims[0] == 64 && v->head_dims[1] == 96 && v->head_dims[2] == 128 && !v->head_dims[3]);
  CHECK(v->min_cc == 80 && !v->arch_specific && v->tolerance == 3e-3);
  CHECK(v->nknobs == 3 && v->nsteps == 2 && v->npresets == 2);
  const KnobDesc *tile = &v->knobs[0];
  CHECK(tile->is_range && tile->nvalues == 8 && strcmp(tile->values[tile->def], "64") == 0);
  CHECK(strcmp(tile->macro, "TILE") == 0 && strcmp(tile->help, "query rows per block") == 0);
  CHECK(strcmp(v->knobs[2].help, "") == 0);
  KnobValues kv;
  Registry_defaults(v, &kv);
  char buf[200];
  Registry_formatKnobs(v, &kv, buf, sizeof buf);
  CHECK(strcmp(buf, "tile=64,mode=fast,depth=2") == 0);
  /* Any declared value, numbers by value; words through their macro value. */
  CHECK(Registry_applyKnobs(v, "tile=96,mode=exact", &kv, false, err, sizeof err));
  CHECK(Registry_knobNumber(v, &kv, 0) == 96 && Registry_knobNumber(v, &kv, 1) == 0);
  CHECK(Registry_applyKnobs(v, "tile=0112", &kv, false, err, sizeof err) && Registry_knobNumber(v, &kv, 0) == 112);
  CHECK(!Registry_applyKnobs(v, "tile=100", &kv, false, err, sizeof err) && strstr(err, "16..128 step 16"));
  char *def = Jit_knobDefine(v, 1, 0);
  CHECK(def && strcmp(def, "MODE=1") == 0);
  free(def);
  CHECK(strcmp(Jit_mainEntry(v), "attn_fwd") == 0);
  /* The launch, the splits and the scratch at one shape. */
  Registry_defaults(v, &kv);
  Shape s = {.B = 2, .H = 4, .S = 2048, .D = 64, .causal = false};
  DeviceProps dev;
  Registry_anyDevice(&dev);
  dev.cc = 89;
  dev.sm_count = 58;
  LaunchPlan plan;
  CHECK(Registry_plan(v, &s, &kv, &dev, &plan, err, sizeof err));
  CHECK(plan.num_splits == 2 && plan.dims[0].grid[0] == 32 && plan.dims[0].grid[1] == 8);
  CHECK(plan.dims[0].grid[2] == 2 && plan.dims[0].block[0] == 128);
  CHECK(plan.dims[0].smem == (size_t)(64 + 2 * 64) * 64 * 2 && !plan.skip[1]);
  CHECK(plan.scratch[SCRATCH_O_F32] == (size_t)2 * 2 * 4 * 2048 * 64 * 4 && plan.scratch[SCRATCH_WORKSPACE] == 16);
  /* Refusals: the rule's own reason; head dims; the architecture. */
  char why[300];
  Shape s96 = {.B = 1, .H = 1, .S = 128, .D = 96, .causal = false};
  CHECK(Registry_applyKnobs(v, "tile=128", &kv, false, err, sizeof err));
  CHECK(Registry_refusal(v, &s96, &kv, NULL, why, sizeof why) && strcmp(why, "tiles: D=96 takes tile<=64") == 0);
  Shape s32 = {.B = 1, .H = 1, .S = 128, .D = 32, .causal = false};
  CHECK(Registry_refusal(v, &s32, &kv, NULL, why, sizeof why) && strstr(why, "supports D in {64,96,128}"));
  dev.cc = 75;
  CHECK(Registry_refusal(v, &s, &kv, &dev, why, sizeof why) && strstr(why, "needs sm_80"));
  /* A launch beyond the device's limits is refused with the kernel's line. */
  dev.cc = 89;
  dev.smem_optin = 1000;
  CHECK(Registry_refusal(v, &s, &kv, &dev, why, sizeof why) && strstr(why, "/k/tiles.cu:20: kernel attn_fwd"));
  Registry_freeVariant(v);
}

/* A broken declaration: NULL and one line "FILE:LINE: ..." containing want. */
static void Test_bad(const char *decl, int line, const char *want) {
  char text[2000], err[400] = "", prefix[64];
  snprintf(text, sizeof text,
           "/* benchtop\nname bad\nhead_dims 64\narch sm_80\ntolerance 2e-3\n%s*/\n"
           "__global__ void attn_fwd() {}\n", decl);
  Variant *v = Registry_parseFile("bad.cu", text, err, sizeof err);
  snprintf(prefix, sizeof prefix, "bad.cu:%d: ", line);
  bool ok = v == NULL && strncmp(err, prefix, strlen(prefix)) == 0 && strstr(err, want) != NULL &&
            !strchr(err, '\n');
  if (!ok) fprintf(stderr, "expected '%s...%s', got '%s'\n", prefix, want, err);
  CHECK(ok);
  Registry_freeVariant(v);
}

static void Test_badDeclarations(void) {
  const char *k = "kernel attn_fwd grid(1) block(32)\n";
  char d[600];
#define BAD(extra, line, want) (snprintf(d, sizeof d, "%s%s", k, extra), Test_bad(d, line, want))
  BAD("colour red\n", 7, "unknown key 'colour'");
  BAD("let a = 1 +\n", 7, "expected");
  BAD("let a = b\n", 7, "unknown name");
  BAD("let B = 1\n", 7, "already a name");
  BAD("let min = 1\n", 7, "name of a function");
  BAD("let a = 1 / 0\nscratch workspace a\n", 7, "division by zero");
  BAD("kernel attn_fwd grid(9223372036854775807 * 2) block(1)\n", 7, "overflow");
  BAD("kernel attn_fwd grid(1) block(2048)\n", 7, "block x is 2048");
  BAD("kernel attn_fwd grid(1) block(1024, 2)\n", 7, "2048 threads");
  BAD("kernel attn_fwd grid(1) block(32) smem(300000)\n", 7, "shared memory");
  BAD("kernel attn_fwd grid(1, 70000) block(32)\n", 7, "grid y 70000");
  BAD("kernel nosuch grid(1) block(32)\n", 7, "no such function");
  BAD("hook magic\n", 7, "unknown hook");
  BAD("knob t T {1, 2} default 3 : x\n", 7, "default 3 is not one of its values");
  BAD("knob t T 1..100000 : x\n", 7, "more than 256 values");
  BAD("knob t T {1, 1}\n", 7, "twice");
  BAD("knob t T {1, 2}\nknob t U {3}\n", 8, "already a name");
  BAD("knob t HEAD_DIM {1}\n", 7, "HEAD_DIM");
  BAD("knob t T {auto}\n", 7, "needs its macro value");
  BAD("knob t T {1, 2}\nrefuse t == \"fast\" : x\n", 8, "not a value of that knob");
  BAD("require 1 > 0\n", 7, "expected ':'");
  BAD("require 1 > 0 :\n", 7, "needs a value");
  BAD("preset bogus=1\n", 7, "no knob 'bogus'");
  BAD("name again\n", 7, "declared twice (first at line 2)");
  BAD("scratch heap 16\n", 7, "scratch is workspace");
  BAD("tma x(64)\n", 7, "tma names the boxes");
  BAD("splits 0\n", 7, "splits is 0");
  BAD("summary caf\xc3\xa9\n", 7, "plain printable ASCII");
  BAD("summary bell\a\n", 7, "plain printable ASCII");
  BAD("dtypes fp32\n", 7, "dtypes lists fp16 and/or bf16");
  BAD("dtypes bf16 bf16\n", 7, "listed twice");
  BAD("dtypes fp16\ndtypes bf16\n", 8, "declared twice");
  BAD("supports paged\n", 7, "supports lists gqa");

  BAD("supports\n", 7, "supports needs");
  BAD("let Hkv = 1\n", 7, "already a name");
  BAD("let q = dtype == \"fp32\"\n", 7, "not a value");
  /* A probe of the widest problem it declares: Sq = 1 with a KV cache makes S - 1 zero. */
  BAD("supports kv_cache\nlet r = 64 / (S - 1)\nscratch workspace r\n", 8, "division by zero");
#undef BAD
  Test_bad("", 1, "launches nothing");
  Test_bad("kernel attn_fwd block(32)\n", 6, "needs grid(...) and block(...)");
  Test_bad("kernel attn_fwd grid(1) block(32)\ntolerance 2\n", 7, "declared twice");
  /* Missing pieces, a second block, an unclosed block. */
  char err[400];
  CHECK(!Registry_parseFile("x.cu", "/* benchtop\nname x\n*/\n", err, sizeof err) && strstr(err, "x.cu:1: ") && strstr(err, "head_dims"));
  CHECK(!Registry_parseFile("x.cu", "/* benchtop\nname x\nhead_dims 64\narch sm_80\ntolerance 1e-3\nkernel f grid(1) block(1)\n*/\nvoid f();\n/* benchtop\n*/\n", err, sizeof err) && strstr(err, "x.cu:9: a second declaration"));
  CHECK(!Registry_parseFile("x.cu", "// hi\n/* benchtop\nname x\n", err, sizeof err) && strstr(err, "x.cu:2: ") && strstr(err, "no closing"));
  CHECK(!Registry_parseFile("x.cu", "__global__ void attn_fwd() {}\n", err, sizeof err) && strstr(err, "no declaration"));
  CHECK(!Registry_parseFile("x.cu", "/* benchtop\nname x\nhead_dims 64\narch sm_7\n*/\n", err, sizeof err) && strstr(err, "x.cu:4: arch"));
  CHECK(!Registry_parseFile("x.cu", "/* benchtop\nname x\ntolerance 2e-3 fp8 1e-1\n*/\n", err, sizeof err) && strstr(err, "x.cu:3: ") && strstr(err, "followed by the bf16 one"));
  CHECK(!Registry_parseFile("x.cu", "/* benchtop\nname x\ntolerance 2e-3 bf16\n*/\n", err, sizeof err) && strstr(err, "x.cu:3: ") && strstr(err, "followed by the bf16 one"));
}

/* The wider problem: a declaration that says nothing new refuses each new feature by name; one
 * that declares dtypes and supports runs them, with Hq Hkv Sq Skv dtype in its expressions. */
static const char Test_wide[] =
    "/* benchtop\nname wide\nhead_dims 64 128\narch sm_80\ntolerance 2e-3 bf16 1e-2\n"
    "dtypes fp16 bf16\nsupports gqa kv_cache\n"
    "let group = Hq / Hkv\n"
    "require Sq <= 16 : wide: decode only (Sq <= 16)\n"
    "refuse dtype == \"bf16\" && D == 128 && Skv > 4096 : wide: no long bf16 D=128\n"
    "kernel attn_fwd grid(cdiv(Skv, 256), B * Hkv, group) block(128)\n*/\n"
    "extern \"C\" __global__ void attn_fwd(AttnParams p) {}\n";

static void Test_wideProblem(void) {
  char err[400] = "", why[300];
  Variant *old = Registry_parseFile("old.cu",
      "/* benchtop\nname old\nhead_dims 64\narch sm_80\ntolerance 2e-3\n"
      "kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)\n*/\n"
      "extern \"C\" __global__ void attn_fwd(AttnParams p) {}\n", err, sizeof err);
  Variant *wide = Registry_parseFile("wide.cu", Test_wide, err, sizeof err);
  CHECK(old && wide);
  if (!old || !wide) {
    fprintf(stderr, "%s\n", err);
    Registry_freeVariant(old);
    Registry_freeVariant(wide);
    return;
  }
  CHECK(old->dtypes == 1u << SHAPE_FP16 && !old->gqa && !old->kv_cache);
  CHECK(wide->dtypes == 3u && wide->gqa && wide->kv_cache);
  CHECK(Registry_tolerance(wide, SHAPE_FP16) == 2e-3 && Registry_tolerance(wide, SHAPE_BF16) == 1e-2);
  CHECK(Registry_tolerance(old, SHAPE_BF16) == 2e-3);
  KnobValues kv;
  Registry_defaults(old, &kv);
  Shape today = {.B = 2, .H = 8, .S = 512, .D = 64, .causal = true};
  Shape explicit_same = {.B = 2, .H = 8, .S = 512, .D = 64, .Hkv = 8, .Skv = 512};
  Shape gqa = {.B = 2, .H = 8, .S = 512, .D = 64, .Hkv = 2};
  Shape decode = {.B = 2, .H = 8, .S = 1, .D = 64, .Hkv = 2, .Skv = 4096, .causal = true};
  Shape cache = {.B = 2, .H = 8, .S = 128, .D = 64, .Skv = 4096};
  Shape bf16 = {.B = 2, .H = 8, .S = 512, .D = 64, .dtype = SHAPE_BF16};
  CHECK(Registry_refusal(old, &today, &kv, NULL, why, sizeof why) == NULL);
  CHECK(Registry_refusal(old, &explicit_same, &kv, NULL, why, sizeof why) == NULL);
  CHECK(Registry_refusal(old, &gqa, &kv, NULL, why, sizeof why) &&
        strcmp(why, "old: no grouped-query heads (Hkv < Hq)") == 0);
  CHECK(Registry_refusal(old, &cache, &kv, NULL, why, sizeof why) &&
        strcmp(why, "old: no KV cache (Sq < Skv)") == 0);
  CHECK(Registry_refusal(old, &bf16, &kv, NULL, why, sizeof why) &&
        strcmp(why, "old: fp16 only (not bf16)") == 0);
  /* The new names: the declared rules decide, and the launch sees Hkv, Skv and the group. */
  Registry_defaults(wide, &kv);
  CHECK(Registry_refusal(wide, &decode, &kv, NULL, why, sizeof why) == NULL);
  CHECK(Registry_refusal(wide, &today, &kv, NULL, why, sizeof why) &&
        strcmp(why, "wide: decode only (Sq <= 16)") == 0);
  Shape long_bf16 = {.B = 1, .H = 32, .S = 1, .D = 128, .Hkv = 8, .Skv = 8192, .dtype = SHAPE_BF16};
  CHECK(Registry_refusal(wide, &long_bf16, &kv, NULL, why, sizeof why) &&
        strcmp(why, "wide: no long bf16 D=128") == 0);
  long_bf16.dtype = SHAPE_FP16;
  CHECK(Registry_refusal(wide, &long_bf16, &kv, NULL, why, sizeof why) == NULL);
  DeviceProps dev;
  Registry_anyDevice(&dev);
  dev.cc = 90;
  dev.sm_count = 132;
  LaunchPlan plan;
  CHECK(Registry_plan(wide, &long_bf16, &kv, &dev, &plan, err, sizeof err));
  CHECK(plan.dims[0].grid[0] == 32 && plan.dims[0].grid[1] == 8 && plan.dims[0].grid[2] == 4);
  Registry_freeVariant(old);
  Registry_freeVariant(wide);
}

int main(void) {
  Test_expressions();
  Test_fullDeclaration();
  Test_badDeclarations();
  Test_wideProblem();
  return Check_done("declarations");
}
