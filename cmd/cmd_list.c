/* benchtop list variants|shapes|metrics: what can be run and measured. `list metrics --chip`
 * works offline (libnvperf_host needs no driver); without --chip it asks the GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/catalog.h"
#include "cupti/nvpw.h"
#include "cupti/profiler.h"
#include "kernels/registry.h"
#include "kernels/shape.h"

static const char list_usage[] = "variants|shapes|metrics [SUBSTRING] [--chip NAME] [--device N]";

static int List_usageError(const char *why) {
  fprintf(stderr, "benchtop list: %s (usage: benchtop list %s)\n", why, list_usage);
  return BT_EXIT_USAGE;
}

static int List_variants(void) {
  for (int i = 0; i < Registry_count; i++) {
    const Variant *v = Registry_variants[i];
    printf("%-10s %s\n", v->name, v->summary);
    printf("           head dims:");
    for (int k = 0; k < 4 && v->head_dims[k]; k++) printf("%s%d", k ? ", " : " ", v->head_dims[k]);
    printf("   min compute capability: %d.%d%s   tolerance: %.0e\n", v->min_cc / 10,
           v->min_cc % 10, v->arch_specific ? " (sm_90a only: Hopper)" : "", v->tolerance);
    for (int k = 0; k < v->nknobs; k++) {
      const KnobDesc *kd = &v->knobs[k];
      printf("           knob %s =", kd->name);
      for (int j = 0; j < Registry_knobValueCount(kd); j++)
        printf("%s%s", j ? "|" : " ", kd->values[j]);
      printf(" (default %s)%s%s\n", kd->values[0] ? kd->values[0] : "?", kd->help ? "  " : "",
             kd->help ? kd->help : "");
    }
    if (v->nknobs == 0) printf("           no knobs\n");
  }
  return BT_EXIT_OK;
}

static int List_shapes(void) {
  for (int i = 0; i < Shape_presetCount; i++) {
    Shape s;
    char err[128];
    if (!Shape_parse(Shape_presets[i], &s, err, sizeof err)) {
      printf("%-22s (invalid preset: %s)\n", Shape_presets[i], err);
      continue;
    }
    printf("%-22s %10.3f GFLOP\n", Shape_presets[i], Shape_flops(&s) / 1e9);
  }
  return BT_EXIT_OK;
}

static void List_printMetric(void *user, const NvpwMetricDesc *m) {
  (void)user;
  printf("%-64s %-10s %-12s %s\n", m->name, m->kind, m->unit[0] ? m->unit : "-", m->description);
}

static int List_metrics(int argc, char **argv) {
  const char *sub = NULL, *chip = NULL;
  int device = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--chip") == 0 || strcmp(a, "--device") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "benchtop list metrics: %s needs a value\n", a);
        return BT_EXIT_USAGE;
      }
      if (a[2] == 'c') {
        chip = argv[++i];
      } else {
        char *end;
        long d = strtol(argv[++i], &end, 10);
        if (*end || d < 0 || d > 63) return List_usageError("--device needs a device number");
        device = (int)d;
      }
    } else if (Util_startsWith(a, "--chip=")) {
      chip = a + 7;
    } else if (a[0] == '-') {
      fprintf(stderr, "benchtop list metrics: unknown option '%s'\n", a);
      return BT_EXIT_USAGE;
    } else if (!sub) {
      sub = a;
    } else {
      return List_usageError("list metrics takes one SUBSTRING");
    }
  }
  char err[1400];
  unsigned char *avail = NULL;
  char devchip[32];
  if (!chip) {
    if (Profiler_deviceCount(err, sizeof err) <= 0) {
      fprintf(stderr, "benchtop list metrics: a GPU is needed (%s); or name a chip for an "
              "offline list: --chip GH100, AD104, GA100, ...\n", err);
      return BT_EXIT_NO_GPU;
    }
    if (!Profiler_deviceChip(device, devchip, sizeof devchip, &avail, err, sizeof err)) {
      fprintf(stderr, "benchtop list metrics: %s\n", err);
      return BT_EXIT_FAILED;
    }
    chip = devchip;
  }
  NvpwHost *h = NvpwHost_new(chip, avail, err, sizeof err);
  if (!h) {
    fprintf(stderr, "benchtop list metrics: %s\n", err);
    free(avail);
    return BT_EXIT_USAGE;
  }
  printf("# %s metrics%s%s%s: name, kind, unit, description\n", NvpwHost_chip(h),
         sub ? " containing '" : "", sub ? sub : "", sub ? "'" : "");
  printf("# suffixes: counters .sum .avg .min .max (+ .per_second, .pct_of_peak_sustained_active, "
         "...), ratios .pct .ratio, throughputs .avg.pct_of_peak_sustained_elapsed\n");
  int n = NvpwHost_listMetrics(h, sub, List_printMetric, NULL, err, sizeof err);
  NvpwHost_free(h);
  free(avail);
  if (n < 0) {
    fprintf(stderr, "benchtop list metrics: %s\n", err);
    return BT_EXIT_FAILED;
  }
  if (n == 0) {
    fprintf(stderr, "benchtop list metrics: no %s metric contains '%s'\n", chip, sub ? sub : "");
    return BT_EXIT_FAILED;
  }
  return BT_EXIT_OK;
}

static int Cmd_list_exec(int argc, char **argv) {
  if (argc < 2) return List_usageError("what to list?");
  const char *what = argv[1];
  if (strcmp(what, "variants") == 0 || strcmp(what, "shapes") == 0) {
    if (argc > 2) return List_usageError("list variants/shapes take no arguments");
    return what[0] == 'v' ? List_variants() : List_shapes();
  }
  if (strcmp(what, "metrics") == 0) return List_metrics(argc - 2, argv + 2);
  return List_usageError("unknown list");
}

const Command Cmd_list = {"list", list_usage,
                          "list kernel variants, shape presets, or the GPU's (or a chip's) metrics",
                          Cmd_list_exec};
