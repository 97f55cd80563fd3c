#include "kernels/jit.h"

#include <errno.h>
#include <math.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/safe_file.h"
#include "common/util.h"
#include "kernels/jit_source.h"

#define JIT_MAX_OPTS 32 /* 8 fixed, a define per knob (KNOB_MAX), HEAD_DIM and BT_BF16 */


bool Jit_chooseArch(int cc, bool arch_specific, const int *supported, int nsupported, char *arch,
                    size_t archsize, char *note, size_t notesize) {
  int same_major = 0, newest = 0;
  note[0] = '\0';
  for (int i = 0; i < nsupported; i++) {
    if (supported[i] == cc) {
      Jit_archFor(cc, arch_specific, arch, archsize);
      return true;
    }
    if (supported[i] / 10 == cc / 10 && supported[i] < cc && supported[i] > same_major)
      same_major = supported[i];
    if (supported[i] > newest) newest = supported[i];
  }
  int vmaj = 0, vmin = 0;
  Jit_nvrtcVersion(&vmaj, &vmin);
  if (arch_specific) {
    snprintf(note, notesize, "NVRTC %d.%d cannot compile for sm_%da (it knows up to sm_%d)", vmaj,
             vmin, cc, newest);
    return false;
  }
  if (same_major) {
    snprintf(arch, archsize, "sm_%d", same_major);
    snprintf(note, notesize, "NVRTC %d.%d knows no sm_%d: compiled for sm_%d, which runs there",
             vmaj, vmin, cc, same_major);
    return true;
  }
  if (newest > cc || newest == 0) {
    snprintf(note, notesize, "NVRTC %d.%d cannot compile for sm_%d (it knows sm_%d and newer)",
             vmaj, vmin, cc, nsupported ? supported[0] : 0);
    return false;
  }
  snprintf(arch, archsize, "compute_%d", newest);
  snprintf(note, notesize, "NVRTC %d.%d knows no sm_%d: compiled PTX for compute_%d, which the "
           "driver compiles for this GPU (a newer toolkit gives a native cubin)", vmaj, vmin, cc,
           newest);
  return true;
}

bool Jit_targetFor(int cc, bool arch_specific, char *arch, size_t archsize, char *note,
                   size_t notesize) {
  int n = 0, archs[64];
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 64 ||
      nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS) {
    /* Nothing to choose from: ask for the device's own and let NVRTC say if it cannot. */
    Jit_archFor(cc, arch_specific, arch, archsize);
    note[0] = '\0';
    return true;
  }
  /* BENCHTOP_SIMULATE_OLD_NVRTC=1: an NVRTC that knows nothing of this GPU's major version
   * (the PTX path, provable on any GPU: tests/gpu/gpu_compat.sh). */
  const char *old = getenv("BENCHTOP_SIMULATE_OLD_NVRTC");
  if (old && strcmp(old, "1") == 0)
    while (n > 0 && archs[n - 1] / 10 >= cc / 10) n--;
  return Jit_chooseArch(cc, arch_specific, archs, n, arch, archsize, note, notesize);
}

void Jit_nvrtcVersion(int *major, int *minor) {
  if (nvrtcVersion(major, minor) != NVRTC_SUCCESS) *major = *minor = -1;
}

static const char *Jit_cudaInclude(void) {
  static char buf[4096];
  const char *env = getenv("BENCHTOP_CUDA_INCLUDE");
  if (env && *env) return env;
  const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH")};
  struct stat st;
  for (int i = 0; i < 2; i++) {
    if (!roots[i] || !*roots[i]) continue;
    snprintf(buf, sizeof buf, "%s/include/cuda_fp16.h", roots[i]);
    if (stat(buf, &st) == 0) {
      snprintf(buf, sizeof buf, "%s/include", roots[i]);
      return buf;
    }
  }
  snprintf(buf, sizeof buf, "%s/cuda_fp16.h", BENCHTOP_CUDA_INCLUDE);
  if (stat(buf, &st) == 0) return BENCHTOP_CUDA_INCLUDE;
  return "/usr/local/cuda/include";
}

/* ptxas -v prints, per entry:
 *   ptxas info    : Function properties for attn_fwd
 *   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 8 registers, used 0 barriers, 368 bytes cmem[0]   (+ "N bytes smem") */
void Jit_parsePtxasLog(const char *log, const char *entry, BuildInfo *b) {
  char key[256];
  snprintf(key, sizeof key, "Function properties for %s\n", entry);
  const char *p = strstr(log, key);
  if (!p) return;
  p += strlen(key);
  int stack = -1, st = -1, ld = -1;
  if (sscanf(p, "ptxas . %d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
             &stack, &st, &ld) == 3 ||
      sscanf(p, "ptxas         .     %d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
             &stack, &st, &ld) == 3) {
    b->stack_bytes = stack;
    b->spill_stores = st;
    b->spill_loads = ld;
  }
  const char *used = strstr(p, "Used ");
  const char *next = strstr(p, "Function properties for ");
  if (used && (!next || used < next)) {
    int regs;
    if (sscanf(used, "Used %d registers", &regs) == 1) b->regs = regs;
    const char *eol = strchr(used, '\n');
    const char *sm = strstr(used, "bytes smem");
    if (sm && (!eol || sm < eol)) {
      const char *q = sm;
      while (q > used && q[-1] == ' ') q--;
      while (q > used && q[-1] >= '0' && q[-1] <= '9') q--;
      b->smem_static = atoi(q);
    } else {
      b->smem_static = 0;
    }
  }
}

void Jit_firstError(const char *log, char *line, size_t size) {
  line[0] = '\0';
  const char *first = strstr(log, ": error");
  if (!first) first = strstr(log, "error");
  if (!first || size < 2) return;
  const char *start = first;
  while (start > log && start[-1] != '\n') start--;
  size_t len = strcspn(start, "\n"), o = 0;
  /* NVRTC says "mine.cu(42): error: ..."; editors and the declaration errors say "mine.cu:42:". */
  const char *paren = memchr(start, '(', len);
  if (paren && paren < first) {
    const char *close = paren + 1;
    while (close < first && *close >= '0' && *close <= '9') close++;
    if (close > paren + 1 && *close == ')' && close + 1 == first) {
      int n = snprintf(line, size, "%.*s:%.*s", (int)(paren - start), start,
                       (int)(close - paren - 1), paren + 1);
      o = n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
      len -= (size_t)(close + 1 - start);
      start = close + 1;
    }
  }
  for (size_t i = 0; i < len && o + 1 < size; i++) {
    unsigned char c = (unsigned char)start[i];
    line[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c; /* never a control byte on a terminal */
  }
  line[o] = '\0';
}

/* Worst spill over every entry in the log (a spill anywhere is a spill). */
static void Jit_worstSpills(const char *log, BuildInfo *b) {
  const char *p = log;
  while ((p = strstr(p, "bytes stack frame, ")) != NULL) {
    int st = 0, ld = 0;
    if (sscanf(p, "bytes stack frame, %d bytes spill stores, %d bytes spill loads", &st, &ld) == 2) {
      if (st > b->spill_stores) b->spill_stores = st;
      if (ld > b->spill_loads) b->spill_loads = ld;
    }
    p++;
  }
}

static void Jit_initBuild(BuildInfo *b) {
  b->regs = b->smem_static = b->smem_dynamic = b->stack_bytes = -1;
  b->spill_stores = b->spill_loads = -1;
  b->compile_ms = NAN;
  b->cache_hit = false;
  b->source_hash[0] = b->arch[0] = b->source_path[0] = '\0';
}

static bool Jit_cachePaths(uint64_t key, char *cubin, char *info, size_t size) {
  char dir[4096];
  if (!Util_cacheDir(dir, sizeof dir)) return false; /* no home: no cache */
  snprintf(cubin, size, "%s/jit/%016llx.cubin", dir, (unsigned long long)key);
  snprintf(info, size, "%s/jit/%016llx.log", dir, (unsigned long long)key);
  return true;
}

/* A cubin's log holds ptxas' resource report; one without it (NVRTC's own cache served the
 * build, so ptxas never ran) would leave the build's spills unknown. PTX has no report. */
static bool Jit_logComplete(const char *log, bool ptx_only) {
  return ptx_only || strstr(log, "bytes stack frame, ") != NULL;
}

static bool Jit_cacheLoad(uint64_t key, bool ptx_only, JitOutput *out) {
  char cpath[4200], lpath[4200];
  if (!Jit_cachePaths(key, cpath, lpath, sizeof cpath)) return false;
  size_t n = 0;
  char *cubin = Util_readFile(cpath, &n, 256u << 20);
  if (!cubin) return false;
  char *log = Util_readFile(lpath, NULL, 16u << 20);
  if (!log || !Jit_logComplete(log, ptx_only)) { /* compiled again, and stored with its report */
    free(log);
    free(cubin);
    return false;
  }
  out->cubin = cubin;
  out->cubin_size = n;
  out->log = log;
  return true;
}

static void Jit_cacheStore(uint64_t key, bool ptx_only, const JitOutput *out) {
  char cpath[4200], lpath[4200], dir[4096], err[256];
  if (!Jit_logComplete(out->log, ptx_only)) return;
  if (!Util_cacheDir(dir, sizeof dir) || !Jit_cachePaths(key, cpath, lpath, sizeof cpath)) return;
  strncat(dir, "/jit", sizeof dir - strlen(dir) - 1);
  if (!Util_mkdirs(dir)) return; /* the cache is an optimisation: a read-only home still works */
  /* The log first: a cubin without its log is never read back as a hit. */
  if (Util_writeFileAtomic(lpath, out->log, strlen(out->log), err, sizeof err))
    Util_writeFileAtomic(cpath, out->cubin, out->cubin_size, err, sizeof err);
}

/* NVRTC's compile of source with the shared headers and opts: the log, the PTX and the cubin
 * (PTX again when ptx_only) in out; false with one line in err. */
static bool Jit_nvrtcBuild(const char *name, const char *source, const char *const *hdr_src,
                           const char *const *opts, int nopt, const char *arch, bool ptx_only,
                           JitOutput *out, char *err, size_t errsize) {
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, source, name, JIT_HEADERS, hdr_src, Jit_headerNames);
  if (r != NVRTC_SUCCESS) {
    snprintf(err, errsize, "NVRTC could not create a program for %s: %s", name,
             nvrtcGetErrorString(r));
    return false;
  }
  r = nvrtcCompileProgram(prog, nopt, opts);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  out->log = Util_xmalloc(log_size + 1);
  out->log[0] = '\0';
  if (log_size) nvrtcGetProgramLog(prog, out->log);
  if (r != NVRTC_SUCCESS) {
    char line[240];
    Jit_firstError(out->log, line, sizeof line);
    snprintf(err, errsize, "%s failed to compile for %s: %s", name, arch,
             line[0] ? line : nvrtcGetErrorString(r));
    nvrtcDestroyProgram(&prog);
    return false;
  }
  size_t ptx_size = 0; /* kept for tools that compare builds; the engine loads the image */
  if (nvrtcGetPTXSize(prog, &ptx_size) == NVRTC_SUCCESS && ptx_size > 0) {
    out->ptx = Util_xmalloc(ptx_size);
    if (nvrtcGetPTX(prog, out->ptx) != NVRTC_SUCCESS) {
      free(out->ptx);
      out->ptx = NULL;
    }
  }
  if (ptx_only) { /* PTX for the driver to compile */
    r = nvrtcGetPTXSize(prog, &out->cubin_size);
    if (r == NVRTC_SUCCESS) {
      out->cubin = Util_xmalloc(out->cubin_size);
      r = nvrtcGetPTX(prog, out->cubin);
    }
  } else {
    r = nvrtcGetCUBINSize(prog, &out->cubin_size);
    if (r == NVRTC_SUCCESS) {
      out->cubin = Util_xmalloc(out->cubin_size);
      r = nvrtcGetCUBIN(prog, out->cubin);
    }
  }
  nvrtcDestroyProgram(&prog);
  if (r != NVRTC_SUCCESS) {
    snprintf(err, errsize, "NVRTC produced no cubin for %s (%s): %s", name, arch,
             nvrtcGetErrorString(r));
    return false;
  }
  return true;
}

/* The compile options: the target, the toolkit's headers, the fixed flags and one -D per
 * define; the ones owned (to free) in owned, NULL for the others. Returns their count. */
static int Jit_options(const char *arch, bool ptx_only, const char *const *defines, int ndefines,
                       const char **opts, char **owned) {
  int nopt = 0;
  owned[nopt] = Util_asprintf("--gpu-architecture=%s", arch);
  opts[nopt] = owned[nopt]; nopt++;
  owned[nopt] = Util_asprintf("-I%s", Jit_cudaInclude());
  opts[nopt] = owned[nopt]; nopt++;
  const char *fixed[] = {"-std=c++17", "--ptxas-options=-v", "-lineinfo", "--restrict",
                         "-default-device"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
    if (ptx_only && strncmp(fixed[i], "--ptxas", 7) == 0) continue;
    owned[nopt] = NULL;
    opts[nopt++] = fixed[i];
  }
  /* NVRTC 12.9 and newer keep a cache of their own (under $HOME, where a driver is installed);
   * a build served from it carries no ptxas report, so no spill counts. Ours keeps the log. */
  int vmaj = 0, vmin = 0;
  Jit_nvrtcVersion(&vmaj, &vmin);
  if (vmaj > 12 || (vmaj == 12 && vmin >= 9)) {
    owned[nopt] = NULL;
    opts[nopt++] = "--no-cache";
  }
  for (int i = 0; i < ndefines && nopt < JIT_MAX_OPTS; i++) {
    owned[nopt] = Util_asprintf("-D%s", defines[i]);
    opts[nopt] = owned[nopt]; nopt++;
  }
  return nopt;
}

bool Jit_compileSource(const char *name, const char *source, const char *const *defines,
                       int ndefines, const char *main_entry, const char *arch, bool use_cache,
                       JitOutput *out, char *err, size_t errsize) {
  memset(out, 0, sizeof *out);
  Jit_initBuild(&out->build);
  Util_strlcpy(out->build.arch, arch, sizeof out->build.arch);

  const char *hdr_src[JIT_HEADERS];
  char *hdr_owned[JIT_HEADERS];
  for (int i = 0; i < JIT_HEADERS; i++) {
    hdr_owned[i] = Jit_loadSource(Jit_headerNames[i], err, errsize);
    if (!hdr_owned[i]) { /* a header the user's kernel directory holds but that cannot be read */
      for (int j = 0; j < i; j++) free(hdr_owned[j]);
      return false;
    }
    hdr_src[i] = hdr_owned[i];
  }

  char *opt_owned[JIT_MAX_OPTS];
  const char *opts[JIT_MAX_OPTS];
  /* A compute_NN target stops at PTX: no ptxas runs, so no resource report to ask for. */
  bool ptx_only = strncmp(arch, "compute_", 8) == 0;
  int nopt = Jit_options(arch, ptx_only, defines, ndefines, opts, opt_owned);

  /* Cache key: source, headers, options, NVRTC version. */
  int vmaj = 0, vmin = 0;
  Jit_nvrtcVersion(&vmaj, &vmin);
  uint64_t src_hash = Jit_hashSources(source, hdr_src);
  snprintf(out->build.source_hash, sizeof out->build.source_hash, "%016llx",
           (unsigned long long)src_hash);
  uint64_t key = Util_hash64(&src_hash, sizeof src_hash, (uint64_t)(vmaj * 1000 + vmin));
  for (int i = 0; i < nopt; i++) key = Util_hash64(opts[i], strlen(opts[i]) + 1, key);

  bool ok = false;
  double t0 = Util_nowMs();
  if (use_cache && Jit_cacheLoad(key, ptx_only, out)) {
    out->build.cache_hit = true;
    ok = true;
  } else {
    if (!Jit_nvrtcBuild(name, source, hdr_src, opts, nopt, arch, ptx_only, out, err, errsize))
      goto done;
    if (use_cache) Jit_cacheStore(key, ptx_only, out);
    ok = true;
  }
  out->build.compile_ms = Util_nowMs() - t0;
  Jit_parsePtxasLog(out->log, main_entry, &out->build);
  Jit_worstSpills(out->log, &out->build);
  /* ptxas reports serialized wgmma (C7509-C7520) as "info", yet it undoes a kernel's overlap. */
  out->ptxas_warning = strstr(out->log, "warning") != NULL ||
                       strstr(out->log, "Potential Performance Loss") != NULL;
done:
  for (int i = 0; i < nopt; i++) free(opt_owned[i]);
  for (int i = 0; i < JIT_HEADERS; i++) free(hdr_owned[i]);
  return ok;
}

char *Jit_knobDefine(const Variant *v, int k, int idx) {
  const KnobDesc *kd = &v->knobs[k];
  if (idx < 0 || idx >= kd->nvalues) return NULL;
  return Util_asprintf("%s=%lld", kd->macro, kd->numbers[idx]);
}

const char *Jit_mainEntry(const Variant *v) {
  const char *main_entry = NULL;
  for (int i = 0; i < v->nsteps; i++)
    if (v->steps[i].hook == HOOK_NONE) main_entry = v->steps[i].entry;
  for (int i = 0; i < v->nsteps; i++)
    if (v->steps[i].hook == HOOK_NONE && strcmp(v->steps[i].entry, "attn_fwd") == 0)
      main_entry = v->steps[i].entry;
  return main_entry ? main_entry : "attn_fwd";
}

bool Jit_compileVariant(const Variant *v, const KnobValues *kv, int head_dim, const char *arch,
                        bool use_cache, JitOutput *out, char *err, size_t errsize) {
  return Jit_compileVariantFor(v, kv, head_dim, SHAPE_FP16, arch, use_cache, out, err, errsize);
}

bool Jit_compileVariantFor(const Variant *v, const KnobValues *kv, int head_dim, ShapeDtype dtype,
                           const char *arch, bool use_cache, JitOutput *out, char *err,
                           size_t errsize) {
  char *defs[KNOB_MAX + 3];
  int nd = 0;
  defs[nd++] = Util_asprintf("HEAD_DIM=%d", head_dim);
  /* Only bf16 adds a define: an fp16 build's options, and so its cache key, stay as they were. */
  if (dtype == SHAPE_BF16) defs[nd++] = Util_asprintf("BT_BF16=1");
  for (int i = 0; i < v->nknobs; i++) {
    defs[nd] = Jit_knobDefine(v, i, kv->idx[i]);
    if (!defs[nd]) {
      snprintf(err, errsize, "variant %s: knob %s=%s has no macro value", v->name, v->knobs[i].name,
               v->knobs[i].values[kv->idx[i]]);
      for (int d = 0; d < nd; d++) free(defs[d]);
      memset(out, 0, sizeof *out);
      Jit_initBuild(&out->build);
      return false;
    }
    nd++;
  }
  /* Resources are reported for the attention kernel itself, not a quantize or combine step. */
  const char *main_entry = Jit_mainEntry(v);
  /* The file name, not its directory, names the program: NVRTC's messages say "mine.cu(42)". */
  const char *base = strrchr(v->source, '/');
  bool ok = Jit_compileSource(base ? base + 1 : v->source, v->text, (const char *const *)defs, nd,
                              main_entry, arch, use_cache, out, err, errsize);
  Util_strlcpy(out->build.source_path, v->path ? v->path : v->source, sizeof out->build.source_path);
  for (int i = 0; i < nd; i++) free(defs[i]);
  return ok;
}

void Jit_free(JitOutput *out) {
  free(out->cubin);
  free(out->ptx);
  free(out->log);
  memset(out, 0, sizeof *out);
}
