/* Physical floors from a shape, a p50 and the device's ceilings. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"
#include "sessions/datasheet.h"
#include "sessions/floors.h"

static Record Make(const char *shape, double p50, double tflops, double gbs, double launch) {
  Record r;
  Record_init(&r);
  char err[100];
  Shape_parse(shape, &r.shape, err, sizeof err);
  r.timing.p50 = p50;
  r.device.peak_tflops = tflops;
  r.device.peak_gbs = gbs;
  r.device.launch_us = launch;
  return r;
}

int main(void) {
  /* 2x8x512x64: 1.07 GFLOP, 4.19 MB; at 656 TFLOP/s, 4270 GB/s, 1 us launches. */
  Record r = Make("2x8x512x64", 6.53, 656, 4270, 1.0);
  Floors f;
  Floors_compute(&r, &f);
  CHECK(fabs(f.flops - 4.0 * 2 * 8 * 512 * 512 * 64) < 1);
  CHECK(fabs(f.bytes - 8.0 * 2 * 8 * 512 * 64) < 1);
  CHECK(fabs(f.flop_us - f.flops / 656e12 * 1e6) < 1e-9);
  CHECK(fabs(f.byte_us - f.bytes / 4270e9 * 1e6) < 1e-9);
  CHECK(f.bound && strcmp(f.bound, "compute") == 0 && f.floor_us == f.flop_us);
  CHECK(fabs(f.x_floor - 6.53 / f.flop_us) < 1e-9);
  CHECK(fabs(f.achieved_gbs - f.bytes / 6.53e-6 / 1e9) < 1e-6);
  /* A launch floor above both: launch-bound. */
  r.device.launch_us = 2.5;
  Floors_compute(&r, &f);
  CHECK(f.bound && strcmp(f.bound, "launch") == 0 && fabs(f.x_floor - 6.53 / 2.5) < 1e-12);
  /* Causal: half the FLOPs, the same bytes: a slow device's bandwidth binds. */
  Record c = Make("8x16x4096x64:causal", 1000, 656, 100, 1.0);
  Floors_compute(&c, &f);
  CHECK(fabs(f.flops - 2.0 * 8 * 16 * 4096.0 * 4096 * 64) < 1);
  CHECK(f.bound && strcmp(f.bound, "memory") == 0);
  /* Unknown ceilings: only what can be had; none at all: no bound. */
  Record u = Make("2x8x512x64", 6.53, NAN, 4270, NAN);
  Floors_compute(&u, &f);
  CHECK(isnan(f.flop_us) && isnan(f.launch_us) && f.bound && strcmp(f.bound, "memory") == 0);
  Record none = Make("2x8x512x64", 6.53, NAN, NAN, NAN);
  Floors_compute(&none, &f);
  CHECK(!f.bound && isnan(f.x_floor) && isnan(f.floor_us) && !isnan(f.achieved_gbs));
  Record nop50 = Make("2x8x512x64", NAN, 656, 4270, 1.0);
  Floors_compute(&nop50, &f);
  CHECK(f.bound && isnan(f.x_floor) && isnan(f.achieved_gbs));
  /* fp8 (QK^T on fp8 tensor cores) on an H100: half the FLOPs at twice the rate. */
  Record q = Make("2x8x512x64", 6.53, 656, 4270, 1.0);
  snprintf(q.variant, sizeof q.variant, "fp8");
  snprintf(q.device.name, sizeof q.device.name, "NVIDIA H100 80GB HBM3");
  q.device.cc_major = 9, q.device.cc_minor = 0;
  Floors_compute(&q, &f);
  double fp16_us = f.flops / 656e12 * 1e6;
  CHECK(f.fp8_flops == f.flops / 2 && fabs(f.flop_us - 0.75 * fp16_us) < 1e-4 * fp16_us);
  CHECK(fabs(f.rate_tflops - 656 / 0.75) < 0.1); /* the datasheet ratio: 1978.9 / 989.4 */
  CHECK(fabs(f.declared_tflops - 989.4) < 1e-9 && fabs(f.declared_gbs - 3350) < 1e-9);
  /* The same record as mma: all at the fp16 rate. */
  snprintf(q.variant, sizeof q.variant, "mma");
  Floors_compute(&q, &f);
  CHECK(f.fp8_flops == 0 && fabs(f.flop_us - fp16_us) < 1e-9);
  /* An unknown product: no datasheet, the fp8 ratio by compute capability. */
  snprintf(q.variant, sizeof q.variant, "fp8");
  snprintf(q.device.name, sizeof q.device.name, "scripted test worker");
  Floors_compute(&q, &f);
  CHECK(isnan(f.declared_tflops) && fabs(f.flop_us - 0.75 * fp16_us) < 1e-9);
  q.device.cc_major = 8; /* no fp8 tensor cores: the floor stays at the fp16 rate */
  Floors_compute(&q, &f);
  CHECK(f.fp8_flops == 0 && fabs(f.flop_us - fp16_us) < 1e-9);
  /* Datasheet names: whole words, the specific product first. */
  static const struct { const char *name; const char *product; } names[] = {
      {"NVIDIA H100 PCIe", "H100 PCIe"}, {"NVIDIA H100 80GB HBM3", "H100"},
      {"NVIDIA H200", "H200"}, {"NVIDIA GH200 480GB", NULL}, {"NVIDIA L40S", "L40S"},
      {"NVIDIA L4", "L4"}, {"NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"},
      {"NVIDIA A100-PCIE-40GB", "A100"}, {"NVIDIA GeForce RTX 4090", "RTX 4090"},
      {"NVIDIA A10G", NULL}, {"", NULL},
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    DeviceInfo d;
    Device_init(&d);
    snprintf(d.name, sizeof d.name, "%s", names[i].name);
    const Datasheet *ds = Datasheet_find(&d);
    if (names[i].product) CHECK(ds && strcmp(ds->product, names[i].product) == 0);
    else CHECK(!ds);
  }
  return Check_done("floors");
}
