#include "kernels/jit_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/embedded.h"
#include "kernels/jit.h"

const char *const Jit_headerNames[JIT_HEADERS] = {"attn_params.h", "common.cuh", "hopper.cuh",
                                                  "fa3_tile.cuh"};

char *Jit_loadSource(const char *name) {
  if (name[0] == '/') return Util_readFile(name, NULL, 16u << 20); /* an external kernel */
  const char *dir = getenv("BENCHTOP_KERNEL_DIR");
  if (dir && *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = Util_readFile(path, NULL, 16u << 20);
    if (text) return text;
  }
  for (int i = 0; i < Embedded_count; i++)
    if (strcmp(Embedded_files[i].name, name) == 0) {
      char *s = Util_xmalloc((size_t)Embedded_files[i].length + 1);
      memcpy(s, Embedded_files[i].data, (size_t)Embedded_files[i].length);
      s[Embedded_files[i].length] = '\0';
      return s;
    }
  return NULL;
}

uint64_t Jit_hashSources(const char *source, const char *const *hdr_src) {
  uint64_t h = Util_hash64(source, strlen(source), 0);
  for (int i = 0; i < JIT_HEADERS; i++) h = Util_hash64(hdr_src[i], strlen(hdr_src[i]), h);
  return h;
}

bool Jit_sourceHash(const Variant *v, char *buf, size_t size) {
  char *src = Jit_loadSource(v->source);
  if (!src) return false;
  const char *hdr_src[JIT_HEADERS];
  char *hdr_owned[JIT_HEADERS];
  for (int i = 0; i < JIT_HEADERS; i++) {
    hdr_owned[i] = Jit_loadSource(Jit_headerNames[i]);
    hdr_src[i] = hdr_owned[i] ? hdr_owned[i] : "";
  }
  snprintf(buf, size, "%016llx", (unsigned long long)Jit_hashSources(src, hdr_src));
  for (int i = 0; i < JIT_HEADERS; i++) free(hdr_owned[i]);
  free(src);
  return true;
}

void Jit_archFor(int cc, bool arch_specific, char *buf, size_t size) {
  snprintf(buf, size, "sm_%d%s", cc, arch_specific ? "a" : "");
}
