/* Every heuristic that depends on the device reads the device's own properties: mma's
 * split=auto (warps per SM), the persistent grid (one block per SM), the cold-L2 flush (twice
 * the L2), the shared-memory ceiling (what one block may opt into), the compute capability a
 * variant needs. Checked on an L4 (58 SMs, 48 MiB L2, sm_89, 99 KiB) and an H100 (132 SMs,
 * 50 MiB, sm_90, 227 KiB), no GPU needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/device_props.h"
#include "kernels/jit.h"
#include "kernels/registry.h"
#include "tests/unit/check.h"
#include "tests/unit/devices.h"

static KnobValues DeviceTest_knobs(const Variant *v, const char *spec) {
  KnobValues kv;
  char err[256];
  Registry_defaults(v, &kv);
  CHECK(Registry_applyKnobs(v, spec, &kv, false, err, sizeof err));
  return kv;
}

/* mma's splits, the grids of its three steps and the partial buffers agree on every device:
 * attn_fwd runs unsplit, attn_split and combine split, and auto keeps the split grid within 8
 * warps per SM of the device it runs on. */
static int DeviceTest_mmaSplits(const DeviceProps *dev, const char *shape_knobs, const Shape *s) {
  const Variant *v = Registry_find("mma");
  CHECK(v && v->nsteps == 3);
  if (!v) return -1;
  KnobValues kv = DeviceTest_knobs(v, shape_knobs);
  LaunchPlan plan;
  char err[300];
  CHECK(Registry_plan(v, s, &kv, dev, &plan, err, sizeof err));
  int splits = plan.num_splits;
  LaunchDims fwd = plan.dims[0], split = plan.dims[1], combine = plan.dims[2];
  if (splits > 1) {
    CHECK(fwd.grid[2] == 0 && split.grid[2] == (unsigned)splits && combine.grid[0] > 0);
    long warps = (long)split.grid[0] * split.grid[1] * split.grid[2] * (split.block[0] / 32);
    if (strstr(shape_knobs, "split=auto")) CHECK(warps <= 8L * dev->sm_count);
  } else {
    CHECK(splits == 1 && fwd.grid[2] == 1 && split.grid[2] == 0 && combine.grid[0] == 0);
  }
  return splits;
}

static void DeviceTest_mma(void) {
  const char *autok = "block_m=64,block_n=64,warps=4,stages=2,split=auto";
  Shape small = {.B = 2, .H = 8, .S = 512, .D = 64, .causal = false};
  Shape one_head = {.B = 1, .H = 1, .S = 2048, .D = 64, .causal = false};
  Shape large = {.B = 4, .H = 16, .S = 2048, .D = 128, .causal = false};
  /* 2x8x512x64: 128 blocks of 4 warps. 2 splits fill an H100's 132 SMs with 8 warps each;
   * on an L4's 58 the unsplit grid already gives 8.8 warps per SM. */
  CHECK(DeviceTest_mmaSplits(&Test_H100, autok, &small) == 2);
  CHECK(DeviceTest_mmaSplits(&Test_L4, autok, &small) == 1);
  /* One head of 2048 rows: 32 blocks; the H100 takes 8 splits, the L4 2. */
  CHECK(DeviceTest_mmaSplits(&Test_H100, autok, &one_head) == 8);
  CHECK(DeviceTest_mmaSplits(&Test_L4, autok, &one_head) == 2);
  /* A large grid needs no split anywhere; an explicit split is taken as asked everywhere. */
  CHECK(DeviceTest_mmaSplits(&Test_H100, autok, &large) == 1);
  CHECK(DeviceTest_mmaSplits(&Test_L4, autok, &large) == 1);
  CHECK(DeviceTest_mmaSplits(&Test_L4, "split=4", &small) == 4);
  CHECK(DeviceTest_mmaSplits(&Test_H100, "split=4", &small) == 4);
  CHECK(DeviceTest_mmaSplits(&Test_L4, "split=1", &one_head) == 1);
}

/* fa3 persist=1 asks for a persistent grid; the engine launches one block per SM at most. */
static void DeviceTest_persistent(void) {
  const Variant *v = Registry_find("fa3");
  CHECK(v != NULL);
  if (!v) return;
  KnobValues kv = DeviceTest_knobs(v, "persist=1");
  Shape s = {.B = 4, .H = 16, .S = 2048, .D = 128, .causal = false};
  LaunchPlan plan;
  char err[300];
  CHECK(Registry_plan(v, &s, &kv, &Test_H100, &plan, err, sizeof err));
  LaunchDims d = plan.dims[0];
  CHECK(d.persistent);
  unsigned long long blocks = (unsigned long long)d.grid[0] * d.grid[1] * d.grid[2];
  CHECK(blocks == 16 * 64);
  CHECK(DeviceProps_persistentBlocks(&Test_H100, blocks) == 132);
  CHECK(DeviceProps_persistentBlocks(&Test_L4, blocks) == 58);
  CHECK(DeviceProps_persistentBlocks(&Test_L4, 40) == 40); /* a grid smaller than the device */
  CHECK(DeviceProps_persistentBlocks(&Test_H100, 1) == 1);
}

/* --cold-l2 writes twice the device's L2 with 4 blocks per SM. */
static void DeviceTest_flush(void) {
  CHECK(DeviceProps_flushBytes(&Test_L4) == (size_t)96 << 20);
  CHECK(DeviceProps_flushBytes(&Test_H100) == (size_t)100 << 20);
  CHECK(DeviceProps_flushBytes(&Test_H200) == (size_t)120 << 20);
  CHECK(DeviceProps_flushBlocks(&Test_L4) == 232);
  CHECK(DeviceProps_flushBlocks(&Test_H100) == 528);
}

/* A kernel asking for more shared memory than the device lets one block opt into is refused
 * before launch, saying both numbers; the same kernel runs where the device allows it. */
static void DeviceTest_smem(void) {
  static const char big_cu[] =
      "/* benchtop\nname big\nhead_dims 64\narch sm_80\ntolerance 2e-3\n"
      "kernel attn_fwd grid(S) block(128) smem(100 * 1024)\n*/\n"
      "extern \"C\" __global__ void attn_fwd() {}\n";
  char why[256];
  Variant *big = Registry_parseFile("big.cu", big_cu, why, sizeof why);
  CHECK(big != NULL);
  if (!big) return;
  KnobValues kv;
  Registry_defaults(big, &kv);
  Shape s = {.B = 1, .H = 1, .S = 128, .D = 64, .causal = false};
  const char *no = Registry_refusal(big, &s, &kv, &Test_L4, why, sizeof why);
  CHECK(no && strstr(no, "102400") && strstr(no, "101376"));
  CHECK(Registry_refusal(big, &s, &kv, &Test_H100, why, sizeof why) == NULL);
  CHECK(Registry_refusal(big, &s, &kv, &Test_A100, why, sizeof why) == NULL);
  CHECK(Registry_refusal(big, &s, &kv, NULL, why, sizeof why) == NULL); /* any device */
  Registry_freeVariant(big);
  /* Every shipped preset of every variant the L4 can run fits its 99 KiB. */
  int runnable = 0;
  for (int i = 0; i < Registry_count(); i++) {
    const Variant *v = Registry_at(i);
    for (int p = 0; p < v->npresets; p++) {
      KnobValues k = DeviceTest_knobs(v, v->presets[p]);
      for (int D = 64; D <= 128; D += 64) {
        Shape t = {.B = 2, .H = 8, .S = 512, .D = D, .causal = false};
        if (Registry_refusal(v, &t, &k, NULL, why, sizeof why)) continue;
        const char *l4 = Registry_refusal(v, &t, &k, &Test_L4, why, sizeof why);
        CHECK(l4 == NULL || v->min_cc > 89 || v->arch_specific);
        runnable += l4 == NULL;
      }
    }
  }
  CHECK(runnable > 20);
}

/* The compute capability: fa3 is Hopper-only (sm_90a), fp8 needs sm_89 (E4M3 mma), the rest
 * run from sm_80; the JIT compiles for the device's own architecture. */
static void DeviceTest_arch(void) {
  Shape s = {.B = 2, .H = 8, .S = 512, .D = 64, .causal = false};
  char why[256], arch[16];
  KnobValues kv;
  const Variant *fa3 = Registry_find("fa3"), *fp8 = Registry_find("fp8"), *mma = Registry_find("mma");
  CHECK(fa3 && fp8 && mma);
  if (!fa3 || !fp8 || !mma) return;
  Registry_defaults(fa3, &kv);
  const char *no = Registry_refusal(fa3, &s, &kv, &Test_L4, why, sizeof why);
  CHECK(no && strstr(no, "sm_90") && strstr(no, "sm_89"));
  CHECK(Registry_refusal(fa3, &s, &kv, &Test_H100, why, sizeof why) == NULL);
  Registry_defaults(fp8, &kv);
  CHECK(Registry_refusal(fp8, &s, &kv, &Test_L4, why, sizeof why) == NULL);
  CHECK(Registry_refusal(fp8, &s, &kv, &Test_A100, why, sizeof why) != NULL);
  Registry_defaults(mma, &kv);
  CHECK(Registry_refusal(mma, &s, &kv, &Test_L4, why, sizeof why) == NULL);
  Jit_archFor(Test_L4.cc, false, arch, sizeof arch);
  CHECK(strcmp(arch, "sm_89") == 0);
  Jit_archFor(Test_H100.cc, true, arch, sizeof arch);
  CHECK(strcmp(arch, "sm_90a") == 0);
  Jit_archFor(Test_H100.cc, false, arch, sizeof arch);
  CHECK(strcmp(arch, "sm_90") == 0);
}

/* NVRTC older than the GPU: the device's own architecture when NVRTC knows it, else a cubin
 * of the same major (it runs on later minors), else PTX of the newest architecture NVRTC knows
 * (the driver compiles it); never a target that cannot run there. */
static void DeviceTest_nvrtcArch(void) {
  static const int nvrtc126[] = {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90};
  static const int no89[] = {75, 80, 86, 87, 90};
  static const int with100[] = {75, 80, 86, 87, 89, 90, 100, 120};
  int n126 = (int)(sizeof nvrtc126 / sizeof nvrtc126[0]);
  char arch[32], note[200];
  CHECK(Jit_chooseArch(89, false, nvrtc126, n126, arch, sizeof arch, note, sizeof note));
  CHECK(strcmp(arch, "sm_89") == 0 && note[0] == '\0');
  CHECK(Jit_chooseArch(90, true, nvrtc126, n126, arch, sizeof arch, note, sizeof note));
  CHECK(strcmp(arch, "sm_90a") == 0 && note[0] == '\0');
  /* A Blackwell card (sm_120) with an NVRTC that stops at sm_90: PTX for compute_90. */
  CHECK(Jit_chooseArch(120, false, nvrtc126, n126, arch, sizeof arch, note, sizeof note));
  CHECK(strcmp(arch, "compute_90") == 0 && strstr(note, "sm_120") && strstr(note, "compute_90"));
  /* sm_103 with an NVRTC that knows sm_100: a cubin of the same major. */
  CHECK(Jit_chooseArch(103, false, with100, 8, arch, sizeof arch, note, sizeof note));
  CHECK(strcmp(arch, "sm_100") == 0 && strstr(note, "sm_103"));
  /* An L4 with an NVRTC that lacked sm_89: the newest sm_8x below it (a cubin runs on any
   * later minor of its major). */
  CHECK(Jit_chooseArch(89, false, no89, 5, arch, sizeof arch, note, sizeof note));
  CHECK(strcmp(arch, "sm_87") == 0 && strstr(note, "sm_89"));
  /* No arch-specific target but the device's own; nothing for a device older than NVRTC's. */
  CHECK(!Jit_chooseArch(90, true, no89, 4, arch, sizeof arch, note, sizeof note));
  CHECK(strstr(note, "sm_90a") != NULL);
  CHECK(!Jit_chooseArch(70, false, no89, 5, arch, sizeof arch, note, sizeof note));
  CHECK(strstr(note, "sm_70") && strstr(note, "sm_75"));
  /* A compute_NN target gives PTX text (what the driver compiles), not a cubin. */
  const Variant *naive = Registry_find("naive");
  KnobValues kv;
  Registry_defaults(naive, &kv);
  JitOutput out;
  char err[256];
  CHECK(Jit_compileVariant(naive, &kv, 64, "compute_89", false, &out, err, sizeof err));
  CHECK(out.cubin && out.cubin_size > 0 && strstr((const char *)out.cubin, ".target sm_89") &&
        strlen((const char *)out.cubin) + 1 == out.cubin_size);
  CHECK(strcmp(out.build.arch, "compute_89") == 0);
  Jit_free(&out);
  /* This machine's NVRTC knows the L4's and the H100's architectures. */
  CHECK(Jit_targetFor(Test_L4.cc, false, arch, sizeof arch, note, sizeof note));
  CHECK(strcmp(arch, "sm_89") == 0 && note[0] == '\0');
  CHECK(Jit_targetFor(Test_H100.cc, true, arch, sizeof arch, note, sizeof note));
  CHECK(strcmp(arch, "sm_90a") == 0);
  /* BENCHTOP_SIMULATE_OLD_NVRTC=1 hides the device's generation: PTX of the one before. */
  setenv("BENCHTOP_SIMULATE_OLD_NVRTC", "1", 1);
  CHECK(Jit_targetFor(Test_H100.cc, false, arch, sizeof arch, note, sizeof note));
  CHECK(strcmp(arch, "compute_89") == 0 && strstr(note, "compute_89"));
  CHECK(!Jit_targetFor(Test_H100.cc, true, arch, sizeof arch, note, sizeof note));
  unsetenv("BENCHTOP_SIMULATE_OLD_NVRTC");
}

/* decode's evict-first loads stopped the kernel with an illegal instruction at D = 256 on an
 * H200: the declaration refuses that pair, so no table entry of D = 128 carries it there. */
static void DeviceTest_decodeEvict(void) {
  const Variant *v = Registry_find("decode");
  CHECK(v != NULL);
  if (!v) return;
  KnobValues kv;
  char err[256] = "", why[300];
  Registry_defaults(v, &kv);
  CHECK(Registry_applyKnobs(v, "evict=1", &kv, false, err, sizeof err));
  Shape d256 = {.B = 1, .H = 4, .S = 1, .D = 256, .Hkv = 1, .Skv = 2048, .dtype = SHAPE_BF16};
  Shape d128 = d256;
  d128.D = 128;
  CHECK(Registry_refusal(v, &d256, &kv, NULL, why, sizeof why) && strstr(why, "evict=0 there"));
  CHECK(Registry_refusal(v, &d128, &kv, NULL, why, sizeof why) == NULL);
  Registry_defaults(v, &kv);
  CHECK(Registry_refusal(v, &d256, &kv, NULL, why, sizeof why) == NULL);
}

int main(void) {
  DeviceTest_decodeEvict();
  DeviceTest_nvrtcArch();
  DeviceTest_mma();
  DeviceTest_persistent();
  DeviceTest_flush();
  DeviceTest_smem();
  DeviceTest_arch();
  return Check_done("device_props");
}
