/* Launch geometry of the ladder rungs (naive .. wmma, cublas's softmax) and the reference:
 * for ragged S the grid covers every query row exactly once per block row, one block row
 * per (b, h), with the thread counts and shared memory the kernels are written for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/jit.h"
#include "kernels/reference.h"
#include "kernels/registry.h"
#include "tests/unit/check.h"
#include "tests/unit/devices.h"

/* Query rows one block owns and its threads, as written in each kernel (BM, THREADS). */
static const struct {
  const char *variant;
  int rows, threads;
} Ladder[] = {
  {"naive", 128, 128}, {"smem", 64, 128}, {"swizzle", 64, 128}, {"cp_async", 64, 128},
  {"wmma_qk", 64, 128}, {"wmma", 64, 128},
};

static const int Ragged[] = {1, 2, 31, 63, 64, 65, 127, 128, 129, 300, 4095, 4097, 16383, 16384};

/* The declaration's launch on a device of compute capability cc with `sms` SMs. */
static bool LadderDims_plan(const Variant *v, const Shape *s, const KnobValues *kv, int cc, int sms,
                            LaunchPlan *plan) {
  DeviceProps dev;
  Registry_anyDevice(&dev);
  dev.cc = cc;
  dev.sm_count = sms;
  char err[300];
  bool ok = Registry_plan(v, s, kv, &dev, plan, err, sizeof err);
  if (!ok) fprintf(stderr, "%s\n", err);
  return ok;
}

static const char *LadderDims_refusal(const Variant *v, const Shape *s, const KnobValues *kv,
                                      int cc, char *why, size_t size) {
  DeviceProps dev;
  Registry_anyDevice(&dev);
  dev.cc = cc;
  dev.sm_count = 132;
  return Registry_refusal(v, s, kv, &dev, why, size);
}

static int LadderDims_knob(const Variant *v, const KnobValues *kv, const char *name) {
  int k = Registry_knobIndex(v, name);
  CHECK(k >= 0);
  return k < 0 ? -1 : (int)Registry_knobNumber(v, kv, k);
}

static void LadderDims_checkGrid(const LaunchDims *d, const Shape *s, int rows, int threads) {
  CHECK(d->grid[1] == (unsigned)(s->B * s->H));
  CHECK(d->grid[2] == 1);
  CHECK(d->block[0] == (unsigned)threads && d->block[1] == 1 && d->block[2] == 1);
  /* Covers S, and no block starts past S (a block with no valid row would be wasted). */
  CHECK((long)d->grid[0] * rows >= s->S);
  CHECK((long)(d->grid[0] - 1) * rows < s->S);
}

static void LadderDims_variants(void) {
  for (size_t i = 0; i < sizeof Ladder / sizeof Ladder[0]; i++) {
    const Variant *v = Registry_find(Ladder[i].variant);
    CHECK(v != NULL);
    if (!v) continue;
    CHECK(v->nsteps == 1 && strcmp(v->steps[0].entry, "attn_fwd") == 0);
    CHECK(v->min_cc == 80 && !v->arch_specific);
    for (int p = 0; p < v->npresets; p++) {
      KnobValues kv;
      char err[256];
      Registry_defaults(v, &kv);
      CHECK(Registry_applyKnobs(v, v->presets[p], &kv, false, err, sizeof err));
      for (int D = 64; D <= 128; D += 64)
        for (size_t k = 0; k < sizeof Ragged / sizeof Ragged[0]; k++) {
          Shape s = {.B = 3, .H = 4, .S = Ragged[k], .D = D, .causal = (k & 1) != 0};
          char why[256];
          CHECK(LadderDims_refusal(v, &s, &kv, 80, why, sizeof why) == NULL);
          LaunchPlan plan;
          CHECK(LadderDims_plan(v, &s, &kv, 80, 108, &plan));
          const LaunchDims d = plan.dims[0];
          LadderDims_checkGrid(&d, &s, Ladder[i].rows, Ladder[i].threads);
          CHECK(plan.num_splits == 1 && plan.scratch[SCRATCH_WORKSPACE] == 0 && !plan.skip[0]);
          if (strcmp(v->name, "cp_async") == 0) {
            /* Q [64][D] + stages * (K + V) [32][D] fp16 + P [64][32] fp32, as cp_async.cu
             * carves it; the most stays under the 99 KiB an sm_89 block may opt into. */
            int stages = LadderDims_knob(v, &kv, "stages");
            CHECK(stages == 2 || stages == 3);
            CHECK(d.smem == (size_t)(64 * D * 2 + stages * 2 * 32 * D * 2 + 64 * 32 * 4));
            CHECK(d.smem <= 99 * 1024);
          } else {
            CHECK(d.smem == 0); /* static shared memory only */
          }
        }
      /* D outside {64, 128} is refused, with a reason. */
      Shape odd = {.B = 1, .H = 1, .S = 128, .D = 96, .causal = false};
      char why[256];
      CHECK(LadderDims_refusal(v, &odd, &kv, 80, why, sizeof why) != NULL);
    }
  }
}

static void LadderDims_cublasSoftmax(void) {
  const Variant *v = Registry_find("cublas");
  CHECK(v != NULL);
  if (!v) return;
  /* the GEMMs are hooks around the declaration's softmax kernel */
  CHECK(v->nsteps == 3 && v->steps[0].hook == HOOK_CUBLAS_QK && v->steps[2].hook == HOOK_CUBLAS_PV);
  CHECK(v->steps[1].hook == HOOK_NONE && strcmp(v->steps[1].entry, "softmax_rows") == 0);
  CHECK(strcmp(Jit_mainEntry(v), "softmax_rows") == 0);
  KnobValues kv;
  Registry_defaults(v, &kv);
  for (size_t k = 0; k < sizeof Ragged / sizeof Ragged[0]; k++) {
    Shape s = {.B = 2, .H = 3, .S = Ragged[k], .D = 64, .causal = (k & 1) != 0};
    LaunchPlan plan;
    CHECK(LadderDims_plan(v, &s, &kv, 80, 108, &plan));
    const LaunchDims d = plan.dims[1];
    CHECK(d.grid[0] == (unsigned)s.S); /* one block per score row */
    CHECK(d.grid[1] == 6 && d.grid[2] == 1);
    CHECK(d.block[0] == 256 && d.smem == 0);
    /* fp32 scores then fp16 probabilities, [B*H][S][S] each */
    CHECK(plan.scratch[SCRATCH_WORKSPACE] == (size_t)6 * (size_t)s.S * (size_t)s.S * 6);
  }
}

static void LadderDims_reference(void) {
  CHECK(strcmp(Reference_entry, "ref_attn") == 0);
  CHECK(strcmp(Reference_source, "reference.cu") == 0);
  for (size_t k = 0; k < sizeof Ragged / sizeof Ragged[0]; k++)
    for (int D = 32; D <= REFERENCE_MAX_D; D += 32) {
      Shape s = {.B = 2, .H = 5, .S = Ragged[k], .D = D, .causal = false};
      LaunchDims d;
      Reference_dims(&s, &d);
      LadderDims_checkGrid(&d, &s, 16, 256);
      CHECK(d.smem == 0);
    }
}

/* fa3: threads = a producer warpgroup + block_m/64 * kv_split consumers; the grid covers S;
 * what the registry accepts fits one SM's 227 KiB; the TMA boxes are 64 rows of Q/O and
 * block_n rows of K/V; persist=1 asks the engine for a persistent grid. */
static void LadderDims_fa3(void) {
  const Variant *v = Registry_find("fa3");
  CHECK(v != NULL);
  if (!v) return;
  CHECK(v->arch_specific && v->min_cc == 90 && v->nsteps == 1);
  int accepted = 0;
  for (int p = 0; p < v->npresets; p++) {
    KnobValues kv;
    char err[256], why[256];
    Registry_defaults(v, &kv);
    CHECK(Registry_applyKnobs(v, v->presets[p], &kv, false, err, sizeof err));
    int bm = LadderDims_knob(v, &kv, "block_m"), bn = LadderDims_knob(v, &kv, "block_n");
    int ks = LadderDims_knob(v, &kv, "kv_split"), persist = LadderDims_knob(v, &kv, "persist");
    for (int D = 64; D <= 128; D += 64)
      for (size_t k = 0; k < sizeof Ragged / sizeof Ragged[0]; k++) {
        Shape s = {.B = 3, .H = 4, .S = Ragged[k], .D = D, .causal = (k & 1) != 0};
        const char *no = LadderDims_refusal(v, &s, &kv, 90, why, sizeof why);
        if (no) {
          CHECK(strncmp(no, "fa3: ", 5) == 0);
          continue;
        }
        accepted++;
        LaunchPlan plan;
        CHECK(LadderDims_plan(v, &s, &kv, 90, 132, &plan));
        const LaunchDims d = plan.dims[0];
        LadderDims_checkGrid(&d, &s, bm, 128 * (bm / 64 * ks + 1));
        CHECK(d.smem <= 232448);
        CHECK(d.persistent == (persist == 1));
        const int *rows = plan.tma_rows;
        CHECK(rows[0] == 64 && rows[1] == bn && rows[2] == bn && rows[3] == 64);
      }
  }
  CHECK(accepted > 0);
  /* Refused before launch, with the reason: a key split with a persistent grid, three
   * consumer warpgroups at D=128, an sm_89 device. */
  KnobValues kv;
  char err[256], why[256];
  Shape s = {.B = 1, .H = 1, .S = 512, .D = 64, .causal = false}, s128 = {.B = 1, .H = 1, .S = 512, .D = 128, .causal = false};
  Registry_defaults(v, &kv);
  CHECK(Registry_applyKnobs(v, "block_m=64,kv_split=2,sched=plain,persist=1", &kv, false, err, sizeof err));
  CHECK(LadderDims_refusal(v, &s, &kv, 90, why, sizeof why) != NULL);
  Registry_defaults(v, &kv);
  CHECK(Registry_applyKnobs(v, "block_m=192", &kv, false, err, sizeof err));
  CHECK(LadderDims_refusal(v, &s128, &kv, 90, why, sizeof why) != NULL);
  Registry_defaults(v, &kv);
  CHECK(LadderDims_refusal(v, &s, &kv, 90, why, sizeof why) == NULL);
  CHECK(LadderDims_refusal(v, &s, &kv, 89, why, sizeof why) != NULL);
}

/* mma's split=auto reads the device's own SM count: a small grid on a GPU with few SMs gets
 * fewer splits than on one with many; a fixed split is capped by the key tiles. */
static void LadderDims_mmaSplits(void) {
  const Variant *v = Registry_find("mma");
  CHECK(v != NULL);
  if (!v) return;
  KnobValues kv;
  char err[256];
  Registry_defaults(v, &kv);
  CHECK(Registry_applyKnobs(v, "split=auto", &kv, false, err, sizeof err));
  Shape s = {.B = 2, .H = 8, .S = 512, .D = 64, .causal = false}; /* 8 blocks a head x 16 heads x 4 warps = 512 warps */
  LaunchPlan h100, l4, tiny;
  CHECK(LadderDims_plan(v, &s, &kv, 90, 132, &h100) && h100.num_splits == 2);
  CHECK(LadderDims_plan(v, &s, &kv, 89, 58, &l4) && l4.num_splits == 1);
  CHECK(LadderDims_plan(v, &s, &kv, 89, 1, &tiny) && tiny.num_splits == 1);
  CHECK(h100.skip[0] && !h100.skip[1] && !h100.skip[2] && h100.dims[1].grid[2] == 2);
  CHECK(l4.skip[1] && l4.skip[2] && !l4.skip[0] && l4.scratch[SCRATCH_O_F32] == 0);
  CHECK(h100.scratch[SCRATCH_O_F32] == (size_t)2 * 2 * 8 * 512 * 64 * 4);
  CHECK(h100.scratch[SCRATCH_LSE] == (size_t)2 * 2 * 8 * 512 * 4);
  Registry_defaults(v, &kv);
  CHECK(Registry_applyKnobs(v, "split=8,block_n=128", &kv, false, err, sizeof err));
  LaunchPlan capped;
  CHECK(LadderDims_plan(v, &s, &kv, 90, 132, &capped) && capped.num_splits == 4); /* 512/128 tiles */
}

/* Every knob value of every variant reaches NVRTC as a macro value: a number as itself, a word
 * through its declared value. The kernels' contracts: mma.cu leaves out its split kernel only
 * when SPLIT_KV == 1 (auto must not be 1), fa3.cu's SCHED is 0 pingpong / 1 plain / 2 exp,
 * wmma.cu's ACC_FP16 is 1 for fp16. */
static int LadderDims_defineIs(const char *variant, const char *macro, const char *value,
                               const char *want) {
  const Variant *v = Registry_find(variant);
  if (!v) return 0;
  for (int k = 0; k < v->nknobs; k++) {
    if (strcmp(v->knobs[k].macro, macro) != 0) continue;
    for (int i = 0; i < v->knobs[k].nvalues; i++) {
      if (strcmp(v->knobs[k].values[i], value) != 0) continue;
      char *def = Jit_knobDefine(v, k, i);
      int ok = def && strcmp(def, want) == 0;
      free(def);
      return ok;
    }
  }
  return 0;
}

static void LadderDims_knobDefines(void) {
  for (int n = 0; n < Registry_count(); n++) {
    const Variant *v = Registry_at(n);
    for (int k = 0; k < v->nknobs; k++)
      for (int i = 0; i < v->knobs[k].nvalues; i++) {
        char *def = Jit_knobDefine(v, k, i);
        CHECK(def != NULL);
        if (!def) fprintf(stderr, "%s: %s=%s has no macro value\n", v->name, v->knobs[k].name,
                          v->knobs[k].values[i]);
        free(def);
      }
  }
  CHECK(LadderDims_defineIs("mma", "SPLIT_KV", "1", "SPLIT_KV=1"));
  CHECK(LadderDims_defineIs("mma", "SPLIT_KV", "auto", "SPLIT_KV=0"));
  CHECK(LadderDims_defineIs("mma", "SPLIT_KV", "2", "SPLIT_KV=2"));
  CHECK(LadderDims_defineIs("fa3", "SCHED", "pingpong", "SCHED=0"));
  CHECK(LadderDims_defineIs("fa3", "SCHED", "plain", "SCHED=1"));
  CHECK(LadderDims_defineIs("fa3", "SCHED", "exp", "SCHED=2"));
  CHECK(LadderDims_defineIs("wmma", "ACC_FP16", "fp16", "ACC_FP16=1"));
  CHECK(LadderDims_defineIs("wmma", "ACC_FP16", "fp32", "ACC_FP16=0"));
}

int main(void) {
  LadderDims_variants();
  LadderDims_fa3();
  LadderDims_mmaSplits();
  LadderDims_knobDefines();
  LadderDims_cublasSoftmax();
  LadderDims_reference();
  return Check_done("ladder_dims");
}
