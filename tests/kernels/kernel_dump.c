/* kernel_dump OUTDIR [--all-knobs [--from N] [--to N] | --knobs SPEC] [--arch LIST] [--variant NAME]
 *
 * Compiles what check-kernels compiles (every variant at its shipped presets, or with
 * --all-knobs every knob setting its check accepts, or the one setting SPEC, "k=v,k=v") for each
 * head dimension and architecture)
 * through the product's own NVRTC path, and writes for each build OUTDIR/NAME.cubin,
 * NAME.ptx and NAME.log (the ptxas report), NAME = variant__knobs__D64__sm_80. The kernel
 * sources are the embedded ones, or $BENCHTOP_KERNEL_DIR's: tests/kernels/compare_builds.py
 * runs this twice, on two source trees, and compares the outputs. Exit 1 if a build failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/jit.h"
#include "kernels/registry.h"

static bool KernelDump_write(const char *dir, const char *name, const char *ext, const void *data,
                             size_t size) {
  char path[4096], err[256];
  snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
  if (Util_writeFileAtomic(path, data, size, err, sizeof err)) return true;
  fprintf(stderr, "kernel_dump: %s\n", err);
  return false;
}

/* One variant x knob setting x D x arch; true when built (or not applicable) and written. */
static bool KernelDump_one(const char *dir, const Variant *v, const KnobValues *kv, int D,
                           int cc) {
  if (cc < v->min_cc || (v->arch_specific && cc != 90)) return true;
  Shape probe = {.B = 1, .H = 1, .S = 128, .D = D, .causal = false};
  char knobs[160], arch[16], name[320], err[512];
  if (Registry_refusal(v, &probe, kv, NULL, err, sizeof err)) return true; /* nothing to build */
  Registry_formatKnobs(v, kv, knobs, sizeof knobs);
  Jit_archFor(cc, v->arch_specific, arch, sizeof arch);
  snprintf(name, sizeof name, "%s__%s__D%d__%s", v->name, knobs[0] ? knobs : "-", D, arch);
  JitOutput out;
  if (!Jit_compileVariant(v, kv, D, arch, false, &out, err, sizeof err)) {
    fprintf(stderr, "kernel_dump: %s: %s\n", name, err);
    Jit_free(&out);
    return false;
  }
  bool ok = KernelDump_write(dir, name, "cubin", out.cubin, out.cubin_size) &&
            KernelDump_write(dir, name, "log", out.log, strlen(out.log)) &&
            KernelDump_write(dir, name, "ptx", out.ptx ? out.ptx : "", out.ptx ? strlen(out.ptx) : 0);
  Jit_free(&out);
  return ok;
}

/* Every knob setting of v (an odometer over the value lists; only settings [from, to) when
 * to >= 0: a resumed or split run), or its presets. */
static int KernelDump_variant(const char *dir, const Variant *v, bool all_knobs, const char *spec,
                              long from, long to, int cc) {
  int failures = 0;
  KnobValues kv;
  if (!all_knobs) {
    const char *one[2] = {spec, NULL};
    const char *const *specs = spec ? one : v->presets;
    for (int p = 0; p < VARIANT_MAX_PRESETS && specs[p]; p++) {
      char err[256];
      Registry_defaults(v, &kv);
      if (!Registry_applyKnobs(v, specs[p], &kv, false, err, sizeof err)) {
        fprintf(stderr, "kernel_dump: %s knobs %s: %s\n", v->name, specs[p], err);
        failures++;
        continue;
      }
      for (int d = 0; d < VARIANT_MAX_HEAD_DIMS && v->head_dims[d]; d++) failures += !KernelDump_one(dir, v, &kv, v->head_dims[d], cc);
    }
    return failures;
  }
  int nvals[KNOB_MAX];
  Registry_defaults(v, &kv);
  for (int k = 0; k < v->nknobs; k++) {
    nvals[k] = Registry_knobValueCount(&v->knobs[k]);
    kv.idx[k] = 0;
  }
  for (long n = 0;; n++) {
    for (int d = 0; d < VARIANT_MAX_HEAD_DIMS && v->head_dims[d] && n >= from && (to < 0 || n < to); d++)
      failures += !KernelDump_one(dir, v, &kv, v->head_dims[d], cc);
    int k = 0;
    while (k < v->nknobs && ++kv.idx[k] == nvals[k]) kv.idx[k++] = 0;
    if (k == v->nknobs) return failures;
  }
}

int main(int argc, char **argv) {
  const char *dir = NULL, *archs = "sm_80,sm_89,sm_90", *only = NULL, *spec = NULL;
  long from = 0, to = -1;
  bool all_knobs = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--all-knobs") == 0) all_knobs = true;
    else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc) archs = argv[++i];
    else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) only = argv[++i];
    else if (strcmp(argv[i], "--knobs") == 0 && i + 1 < argc) spec = argv[++i];
    else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) from = strtol(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc) to = strtol(argv[++i], NULL, 10);
    else if (argv[i][0] != '-' && !dir) dir = argv[i];
    else {
      fprintf(stderr, "usage: kernel_dump OUTDIR [--all-knobs [--from N] [--to N] | --knobs SPEC] [--arch LIST] [--variant NAME]\n");
      return 2;
    }
  }
  if (!dir || !Util_mkdirs(dir)) {
    fprintf(stderr, "kernel_dump: %s\n", dir ? "cannot create the output folder" : "no OUTDIR given");
    return 2;
  }
  char *list = Util_xstrdup(archs), *save = NULL;
  int failures = 0;
  for (char *arch = strtok_r(list, ",", &save); arch; arch = strtok_r(NULL, ",", &save)) {
    int cc = 0;
    if (sscanf(arch, "sm_%d", &cc) != 1) {
      fprintf(stderr, "kernel_dump: bad architecture '%s' (expected e.g. sm_89)\n", arch);
      free(list);
      return 2;
    }
    for (int i = 0; i < Registry_count(); i++)
      if (!only || strcmp(only, Registry_at(i)->name) == 0)
        failures += KernelDump_variant(dir, Registry_at(i), all_knobs, spec, from, to, cc);
  }
  free(list);
  return failures ? 1 : 0;
}
