/* The guarded transfer rule without a GPU: a neighbour's knobs whose query blocks pad the problem
 * or whose grid leaves most SMs idle there are passed over for a farther neighbour's that fit,
 * in the rule (Transfer_tilesFit) and in the tuned table's lookup that plain runs use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/plan.h"
#include "bench/tune/tune_table.h"
#include "bench/tune/tune_transfer.h"
#include "bench/tune/tune_wavefit.h"
#include "check.h"
#include "common/util.h"
#include "kernels/jit.h"
#include "tune_fixtures.h"


/* mma's knobs measured on an H100 (the shipped grid): 128-row blocks won at S = 256, 64-row
 * blocks at S = 128; at S = 192 the 128-row blocks pad a third of the queries (+19.6 % there). */
#define KNOBS_BM128 "block_m=128,block_n=32,warps=4,stages=3,split=auto"
#define KNOBS_BM64 "block_m=64,block_n=32,warps=4,stages=3,split=1"

static void test_tilesFit(void) {
  const Variant *mma = Registry_find("mma");
  CHECK(mma != NULL);
  if (!mma) return;
  DeviceProps dev;
  Transfer_device(&dev, 90, 132);
  Shape s256 = test_shape("64x16x256x128"), s128 = test_shape("32x32x128x128"), s192 = test_shape("55x16x192x128");
  CHECK(!Transfer_tilesFit(mma, KNOBS_BM128, &s256, &s192, &dev)); /* 256 rows for 192: padded */
  CHECK(Transfer_tilesFit(mma, KNOBS_BM64, &s128, &s192, &dev));
  CHECK(Transfer_tilesFit(mma, KNOBS_BM128, &s256, &s256, &dev)); /* its own problem */
  /* Fill: knobs of a grid of thousands of blocks at 4 heads of 512 queries (16 blocks of 132 SMs). */
  Shape wide = test_shape("8x32x1024x64"), few = test_shape("1x4x512x64");
  CHECK(!Transfer_tilesFit(mma, "block_m=128,block_n=64,warps=4,stages=2,split=1", &wide, &few, &dev));
  CHECK(Transfer_tilesFit(mma, "block_m=128,block_n=64,warps=4,stages=2,split=1", &few, &few, &dev));
  /* Knobs the variant does not take: nothing to judge by, so they are not passed over here. */
  CHECK(Transfer_tilesFit(mma, "block_m=100", &s256, &s192, &dev));
  TransferRule r;
  CHECK(TransferRule_parse("guarded", &r) && r == TRANSFER_GUARDED && TRANSFER_RULE_DEFAULT == TRANSFER_GUARDED);
}

/* Wave-fit: mma at 5x32x192x128 with 64-row blocks is 480 blocks; at 3 stages of 32-key tiles
 * (64 KiB) an H100 SM holds 3 of them, 396 a wave: 2 rounds, the second a fifth full. At 2 stages
 * (48 KiB) it holds 4: one round. The refit finds a setting of one round, the same splits and
 * block_m, at most two knobs away; a launch already one round, or persistent, has none. */
static void test_waveFit(void) {
  const Variant *mma = Registry_find("mma"), *fa3 = Registry_find("fa3");
  CHECK(mma && fa3);
  if (!mma || !fa3) return;
  DeviceProps h100, l4;
  Transfer_device(&h100, 90, 132);
  Transfer_device(&l4, 89, 58);
  Shape s = test_shape("5x32x192x128");
  KnobValues kv, alt;
  char err[256], text[200];
  Registry_defaults(mma, &kv);
  CHECK(Registry_applyKnobs(mma, KNOBS_BM64, &kv, false, err, sizeof err));
  int rounds, splits;
  double fill;
  CHECK(WaveFit_rounds(mma, &s, &kv, &h100, &rounds, &fill, &splits) && rounds == 2 && splits == 1 &&
        fill > 0.6 && fill < 0.62); /* 480 of 792 */
  CHECK(WaveFit_alternative(mma, &s, &kv, &h100, &alt));
  Registry_formatKnobs(mma, &alt, text, sizeof text);
  int r2, sp2, changed = 0;
  double f2;
  for (int i = 0; i < mma->nknobs; i++) changed += alt.idx[i] != kv.idx[i];
  CHECK(WaveFit_rounds(mma, &s, &alt, &h100, &r2, &f2, &sp2) && r2 == 1 && sp2 == 1 && changed >= 1 && changed <= 2);
  CHECK(strstr(text, "block_m=64,") != NULL); /* never smaller query blocks */
  printf("  refit at 5x32x192x128 on an H100: %s\n", text);
  /* An L4 (58 SMs, 100 KiB a SM): 1 block of 64 KiB a SM, 9 rounds; a refit has fewer. */
  CHECK(WaveFit_rounds(mma, &s, &kv, &l4, &rounds, &fill, &splits) && rounds == 9);
  CHECK(WaveFit_alternative(mma, &s, &kv, &l4, &alt) && WaveFit_rounds(mma, &s, &alt, &l4, &r2, &f2, &sp2) && r2 < 9);
  /* One round already: nothing to gain. */
  Shape small = test_shape("1x8x192x128");
  CHECK(!WaveFit_alternative(mma, &small, &kv, &h100, &alt));
  /* A persistent launch walks its tiles itself: no waves to refit. */
  Registry_defaults(fa3, &kv);
  CHECK(Registry_applyKnobs(fa3, "persist=1", &kv, false, err, sizeof err));
  CHECK(!WaveFit_rounds(fa3, &s, &kv, &h100, &rounds, &fill, &splits) && !WaveFit_alternative(fa3, &s, &kv, &h100, &alt));
}

/* A declaration of 16 knobs of 256 values each (7.9 million settings two knobs away): a refit
 * plans at most WAVEFIT_TRIES of them, so a plain run's pick stays quick, and still finds
 * fewer rounds. */
static void test_waveFitWide(void) {
  char text[4096];
  size_t used = (size_t)snprintf(text, sizeof text, "/* benchtop\nname wide\nsummary wide knobs\nhead_dims 64\n"
                                 "arch sm_80\ntolerance 2e-3\nknob a A 1..256 default 256 : shared memory / 256\n");
  for (int k = 1; k < 16; k++)
    used += (size_t)snprintf(text + used, sizeof text - used, "knob k%d K%d 1..256 : unused\n", k, k);
  snprintf(text + used, sizeof text - used, "kernel attn_fwd grid(cdiv(S, 64), B * H, 1) block(128) smem(a * 256)\n*/\n"
           "extern \"C\" __global__ void attn_fwd(AttnParams p) {}\n");
  char err[512];
  Variant *v = Registry_parseFile("/tmp/wide.cu", text, err, sizeof err);
  CHECK(v != NULL && v->nknobs == 16);
  if (!v) {
    printf("  %s\n", err);
    return;
  }
  DeviceProps h100;
  Transfer_device(&h100, 90, 132);
  Shape s = test_shape("4x32x1024x64"); /* 2048 blocks */
  KnobValues kv, alt;
  Registry_defaults(v, &kv); /* a = 256: 64 KiB, 3 blocks a SM: 6 rounds */
  int rounds, splits, r2, sp2;
  double fill, f2, t0 = Util_nowMs();
  CHECK(WaveFit_rounds(v, &s, &kv, &h100, &rounds, &fill, &splits) && rounds == 6);
  CHECK(WaveFit_alternative(v, &s, &kv, &h100, &alt) && WaveFit_rounds(v, &s, &alt, &h100, &r2, &f2, &sp2) && r2 < rounds);
  double ms = Util_nowMs() - t0;
  CHECK(ms < 500);
  printf("  a refit among 16 knobs of 256 values: %d -> %d rounds in %.0f ms\n", rounds, r2, ms);
  Registry_freeVariant(v);
}

/* A shipped GH100 table of the two entries above: a plain run at S = 192 takes the farther
 * entry's knobs and says which nearer one it passed over; at the tuned shape, its own. */
static void test_lookup(void) {
  char dir[] = "/tmp/benchtop-transfer-XXXXXX", path[200], err[256], why[400];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/GH100.json", dir);
  const Variant *mma = Registry_find("mma");
  char hash[20];
  CHECK(mma && Jit_sourceHash(mma, hash, sizeof hash));
  if (!mma) return;
  char *text = Util_asprintf(
      "{\"schema\": \"benchtop.tuned/1\", \"chip\": \"GH100\", \"entries\": ["
      "{\"device\": \"NVIDIA H100 80GB HBM3\", \"chip\": \"GH100\", \"cc\": 90, \"driver\": 13000, \"variant\": \"mma\","
      " \"source_hash\": \"%s\", \"shape\": \"64x16x256x128\", \"knobs\": \"%s\", \"p50\": 130.7},"
      "{\"device\": \"NVIDIA H100 80GB HBM3\", \"chip\": \"GH100\", \"cc\": 90, \"driver\": 13000, \"variant\": \"mma\","
      " \"source_hash\": \"%s\", \"shape\": \"32x32x128x128\", \"knobs\": \"%s\", \"p50\": 53.1}]}",
      hash, KNOBS_BM128, hash, KNOBS_BM64);
  CHECK(Util_writeFileAtomic(path, text, strlen(text), err, sizeof err));
  free(text);
  char own[220];
  snprintf(own, sizeof own, "%s/none/tuned.json", dir);
  setenv(TUNED_PATH_ENV, own, 1);
  setenv("BENCHTOP_SHIPPED_TUNED", dir, 1);
  DeviceInfo h100;
  Device_init(&h100);
  Util_strlcpy(h100.name, "NVIDIA H100 80GB HBM3", sizeof h100.name);
  h100.cc_major = 9;
  h100.driver_version = 13000;
  h100.sm_count = 132;
  RunOptions warm;
  RunOptions_init(&warm);
  TunedEntry got;
  Shape s192 = test_shape("55x16x192x128"), s256 = test_shape("64x16x256x128"), s128 = test_shape("32x32x128x128");
  CHECK(TunedTable_distance(&s192, &s256) < TunedTable_distance(&s192, &s128)); /* the nearer: padded */
  CHECKF(TunedTable_lookup(&h100, mma, &s192, &warm, &got, why, sizeof why) == 1 &&
             strcmp(got.knobs, KNOBS_BM64) == 0 && strcmp(got.passed_over, "64x16x256x128") == 0,
         "%s from %s", got.knobs, got.passed_over);
  CHECK(TunedTable_lookup(&h100, mma, &s256, &warm, &got, why, sizeof why) == 1 && got.distance == 0 &&
        strcmp(got.knobs, KNOBS_BM128) == 0 && !got.passed_over[0]);
  /* The record's note names both. */
  PlanEntry pe = test_planEntry(mma, s192, warm, PLAN_AUTO_ASKED);
  char notes[1][RECORD_AUTO_NOTE_MAX];
  TunedTable_resolve(&pe, 1, &h100, notes);
  CHECKF(strstr(notes[0], "tuned shape 32x32x128x128") && strstr(notes[0], "the nearer 64x16x256x128's tiles fit this one worse"),
         "%s", notes[0]);
  unsetenv(TUNED_PATH_ENV);
  unsetenv("BENCHTOP_SHIPPED_TUNED");
  unlink(path);
  CHECK(rmdir(dir) == 0);
}

int main(void) {
  test_tilesFit();
  test_waveFit();
  test_waveFitWide();
  test_lookup();
  return Check_done("test_tune_transfer");
}
