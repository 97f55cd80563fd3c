#include "kernels/jit_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/safe_file.h"
#include "common/util.h"
#include "kernels/embedded.h"
#include "kernels/jit.h"

#define JIT_SOURCE_MAX (16u << 20) /* a larger kernel source is refused, not read */

const char *const Jit_headerNames[JIT_HEADERS] = {"attn_params.h", "common.cuh", "sm80.cuh",
                                                  "hopper.cuh", "fa3_tile.cuh", "fa3_consumer.cuh",
                                                  "mma_phases.cuh"};

char *Jit_loadSource(const char *name, char *err, size_t errsize) {
  /* Files are read through SafeFile_read: a FIFO or a directory is an error, never a hang. */
  const char *dir = getenv("BENCHTOP_KERNEL_DIR");
  if (dir && *dir) {
    /* The user edits kernels there: what cannot be read is an error, not the built-in copy
     * quietly benchmarked instead. A file the directory does not hold is the built-in one. */
    struct stat st;
    bool found = stat(dir, &st) == 0;
    if (!found || !S_ISDIR(st.st_mode)) {
      snprintf(err, errsize, "BENCHTOP_KERNEL_DIR=%s: %s", dir, found ? "not a directory" : strerror(errno));
      return NULL;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (lstat(path, &st) == 0) return SafeFile_read(path, JIT_SOURCE_MAX, NULL, err, errsize);
  }
  for (int i = 0; i < Embedded_count; i++)
    if (strcmp(Embedded_files[i].name, name) == 0) {
      char *s = Util_xmalloc((size_t)Embedded_files[i].length + 1);
      memcpy(s, Embedded_files[i].data, (size_t)Embedded_files[i].length);
      s[Embedded_files[i].length] = '\0';
      return s;
    }
  snprintf(err, errsize, "no kernel source %s in this build", name);
  return NULL;
}

uint64_t Jit_hashSources(const char *source, const char *const *hdr_src) {
  uint64_t h = Util_hash64(source, strlen(source), 0);
  for (int i = 0; i < JIT_HEADERS; i++) h = Util_hash64(hdr_src[i], strlen(hdr_src[i]), h);
  return h;
}

bool Jit_sourceHash(const Variant *v, char *buf, size_t size) {
  if (!v || !v->text) return false;
  const char *src = v->text; /* what the JIT compiles: the text the variant was loaded from */
  char err[512];
  const char *hdr_src[JIT_HEADERS];
  char *hdr_owned[JIT_HEADERS];
  for (int i = 0; i < JIT_HEADERS; i++) {
    hdr_owned[i] = Jit_loadSource(Jit_headerNames[i], err, sizeof err);
    hdr_src[i] = hdr_owned[i] ? hdr_owned[i] : "";
  }
  snprintf(buf, size, "%016llx", (unsigned long long)Jit_hashSources(src, hdr_src));
  for (int i = 0; i < JIT_HEADERS; i++) free(hdr_owned[i]);
  return true;
}

void Jit_archFor(int cc, bool arch_specific, char *buf, size_t size) {
  snprintf(buf, size, "sm_%d%s", cc, arch_specific ? "a" : "");
}
