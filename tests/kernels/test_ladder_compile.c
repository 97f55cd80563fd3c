/* Compiles, without a GPU, what check-kernels does not cover for the ladder rungs:
 *  - the fp32 reference (reference.cu) for sm_80, sm_89 and sm_90: no spills, no ptxas
 *    warning, static shared memory within the 48 KiB a block gets without opting in;
 *  - the PTX of every preset of naive .. wmma and cublas's softmax (as built for sm_80): the
 *    scalar rungs (naive, smem, swizzle, cp_async, cublas's softmax) contain no tensor-core
 *    instruction at all, wmma_qk and wmma do, and cp_async really uses cp.async. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/jit.h"
#include "kernels/reference.h"
#include "kernels/registry.h"
#include "tests/unit/check.h"

/* The engine's helpers (fills, poison, checks of fp16 and bf16 outputs) compile for every
 * architecture: the worker loads them first and cannot start without them. */
static void LadderCompile_engineUtil(void) {
  static const char *const archs[] = {"sm_80", "sm_89", "sm_90"};
  char lerr[512];
  char *src = Jit_loadSource("engine_util.cu", lerr, sizeof lerr);
  CHECK(src != NULL);
  if (!src) return;
  for (int a = 0; a < 3; a++) {
    JitOutput out;
    char err[512] = "";
    bool ok = Jit_compileSource("engine_util.cu", src, NULL, 0, "check_output_bf16", archs[a],
                                false, &out, err, sizeof err);
    if (!ok) fprintf(stderr, "engine_util %s: %s\n%s\n", archs[a], err, out.log ? out.log : "");
    CHECK(ok && out.build.regs > 0 && out.build.spill_stores == 0);
    Jit_free(&out);
  }
  free(src);
}

static void LadderCompile_reference(void) {
  static const char *const archs[] = {"sm_80", "sm_89", "sm_90"};
  char lerr[512];
  char *src = Jit_loadSource(REFERENCE_SOURCE, lerr, sizeof lerr);
  CHECK(src != NULL);
  if (!src) return;
  for (int a = 0; a < 3; a++) {
    JitOutput out;
    char err[512] = "";
    bool ok = Jit_compileSource(REFERENCE_SOURCE, src, NULL, 0, REFERENCE_ENTRY, archs[a], false,
                                &out, err, sizeof err);
    if (!ok) fprintf(stderr, "reference %s: %s\n%s\n", archs[a], err, out.log ? out.log : "");
    CHECK(ok);
    if (ok) {
      const BuildInfo *b = &out.build;
      printf("reference %-6s regs %3d  smem %6d  stack %d  spill %d/%d\n", archs[a], b->regs,
             b->smem_static, b->stack_bytes, b->spill_stores, b->spill_loads);
      CHECK(b->regs > 0 && b->regs <= 255);
      CHECK(b->spill_stores == 0 && b->spill_loads == 0);
      CHECK(!out.ptxas_warning);
      CHECK(b->smem_static > 0 && b->smem_static <= 48 * 1024);
    }
    Jit_free(&out);
  }
  free(src);
}

/* PTX of variant v at knobs kv and head dim D, as the engine builds it for sm_80; NULL on
 * failure (printed). */
static char *LadderCompile_ptx(const Variant *v, const KnobValues *kv, int D) {
  JitOutput out;
  char err[512] = "";
  char *ptx = NULL;
  if (!Jit_compileVariant(v, kv, D, "sm_80", false, &out, err, sizeof err))
    fprintf(stderr, "%s D=%d: %s\n%s\n", v->name, D, err, out.log ? out.log : "");
  else if (out.ptx)
    ptx = Util_xstrdup(out.ptx);
  Jit_free(&out);
  return ptx;
}

static void LadderCompile_tensorUse(void) {
  static const struct {
    const char *variant;
    bool tensor, cp_async;
  } rungs[] = {
    {"naive", false, false}, {"smem", false, false}, {"swizzle", false, false},
    {"cp_async", false, true}, {"wmma_qk", true, false}, {"wmma", true, false},
    {"cublas", false, false},
  };
  for (size_t i = 0; i < sizeof rungs / sizeof rungs[0]; i++) {
    const Variant *v = Registry_find(rungs[i].variant);
    CHECK(v != NULL);
    if (!v) continue;
    for (int p = 0; p < v->npresets; p++)
      for (int d = 0; d < VARIANT_MAX_HEAD_DIMS && v->head_dims[d]; d++) {
        KnobValues kv;
        char err[256];
        Registry_defaults(v, &kv);
        CHECK(Registry_applyKnobs(v, v->presets[p], &kv, false, err, sizeof err));
        char *ptx = LadderCompile_ptx(v, &kv, v->head_dims[d]);
        CHECK(ptx != NULL);
        if (!ptx) continue;
        const bool mma = strstr(ptx, "mma.sync") != NULL || strstr(ptx, "wgmma") != NULL;
        const bool cp = strstr(ptx, "cp.async") != NULL;
        printf("%-9s %-10s D=%-3d tensor-core instructions: %s, cp.async: %s\n", v->name,
               v->presets[p][0] ? v->presets[p] : "-", v->head_dims[d], mma ? "yes" : "no",
               cp ? "yes" : "no");
        CHECK(mma == rungs[i].tensor);
        CHECK(cp == rungs[i].cp_async);
        free(ptx);
      }
  }
}

int main(void) {
  LadderCompile_reference();
  LadderCompile_engineUtil();
  LadderCompile_tensorUse();
  return Check_done("ladder_compile");
}
