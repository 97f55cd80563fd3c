#include "common/datadir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

#ifndef BENCHTOP_DATA_FROM_BIN
#error "BENCHTOP_DATA_FROM_BIN (the data folder relative to the binary's) comes from meson.build"
#endif

static const struct {
  const char *installed, *source;
} DataDir_names[] = {
  [DATA_THEMES] = {"themes", "themes"},
  [DATA_EXAMPLES] = {"examples", "sessions/examples"},
  [DATA_TUNED] = {"tuned", "kernels/tuned"},
  [DATA_GRIDS] = {"grids", "kernels/grids"},
};

static bool DataDir_isDir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The folder of the running binary (symbolic links resolved). */
static bool DataDir_binDir(char *buf, size_t size) {
  ssize_t n = readlink("/proc/self/exe", buf, size - 1);
  if (n <= 0 || (size_t)n >= size - 1) return false;
  buf[n] = '\0';
  char *slash = strrchr(buf, '/');
  if (!slash) return false;
  *slash = '\0';
  return true;
}

bool DataDir_find(DataKind kind, char *buf, size_t size) {
  char bin[4096], path[8192];
  if (!DataDir_binDir(bin, sizeof bin)) return false;
  snprintf(path, sizeof path, "%s/%s/%s", bin, BENCHTOP_DATA_FROM_BIN, DataDir_names[kind].installed);
  if (DataDir_isDir(path)) return Util_strlcpy(buf, path, size) < size;
  /* A build tree: the marker names the source tree (one line). */
  snprintf(path, sizeof path, "%s/benchtop-source-root", bin);
  char *root = Util_readFile(path, NULL, 4096);
  if (!root) return false;
  root[strcspn(root, "\n")] = '\0';
  snprintf(path, sizeof path, "%s/%s", root, DataDir_names[kind].source);
  free(root);
  if (DataDir_isDir(path)) return Util_strlcpy(buf, path, size) < size;
  return false;
}
