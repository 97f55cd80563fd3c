/* The worker's compile path (Jit_compileVariantFor through the on-disk JIT cache), without a
 * GPU: every build it hands back carries ptxas' spill counts, also when the cache holds a log
 * without the resource report, as it did after NVRTC served a build from its own cache (CUDA
 * 12.9 and newer, where a driver is installed): those records had spills -1, "unknown". */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/jit.h"
#include "kernels/registry.h"
#include "tests/unit/check.h"

/* The worker's build of naive at D=64, fp16, its default knobs, for an H100. */
static bool JitCacheLog_build(JitOutput *out) {
  const Variant *v = Registry_find("naive");
  CHECK(v != NULL);
  if (!v) return false;
  KnobValues kv;
  Registry_defaults(v, &kv);
  char err[512] = "";
  bool ok = Jit_compileVariantFor(v, &kv, 64, SHAPE_FP16, "sm_90", true, out, err, sizeof err);
  if (!ok) fprintf(stderr, "naive: %s\n", err);
  CHECK(ok);
  return ok;
}

/* Every cached log in dir replaced by text; how many there were. */
static int JitCacheLog_replaceLogs(const char *dir, const char *text) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".log") != 0) continue;
    char path[4200], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (Util_writeFileAtomic(path, text, strlen(text), err, sizeof err)) n++;
  }
  closedir(d);
  return n;
}

/* Whether every cached log in dir holds the resource report. */
static bool JitCacheLog_logsComplete(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return false;
  bool all = true;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".log") != 0) continue;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *log = Util_readFile(path, NULL, 1u << 20);
    all = all && log && strstr(log, "bytes spill stores") != NULL;
    free(log);
  }
  closedir(d);
  return all;
}

int main(void) {
  char root[] = "/tmp/benchtop-jit-cache-log.XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  setenv("XDG_CACHE_HOME", root, 1);
  char jitdir[256];
  snprintf(jitdir, sizeof jitdir, "%s/benchtop/jit", root);

  JitOutput out;
  if (JitCacheLog_build(&out)) { /* the first build: compiled, stored with its log */
    printf("compiled: regs %d, spill %d/%d\n", out.build.regs, out.build.spill_stores,
           out.build.spill_loads);
    CHECK(!out.build.cache_hit);
    CHECK(out.build.spill_stores == 0 && out.build.spill_loads == 0);
    Jit_free(&out);
  }
  /* The log NVRTC hands back when its own cache serves the build: no ptxas lines. */
  int n = JitCacheLog_replaceLogs(jitdir, "ptxas info    : 0 bytes gmem\n");
  CHECK(n == 1);
  if (JitCacheLog_build(&out)) {
    printf("after a log without the report: regs %d, spill %d/%d\n", out.build.regs,
           out.build.spill_stores, out.build.spill_loads);
    CHECK(out.build.regs > 0);
    CHECK(out.build.spill_stores == 0 && out.build.spill_loads == 0);
    Jit_free(&out);
  }
  CHECK(JitCacheLog_logsComplete(jitdir)); /* stored again, with its report */
  if (JitCacheLog_build(&out)) { /* and served from the cache with its counts */
    CHECK(out.build.cache_hit);
    CHECK(out.build.spill_stores == 0 && out.build.spill_loads == 0);
    Jit_free(&out);
  }
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
  return Check_done("jit_cache_log");
}
