/* Compiles, without a GPU, what check-kernels does not cover for the ladder rungs:
 *  - the fp32 reference (reference.cu) for sm_80, sm_89 and sm_90: no spills, no ptxas
 *    warning, static shared memory within the 48 KiB a block gets without opting in;
 *  - every preset of naive .. wmma and cublas's softmax to PTX: the scalar rungs (naive,
 *    smem, swizzle, cp_async, cublas's softmax) contain no tensor-core instruction at all,
 *    wmma_qk and wmma do, and cp_async really uses cp.async. */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/embedded.h"
#include "kernels/jit.h"
#include "kernels/reference.h"
#include "kernels/registry.h"
#include "tests/unit/check.h"

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

/* PTX of variant v at knobs kv and head dim D for compute_80; NULL on failure (printed). */
static char *LadderCompile_ptx(const Variant *v, const KnobValues *kv, int D) {
  static const char *const hdr_names[] = {"attn_params.h", "common.cuh"};
  char lerr[512];
  char *hdr[2] = {Jit_loadSource(hdr_names[0], lerr, sizeof lerr),
                  Jit_loadSource(hdr_names[1], lerr, sizeof lerr)};
  char *src = Util_xstrdup(v->text);
  char *ptx = NULL;
  char *owned[KNOB_MAX + 2];
  int nowned = 0;
  const char *opts[KNOB_MAX + 8];
  int nopt = 0;
  opts[nopt++] = "--gpu-architecture=compute_80";
  opts[nopt++] = owned[nowned++] = Util_asprintf("-I%s", BENCHTOP_CUDA_INCLUDE);
  opts[nopt++] = "-std=c++17";
  opts[nopt++] = "-default-device";
  opts[nopt++] = owned[nowned++] = Util_asprintf("-DHEAD_DIM=%d", D);
  for (int i = 0; i < v->nknobs; i++) { /* the defines Jit_compileVariant passes */
    char *def = Jit_knobDefine(v, i, kv->idx[i]); /* never NULL: test_ladder_dims checks */
    opts[nopt++] = owned[nowned++] = Util_asprintf("-D%s", def ? def : "BT_NO_MACRO_VALUE");
    free(def);
  }
  nvrtcProgram prog;
  if (!src || !hdr[0] || !hdr[1] ||
      nvrtcCreateProgram(&prog, src, v->source, 2, (const char *const *)hdr, hdr_names) !=
          NVRTC_SUCCESS) {
    fprintf(stderr, "%s: cannot create the NVRTC program\n", v->name);
    goto done;
  }
  if (nvrtcCompileProgram(prog, nopt, opts) != NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    char *log = Util_xmalloc(n + 1);
    log[0] = '\0';
    nvrtcGetProgramLog(prog, log);
    fprintf(stderr, "%s D=%d: compile failed:\n%s\n", v->name, D, log);
    free(log);
  } else {
    size_t n = 0;
    if (nvrtcGetPTXSize(prog, &n) == NVRTC_SUCCESS) {
      ptx = Util_xmalloc(n + 1);
      if (nvrtcGetPTX(prog, ptx) != NVRTC_SUCCESS) {
        free(ptx);
        ptx = NULL;
      } else {
        ptx[n] = '\0';
      }
    }
  }
  nvrtcDestroyProgram(&prog);
done:
  for (int i = 0; i < nowned; i++) free(owned[i]);
  free(src);
  free(hdr[0]);
  free(hdr[1]);
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
  LadderCompile_tensorUse();
  return Check_done("ladder_compile");
}
