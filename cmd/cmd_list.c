/* benchtop list variants|shapes|metrics: what can be run and measured. `list metrics --chip`
 * works offline (libnvperf_host needs no driver); without --chip it asks the GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/cudnn.h"
#include "cmd/commands.h"
#include "common/gpu_build.h"
#include "common/text.h"
#include "common/util.h"
#include "cupti/chips.h"
#include "cupti/nvpw.h"
#include "cupti/profiler.h"
#include "kernels/registry.h"
#include "kernels/shape.h"
#include "sessions/catalog.h"

enum { LIST_CHIP, LIST_DEVICE, LIST_NAMES, LIST_KERNELS, LIST_NOPTS };

static const CommandOption list_options[] = {
  [LIST_CHIP] = {.name = "chip", .value = CMD_TEXT, .arg = "NAME",
                 .help = "metrics: list a chip's metrics offline, no GPU needed: a GPU (L4, "
                         "H100, RTX 4090), a compute capability (sm_89) or a chip (AD104)"},
  [LIST_DEVICE] = {.name = "device", .value = CMD_INT, .arg = "N",
                   .help = "metrics: the GPU to ask (default 0)", .lo = 0, .hi = 63},
  [LIST_NAMES] = {.name = "names", .value = CMD_FLAG,
                  .help = "names only, one per line (for scripts and completion)"},
  [LIST_KERNELS] = CMD_OPTION_KERNELS,
};

static const CommandArg list_args[] = {
  {"variants|shapes|metrics", "what to list: kernel variants with their knobs, shape presets, "
   "or the hardware metrics of this GPU (or of --chip)", "variants|shapes|metrics",
   CMD_COMPLETE_CHOICES, 0},
  {"SUBSTRING", "only the names that contain it", NULL, CMD_COMPLETE_NONE, CMD_ARG_OPTIONAL},
};

static bool List_match(const char *name, const char *sub) { return !sub || strstr(name, sub); }

/* No name contains the SUBSTRING: one line, exit 1 (as list metrics does). */
static int List_none(const char *what, const char *sub) {
  fprintf(stderr, "benchtop list: no %s contains '", what);
  Text_print(stderr, sub); /* what the user typed: never raw to the terminal */
  fputs("'\n", stderr);
  return BT_EXIT_FAILED;
}

/* A variant this build or machine cannot run at all (cudnn without cuDNN): one line why. */
static void List_unavailable(const Variant *v) {
  char why[320];
  for (int i = 0; i < v->nsteps; i++)
    if (v->steps[i].hook == HOOK_CUDNN_SDPA && !Cudnn_available(why, sizeof why)) {
      printf("           unavailable: %s\n", why);
      return;
    }
}

static int List_variants(const char *sub, bool names) {
  int n = 0;
  for (int i = 0; i < Registry_count(); i++) {
    const Variant *v = Registry_at(i);
    if (!List_match(v->name, sub)) continue;
    n++;
    if (names) {
      Text_print(stdout, v->name);
      fputc('\n', stdout);
      continue;
    }
    /* Names, paths and words of user kernels come from files: sanitised. */
    char name[RECORD_NAME_MAX];
    printf("%-10s ", Text_sanitize(name, sizeof name, v->name));
    Text_print(stdout, v->summary);
    fputc('\n', stdout);
    printf("           head dims:");
    for (int k = 0; k < VARIANT_MAX_HEAD_DIMS && v->head_dims[k]; k++)
      printf("%s%d", k ? ", " : " ", v->head_dims[k]);
    printf("   min compute capability: %d.%d%s   tolerance: %.0e", v->min_cc / 10,
           v->min_cc % 10, v->arch_specific ? " (that architecture only)" : "", v->tolerance);
    if (v->tolerance_bf16 > 0) printf(" (bf16 %.0e)", v->tolerance_bf16);
    printf("\n           dtypes:%s%s   problems: %s%s%s\n",
           v->dtypes & (1u << SHAPE_FP16) ? " fp16" : "", v->dtypes & (1u << SHAPE_BF16) ? " bf16" : "",
           v->gqa || v->kv_cache ? "" : "Hkv = Hq and Sq = Skv only",
           v->gqa ? "grouped-query heads" : "", v->kv_cache ? (v->gqa ? ", KV cache" : "KV cache") : "");
    printf("           %s", v->path ? "file " : "built in: ");
    Text_print(stdout, v->path ? v->path : v->source);
    if (v->rung) printf("   rung %d", v->rung);
    if (v->builds_on) fputs("   builds on ", stdout), Text_print(stdout, v->builds_on);
    printf("\n");
    for (int k = 0; k < v->nknobs; k++) {
      const KnobDesc *kd = &v->knobs[k];
      char allowed[256];
      Registry_formatAllowed(kd, allowed, sizeof allowed);
      char line[1024];
      snprintf(line, sizeof line, "           knob %s = %s (default %s)%s", kd->name, allowed,
               kd->values[kd->def], kd->help[0] ? "  " : "");
      Text_print(stdout, line);
      Text_print(stdout, kd->help);
      fputc('\n', stdout);
    }
    if (v->nknobs == 0) printf("           no knobs\n");
    List_unavailable(v);
  }
  return n ? BT_EXIT_OK : List_none("variant", sub);
}

static int List_shapes(const char *sub, bool names) {
  int n = 0;
  for (int i = 0; i < Shape_presetCount; i++) {
    if (!List_match(Shape_presets[i], sub)) continue;
    n++;
    if (names) {
      printf("%s\n", Shape_presets[i]);
      continue;
    }
    Shape s;
    char err[128];
    if (!Shape_parse(Shape_presets[i], &s, err, sizeof err)) {
      printf("%-22s (invalid preset: %s)\n", Shape_presets[i], err);
      continue;
    }
    /* FLOPs and the least bytes moved; a decode problem is bound by the bytes. */
    printf("%-32s %10.3f GFLOP %9.1f MB%s\n", Shape_presets[i], Shape_flops(&s) / 1e9,
           Shape_bytes(&s) / 1e6, Shape_isDecode(&s) ? "  decode: memory-bound" : "");
  }
  return n ? BT_EXIT_OK : List_none("shape preset", sub);
}

#if BENCHTOP_GPU
static void List_printMetric(void *user, const NvpwMetricDesc *m) {
  if (*(const bool *)user) {
    printf("%s\n", m->name);
    return;
  }
  printf("%-64s %-10s %-12s %s\n", m->name, m->kind, m->unit[0] ? m->unit : "-", m->description);
}

static int List_metrics(const char *sub, const char *chip, int device, bool names) {
  char err[1400];
  unsigned char *avail = NULL;
  char devchip[32];
  if (!chip) {
    if (Profiler_deviceCount(err, sizeof err) <= 0) {
      fprintf(stderr, "benchtop list metrics: a GPU is needed (%s); or name a chip for an "
              "offline list: --chip L4, H100, sm_89, AD104, GH100, ...\n", err);
      return BT_EXIT_NO_GPU;
    }
    if (!Profiler_deviceChip(device, devchip, sizeof devchip, &avail, err, sizeof err)) {
      fprintf(stderr, "benchtop list metrics: %s\n", err);
      return BT_EXIT_FAILED;
    }
    chip = devchip;
  }
  /* --chip L4, --chip "RTX 4090", --chip sm_89: the chip CUPTI calls it. */
  char alias_chip[32], alias_note[160] = "";
  if (chip != devchip && Chips_resolve(chip, alias_chip, sizeof alias_chip, alias_note,
                                       sizeof alias_note))
    chip = alias_chip;
  NvpwHost *h = NvpwHost_new(chip, avail, err, sizeof err);
  if (!h) {
    if (strncmp(err, "unknown chip", 12) == 0)
      fprintf(stderr, "benchtop list metrics: %s; or a GPU name or compute capability: %s\n",
              err, Chips_knownNames());
    else
      fprintf(stderr, "benchtop list metrics: %s\n", err);
    free(avail);
    return BT_EXIT_USAGE;
  }
  if (!names) {
    printf("# %s metrics%s%s%s%s%s%s: name, kind, unit, description\n", NvpwHost_chip(h),
           alias_note[0] ? " (" : "", alias_note, alias_note[0] ? ")" : "",
           sub ? " containing '" : "", sub ? sub : "", sub ? "'" : "");
    printf("# suffixes: counters .sum .avg .min .max (+ .per_second, .pct_of_peak_sustained_active, "
           "...), ratios .pct .ratio, throughputs .avg.pct_of_peak_sustained_elapsed\n");
  }
  int n = NvpwHost_listMetrics(h, sub, List_printMetric, &names, err, sizeof err);
  NvpwHost_free(h);
  free(avail);
  if (n < 0) {
    fprintf(stderr, "benchtop list metrics: %s\n", err);
    return BT_EXIT_FAILED;
  }
  if (n == 0) {
    fprintf(stderr, "benchtop list metrics: no %s metric contains '", chip);
    Text_print(stderr, sub ? sub : "");
    fputs("'\n", stderr);
    return BT_EXIT_FAILED;
  }
  return BT_EXIT_OK;
}

#else
static int List_metrics(const char *sub, const char *chip, int device, bool names) {
  (void)sub, (void)chip, (void)device, (void)names;
  return Command_needsGpuBuild(&Cmd_list); /* libnvperf_host is part of the toolkit */
}
#endif

static int List_exec(const CommandArgs *a) {
  const char *what = a->pos[0], *sub = a->npos > 1 ? a->pos[1] : NULL;
  bool names = CommandArgs_has(a, LIST_NAMES);
  Command_kernelDirs(a, LIST_KERNELS);
  if (strcmp(what, "metrics") == 0)
    return List_metrics(sub, CommandArgs_text(a, LIST_CHIP, NULL),
                        (int)CommandArgs_int(a, LIST_DEVICE, 0), names);
  if (CommandArgs_has(a, LIST_CHIP) || CommandArgs_has(a, LIST_DEVICE))
    return Command_usageError(&Cmd_list, "--chip and --device apply to list metrics only");
  return what[0] == 'v' ? List_variants(sub, names) : List_shapes(sub, names);
}

const Command Cmd_list = {
  .name = "list",
  .summary = "list kernel variants, shape presets, or the GPU's (or a chip's) metrics",
  .description = "Lists what can be run and measured. list metrics asks the GPU which metrics "
                 "it can collect; with --chip it lists a chip's metrics offline (no GPU or "
                 "driver needed).",
  .options = list_options, .noptions = LIST_NOPTS,
  .args = list_args, .nargs = CMD_COUNT(list_args),
  .exec = List_exec,
};
