/* benchtop check-kernels: compile every variant at every shipped knob preset (--all-knobs:
 * every knob setting its check accepts) and head dimension for each architecture with NVRTC
 * (no GPU needed), print the resource table, and fail on any compile error, ptxas warning or
 * spill. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/check_record.h"
#include "cmd/commands.h"
#include "common/gpu_build.h"
#include "common/util.h"
#include "kernels/jit.h"
#include "kernels/registry.h"

enum { CK_ARCH, CK_VARIANT, CK_ALL_KNOBS, CK_SHARD, CK_RECORD, CK_RECORDED, CK_ONLY_RECORDED, CK_AUDIT, CK_SEED, CK_VERBOSE,
       CK_LIST_PRESETS, CK_KERNELS, CK_NOPTS };

static const CommandOption ck_options[] = {
  [CK_ARCH] = {.name = "arch", .short_name = 'a', .value = CMD_TEXT, .arg = "ARCHS",
               .help = "architectures to compile for, comma-separated (default sm_80,sm_89,sm_90)"},
  [CK_VARIANT] = {.name = "variant", .short_name = 'v', .value = CMD_TEXT, .arg = "NAME",
                  .help = "only this variant", .complete = CMD_COMPLETE_VARIANT},
  [CK_ALL_KNOBS] = {.name = "all-knobs", .value = CMD_FLAG,
                    .help = "every knob setting the variant's check accepts, not only the "
                            "shipped presets"},
  [CK_SHARD] = {.name = "shard", .value = CMD_TEXT, .arg = "I/N",
                .help = "only every N-th build, from the I-th (1 <= I <= N <= 64): N such runs "
                        "together build everything once"},
  [CK_RECORD] = {.name = "record", .value = CMD_TEXT, .arg = "FILE", .complete = CMD_COMPLETE_FILE,
                 .help = "write every build of this run (its key and ptxas report) to FILE, when "
                         "none failed"},
  [CK_RECORDED] = {.name = "recorded", .value = CMD_TEXT, .arg = "FILE", .complete = CMD_COMPLETE_FILE,
                   .help = "take a build whose variant, knobs, source hash and NVRTC build FILE "
                           "holds from it; compile the others and an audit sample"},
  [CK_ONLY_RECORDED] = {.name = "only-recorded", .value = CMD_FLAG,
                        .help = "with --recorded: a build the record lacks fails, uncompiled (the "
                                "record must be current: tools/dev.sh sweep)"},
  [CK_AUDIT] = {.name = "audit", .value = CMD_INT, .arg = "N", .lo = 0, .hi = 1000000,
                .help = "with --recorded: compile 1 in N recorded builds again, which must match "
                        "the record (default 10; 0 none, 1 all)"},
  [CK_SEED] = {.name = "seed", .value = CMD_INT, .arg = "S", .lo = 0, .hi = 2147483647,
               .help = "the audit sample's seed (default: from the clock; printed)"},
  [CK_VERBOSE] = {.name = "verbose", .short_name = 'V', .value = CMD_FLAG,
                  .help = "print the compiler log of failures, spills and ptxas warnings"},
  /* "variant<TAB>preset" lines, for the GPU tests that run every shipped preset */
  [CK_LIST_PRESETS] = {.name = "list-presets", .value = CMD_FLAG,
                       .help = "print every variant's presets and exit", .flags = CMD_OPT_HIDDEN},
  [CK_KERNELS] = CMD_OPTION_KERNELS,
};

#if BENCHTOP_GPU
static int CheckKernels_archCc(const char *arch) {
  int cc = 0;
  if (sscanf(arch, "sm_%d", &cc) != 1 || cc < 50 || cc > 200) return -1;
  return cc;
}

/* --shard I/N: builds are numbered in the order they come; this run makes those whose number
 * is I-1 modulo N (all when N is 1). */
static struct { long next; int index, count; } ck_shard = {0, 0, 1};

/* --recorded / --record: the record read (from), the one written (to), the audit. */
static struct {
  CheckRecord *from, *to;
  uint64_t seed;
  int every, taken, audited, unrecorded;
  bool only_recorded, same_nvrtc; /* same_nvrtc: the record has lines of this NVRTC */
  char nvrtc[48];
} ck_rec;

/* The record's key of this build; false (nothing recorded or looked up) when it has none. The
 * source hash is taken once per variant, not once per build (hashing was most of a run that
 * took every build from the record). */
static bool CheckKernels_key(const Variant *v, const char *knobs, int D, ShapeDtype dtype,
                             const char *arch, char *key, size_t size) {
  static const Variant *hashed;
  static char hash[20];
  static bool has_hash;
  if (v != hashed) {
    hashed = v;
    has_hash = Jit_sourceHash(v, hash, sizeof hash);
  }
  if (!has_hash) return false;
  return CheckRecord_key(v->name, knobs, D, dtype == SHAPE_BF16 ? "bf16" : "fp16", arch, hash,
                         ck_rec.nvrtc, key, size);
}

/* A build the record holds and the audit passes over: taken from it (true). */
static bool CheckKernels_takeRecorded(const char *key, const BuildInfo **recorded) {
  *recorded = ck_rec.from && key[0] ? CheckRecord_find(ck_rec.from, key) : NULL;
  if (!*recorded) {
    ck_rec.unrecorded += ck_rec.from != NULL;
    return false;
  }
  if (CheckRecord_audits(key, ck_rec.seed, ck_rec.every)) {
    ck_rec.audited++;
    return false;
  }
  ck_rec.taken++;
  if (ck_rec.to) CheckRecord_add(ck_rec.to, key, *recorded);
  return true;
}

/* An audited build against its record: "" when they agree, else what differs. */
static void CheckKernels_auditDiff(const BuildInfo *rec, const BuildInfo *now, char *diff, size_t size) {
  diff[0] = '\0';
  if (rec->regs != now->regs || rec->smem_static != now->smem_static || rec->stack_bytes != now->stack_bytes)
    snprintf(diff, size, "  FAIL differs from the record (regs %d, smem %d, stack %d recorded)",
             rec->regs, rec->smem_static, rec->stack_bytes);
}

/* One variant x preset x D x dtype x arch; returns false on a failure (already printed). */
static bool CheckKernels_build(const Variant *v, const char *preset, int D, ShapeDtype dtype,
                               const char *arch_list_item, bool verbose, int *nskipped) {
  int cc = CheckKernels_archCc(arch_list_item);
  char dl[24]; /* "D=64", "D=64:bf16" */
  snprintf(dl, sizeof dl, "D=%d%s", D, dtype == SHAPE_BF16 ? ":bf16" : "");
  char knobs_txt[KNOB_TEXT_MAX];
  KnobValues kv;
  char err[512];
  Registry_defaults(v, &kv);
  if (!Registry_applyKnobs(v, preset, &kv, false, err, sizeof err)) {
    printf("%-9s %-40s %-5s %-7s FAIL preset: %s\n", v->name, preset, dl, arch_list_item, err);
    return false;
  }
  Registry_formatKnobs(v, &kv, knobs_txt, sizeof knobs_txt);
  if (!knobs_txt[0]) Util_strlcpy(knobs_txt, "-", sizeof knobs_txt);
  if (cc < v->min_cc || (v->arch_specific && cc != 90)) {
    printf("%-9s %-40s %-5s %-7s skipped (needs %s%d)\n", v->name, knobs_txt, dl, arch_list_item,
           v->arch_specific ? "sm_" : "sm_", v->min_cc);
    if (v->arch_specific) printf("%*s(sm_90a-only variant)\n", 10, "");
    (*nskipped)++;
    return true;
  }
  char arch[16];
  Jit_archFor(cc, v->arch_specific, arch, sizeof arch);
  /* A preset may be meant for one head dimension only: the variant says so, nothing to build. */
  Shape probe = {.B = 1, .H = 1, .S = 128, .D = D, .causal = false, .dtype = dtype};
  char why[400];
  /* A decode kernel refuses 128 queries: ask it with one query against 128 keys. */
  Shape one_query = probe;
  one_query.S = 1;
  one_query.Skv = 128;
  if (Registry_refusal(v, &probe, &kv, NULL, why, sizeof why) &&
      (!v->kv_cache || Registry_refusal(v, &one_query, &kv, NULL, why, sizeof why))) {
    printf("%-9s %-40s %-5s %-7s n/a: %s\n", v->name, knobs_txt, dl, arch, why);
    (*nskipped)++;
    return true;
  }
  bool has_kernel = false; /* a variant of engine hooks only (cudnn) has nothing to build */
  for (int i = 0; i < v->nsteps; i++) has_kernel |= v->steps[i].hook == HOOK_NONE;
  if (!has_kernel) {
    printf("%-9s %-40s %-5s %-7s n/a: no kernel to build (its steps are engine hooks)\n", v->name,
           knobs_txt, dl, arch);
    (*nskipped)++;
    return true;
  }
  char key[1024] = "";
  const BuildInfo *recorded = NULL;
  if ((ck_rec.from || ck_rec.to) && !CheckKernels_key(v, knobs_txt, D, dtype, arch, key, sizeof key))
    key[0] = '\0';
  if (CheckKernels_takeRecorded(key, &recorded)) return true;
  if (!recorded && ck_rec.only_recorded && ck_rec.same_nvrtc) {
    printf("%-9s %-40s %-5s %-7s FAIL not in the record (a kernel changed: tools/dev.sh sweep)\n",
           v->name, knobs_txt, dl, arch);
    return false;
  }
  JitOutput out;
  bool ok = Jit_compileVariantFor(v, &kv, D, dtype, arch, false, &out, err, sizeof err);
  if (!ok) {
    printf("%-9s %-40s %-5s %-7s FAIL %s\n", v->name, knobs_txt, dl, arch, err);
    if (out.log && verbose) printf("%s\n", out.log);
    Jit_free(&out);
    return false;
  }
  const BuildInfo *b = &out.build;
  if (b->regs < 0) {
    printf("%-9s %-40s %-5s %-7s FAIL no kernel '%s' in the ptxas report\n", v->name, knobs_txt,
           dl, arch, Jit_mainEntry(v));
    Jit_free(&out);
    return false;
  }
  bool spills = b->spill_stores > 0 || b->spill_loads > 0;
  char diff[160] = "";
  if (recorded) CheckKernels_auditDiff(recorded, b, diff, sizeof diff);
  printf("%-9s %-40s %-5s %-7s regs %3d  smem %6d  stack %4d  spill %d/%d  %6.0f ms%s%s%s%s\n",
         v->name, knobs_txt, dl, arch, b->regs, b->smem_static, b->stack_bytes, b->spill_stores,
         b->spill_loads, b->compile_ms, spills ? "  FAIL spills" : "",
         out.ptxas_warning ? "  FAIL ptxas warning" : "", recorded && !diff[0] ? "  audit: as recorded" : "",
         diff);
  if ((spills || out.ptxas_warning) && verbose) printf("%s\n", out.log);
  ok = !spills && !out.ptxas_warning && !diff[0];
  if (ok && ck_rec.to && key[0]) CheckRecord_add(ck_rec.to, key, b);
  Jit_free(&out);
  return ok;
}

/* One variant x preset x D x arch, for every dtype it declares; *attempted counts the builds. */
static bool CheckKernels_one(const Variant *v, const char *preset, int D, const char *arch_list_item,
                             bool verbose, int *attempted, int *nskipped) {
  bool ok = true;
  for (int dt = SHAPE_FP16; dt <= SHAPE_BF16; dt++)
    if (v->dtypes & (1u << dt)) {
      if (ck_shard.next++ % ck_shard.count != ck_shard.index) continue; /* another shard's */
      ok &= CheckKernels_build(v, preset, D, (ShapeDtype)dt, arch_list_item, verbose, nskipped);
      (*attempted)++;
    }
  return ok;
}

/* Every knob combination of a variant (an odometer over the value lists); settings the
 * variant's check refuses print as n/a, the rest must compile like a preset. A variant with
 * no knobs has one setting. */
static int CheckKernels_allKnobs(const Variant *v, const char *arch, bool verbose, int *compiled,
                                 int *nskipped) {
  int nvals[KNOB_MAX], failures = 0;
  KnobValues kv;
  for (int k = 0; k < v->nknobs; k++) {
    nvals[k] = Registry_knobValueCount(&v->knobs[k]);
    kv.idx[k] = 0;
  }
  for (;;) {
    char knobs_txt[KNOB_TEXT_MAX];
    Registry_formatKnobs(v, &kv, knobs_txt, sizeof knobs_txt);
    for (int d = 0; d < VARIANT_MAX_HEAD_DIMS && v->head_dims[d]; d++) {
      failures += !CheckKernels_one(v, knobs_txt, v->head_dims[d], arch, verbose, compiled, nskipped);
    }
    int k = 0;
    while (k < v->nknobs && ++kv.idx[k] == nvals[k]) kv.idx[k++] = 0;
    if (k == v->nknobs) return failures;
  }
}

/* --recorded, --record, --audit, --seed into ck_rec; BT_EXIT_OK or a usage or load error. */
static int CheckKernels_openRecords(const CommandArgs *a, bool all_knobs) {
  const char *from = CommandArgs_text(a, CK_RECORDED, NULL), *to = CommandArgs_text(a, CK_RECORD, NULL);
  if ((from || to) && !all_knobs)
    return Command_usageError(&Cmd_checkKernels, "--record and --recorded go with --all-knobs");
  if (!from && (CommandArgs_has(a, CK_AUDIT) || CommandArgs_has(a, CK_SEED) ||
                CommandArgs_has(a, CK_ONLY_RECORDED)))
    return Command_usageError(&Cmd_checkKernels, "--audit, --seed and --only-recorded go with --recorded");
  ck_rec.only_recorded = CommandArgs_has(a, CK_ONLY_RECORDED);
  Jit_nvrtcIdentity(ck_rec.nvrtc, sizeof ck_rec.nvrtc);
  ck_rec.every = (int)CommandArgs_int(a, CK_AUDIT, 10);
  ck_rec.seed = CommandArgs_has(a, CK_SEED) ? (uint64_t)CommandArgs_int(a, CK_SEED, 0)
                                            : (uint64_t)Util_nowMs() % 1000000007u;
  if (from) {
    char err[512];
    if (!(ck_rec.from = CheckRecord_load(from, err, sizeof err))) {
      fprintf(stderr, "benchtop check-kernels: %s\n", err);
      return BT_EXIT_USAGE;
    }
    /* Another compiler's record says nothing of this one's builds: all are compiled, none fails
     * for being absent. */
    ck_rec.same_nvrtc = CheckRecord_hasNvrtc(ck_rec.from, ck_rec.nvrtc);
    if (!ck_rec.same_nvrtc)
      printf("check-kernels: %s holds no build of %s: every build is compiled\n", from, ck_rec.nvrtc);
  }
  if (to) ck_rec.to = CheckRecord_new();
  return BT_EXIT_OK;
}

/* The record of this run at path, unless a build failed (then nothing is written). */
static bool CheckKernels_writeRecord(const char *path, bool failed) {
  if (failed) {
    fprintf(stderr, "benchtop check-kernels: %s not written: a build failed\n", path);
    return false;
  }
  char err[512];
  if (!CheckRecord_write(ck_rec.to, path, err, sizeof err)) {
    fprintf(stderr, "benchtop check-kernels: %s not written: %s\n", path, err);
    return false;
  }
  printf("check-kernels: %d builds recorded in %s\n", CheckRecord_count(ck_rec.to), path);
  return true;
}

static int CheckKernels_exec(const CommandArgs *a) {
  Command_kernelDirs(a, CK_KERNELS);
  if (CommandArgs_has(a, CK_LIST_PRESETS)) {
    for (int i = 0; i < Registry_count(); i++)
      for (int p = 0; p < Registry_at(i)->npresets; p++)
        printf("%s\t%s\n", Registry_at(i)->name, Registry_at(i)->presets[p]);
    return BT_EXIT_OK;
  }
  const char *archs = CommandArgs_text(a, CK_ARCH, "sm_80,sm_89,sm_90");
  const char *only = CommandArgs_text(a, CK_VARIANT, NULL);
  bool verbose = CommandArgs_has(a, CK_VERBOSE), all_knobs = CommandArgs_has(a, CK_ALL_KNOBS);
  if (only && !Registry_find(only))
    return Command_usageError(&Cmd_checkKernels, "unknown variant '%s' (benchtop list variants)", only);
  const char *shard = CommandArgs_text(a, CK_SHARD, NULL);
  if (shard) {
    int i = 0, n = 0;
    char end = 0;
    if (sscanf(shard, "%d/%d%c", &i, &n, &end) != 2 || n < 1 || n > 64 || i < 1 || i > n)
      return Command_usageError(&Cmd_checkKernels, "--shard takes I/N with 1 <= I <= N <= 64, not '%s'", shard);
    ck_shard.index = i - 1;
    ck_shard.count = n;
  }
  int rc = CheckKernels_openRecords(a, all_knobs);
  if (rc != BT_EXIT_OK) return rc;
  char *list = Util_xstrdup(archs);
  char *save = NULL;
  int failures = 0, compiled = 0, skipped = 0;
  for (char *arch = strtok_r(list, ",", &save); arch; arch = strtok_r(NULL, ",", &save)) {
    if (CheckKernels_archCc(arch) < 0) {
      Command_usageError(&Cmd_checkKernels, "bad architecture '%s' (expected e.g. sm_89)", arch);
      free(list);
      return BT_EXIT_USAGE;
    }
    for (int i = 0; i < Registry_count(); i++) {
      const Variant *v = Registry_at(i);
      if (only && strcmp(only, v->name) != 0) continue;
      if (all_knobs) {
        failures += CheckKernels_allKnobs(v, arch, verbose, &compiled, &skipped);
        continue;
      }
      for (int p = 0; p < v->npresets; p++)
        for (int d = 0; d < VARIANT_MAX_HEAD_DIMS && v->head_dims[d]; d++) {
          failures += !CheckKernels_one(v, v->presets[p], v->head_dims[d], arch, verbose, &compiled,
                                        &skipped);
        }
    }
  }
  free(list);
  /* A kernel file on the path that declares nothing usable fails the check too (its line is
   * on stderr, from the loader). */
  int broken = Registry_errorCount();
  if (broken) printf("check-kernels: %d kernel file%s on the kernel path not loaded (see above)\n",
                     broken, broken == 1 ? "" : "s");
  compiled -= skipped + ck_rec.taken;
  if (ck_rec.from)
    printf("check-kernels: %d taken from the record (its audit: %d compiled again, seed %llu), %d "
           "not in it\n", ck_rec.taken, ck_rec.audited, (unsigned long long)ck_rec.seed, ck_rec.unrecorded);
  printf("check-kernels: %d builds, %d skipped, %d failed\n", compiled, skipped, failures);
  bool failed = failures || broken;
  if (ck_rec.to) failed |= !CheckKernels_writeRecord(CommandArgs_text(a, CK_RECORD, NULL), failed);
  CheckRecord_free(ck_rec.from);
  CheckRecord_free(ck_rec.to);
  return failed ? BT_EXIT_FAILED : BT_EXIT_OK;
}

#endif

const Command Cmd_checkKernels = {
  .name = "check-kernels",
  .summary = "compile every variant's presets with NVRTC (no GPU) and print regs/smem/spills",
  .description = "Compiles every variant at every shipped knob preset (with --all-knobs, every "
                 "setting its check accepts) and head dimension, for each architecture, with "
                 "NVRTC, and prints registers, shared memory, stack and spills. Fails on a "
                 "compile error, a ptxas warning or a spill. Needs no GPU.",
  .options = ck_options, .noptions = CK_NOPTS,
  .exec = CMD_GPU_BUILD_EXEC(CheckKernels_exec),
};
