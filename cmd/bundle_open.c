/* A bundle unpacked for replay (cmd/bundle.h): nothing of it is trusted until checked. */
#include "cmd/bundle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cmd/bundle_archive.h"
#include "common/safe_file.h"
#include "common/util.h"
#include "kernels/registry.h"

#define BUNDLE_MANIFEST_MAX (4u << 20)
#define BUNDLE_SOURCE_MAX (16u << 20)

static char *Bundle_readMember(const BundleOpened *b, const char *member, size_t max, char *err,
                               size_t errsize) {
  char path[4600];
  snprintf(path, sizeof path, "%s/%s", b->dir, member);
  return SafeFile_read(path, max, NULL, err, errsize);
}

static const char *Bundle_str(const cJSON *o, const char *name) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, name);
  return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* The manifest's kernels, each checked: a name the layout allows, a variant name, a hash. */
static bool Bundle_readKernels(BundleOpened *b, const cJSON *m, char *err, size_t errsize) {
  const cJSON *ks = cJSON_GetObjectItemCaseSensitive(m, "kernels");
  if (!cJSON_IsArray(ks)) {
    snprintf(err, errsize, "manifest.json has no kernels list");
    return false;
  }
  int n = cJSON_GetArraySize(ks);
  b->kernels = Util_xcalloc((size_t)n + 1, sizeof *b->kernels);
  const cJSON *k;
  cJSON_ArrayForEach(k, ks) {
    const char *variant = Bundle_str(k, "variant"), *member = Bundle_str(k, "member");
    const char *hash = Bundle_str(k, "source_hash"), *kind = Bundle_str(k, "kind");
    if (!variant || !member || !hash || !kind || !Registry_validName(variant) || strlen(hash) != 16 ||
        !BundleArchive_validName(member) || !Util_startsWith(member, "kernels/")) {
      snprintf(err, errsize, "manifest.json: kernels[%d] is malformed", b->nkernels);
      return false;
    }
    BundleKernel *bk = &b->kernels[b->nkernels++];
    Util_strlcpy(bk->variant, variant, sizeof bk->variant);
    Util_strlcpy(bk->member, member, sizeof bk->member);
    Util_strlcpy(bk->hash, hash, sizeof bk->hash);
    bk->builtin = strcmp(kind, "built-in") == 0;
    if (bk->builtin != Util_startsWith(member, "kernels/builtin/")) {
      snprintf(err, errsize, "manifest.json: kernels[%d]: kind and place disagree", b->nkernels - 1);
      return false;
    }
  }
  return true;
}

/* Every kernel's text, with the bundle's headers, must still have its recorded hash. */
static bool Bundle_checkHashes(const BundleOpened *b, char *err, size_t errsize) {
  char *hdr[JIT_HEADERS] = {0};
  bool ok = true;
  for (int h = 0; h < JIT_HEADERS && ok; h++) {
    char member[128];
    snprintf(member, sizeof member, "kernels/builtin/%s", Jit_headerNames[h]);
    hdr[h] = Bundle_readMember(b, member, BUNDLE_SOURCE_MAX, err, errsize);
    ok = hdr[h] != NULL;
  }
  for (int k = 0; k < b->nkernels && ok; k++) {
    char *text = Bundle_readMember(b, b->kernels[k].member, BUNDLE_SOURCE_MAX, err, errsize);
    if (!text) {
      ok = false;
      break;
    }
    char h[20];
    snprintf(h, sizeof h, "%016llx", (unsigned long long)Jit_hashSources(text, (const char *const *)hdr));
    free(text);
    if (strcmp(h, b->kernels[k].hash) != 0) {
      snprintf(err, errsize, "%s does not have its recorded source hash (%s, manifest %s): the bundle "
               "was altered; refused", b->kernels[k].member, h, b->kernels[k].hash);
      ok = false;
    }
  }
  for (int h = 0; h < JIT_HEADERS; h++) free(hdr[h]);
  return ok;
}

/* The kernel path of this process and its workers: the bundle's, nothing else. */
static bool Bundle_pointKernelPath(const BundleOpened *b, char *err, size_t errsize) {
  char builtin[4200], config[4200];
  snprintf(builtin, sizeof builtin, "%s/kernels/builtin", b->dir);
  snprintf(config, sizeof config, "%s/config", b->dir); /* no ~/.config/benchtop/kernels */
  if ((mkdir(config, 0700) != 0 && errno != EEXIST) || (mkdir(builtin, 0700) != 0 && errno != EEXIST)) {
    snprintf(err, errsize, "cannot make %s: %s", config, strerror(errno));
    return false;
  }
  char *path = Util_xstrdup("");
  for (int k = 0; k < b->nkernels; k++) {
    if (b->kernels[k].builtin) continue;
    const char *slash = strrchr(b->kernels[k].member, '/');
    char *next = Util_asprintf("%s%s%s/%.*s", path, path[0] ? ":" : "", b->dir,
                               (int)(slash - b->kernels[k].member), b->kernels[k].member);
    free(path);
    path = next;
  }
  bool ok = setenv("BENCHTOP_KERNEL_DIR", builtin, 1) == 0 && setenv("XDG_CONFIG_HOME", config, 1) == 0 &&
            setenv("BENCHTOP_KERNEL_PATH", path, 1) == 0 && unsetenv("BENCHTOP_EXTRA_KERNELS") == 0;
  free(path);
  if (!ok) snprintf(err, errsize, "cannot set the kernel path: %s", strerror(errno));
  return ok;
}

bool Bundle_open(const char *path, BundleOpened *b, char *err, size_t errsize) {
  memset(b, 0, sizeof *b);
  if (!BundleArchive_available(err, errsize)) return false;
  const char *tmp = getenv("TMPDIR");
  snprintf(b->dir, sizeof b->dir, "%s/benchtop-bundle-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(b->dir)) {
    snprintf(err, errsize, "cannot make a private folder %s: %s", b->dir, strerror(errno));
    b->dir[0] = '\0';
    return false;
  }
  char e2[600];
  if (!BundleArchive_extract(path, b->dir, e2, sizeof e2)) {
    snprintf(err, errsize, "%s", e2);
    return false;
  }
  char *text = Bundle_readMember(b, "manifest.json", BUNDLE_MANIFEST_MAX, e2, sizeof e2);
  cJSON *m = text ? cJSON_Parse(text) : NULL;
  free(text);
  const char *schema = m ? Bundle_str(m, "schema") : NULL;
  bool ok = schema && strcmp(schema, "benchtop.bundle/1") == 0;
  if (!ok) snprintf(err, errsize, "%s: %s", path, !m ? "no readable manifest.json" : "manifest.json is not a benchtop.bundle/1 manifest");
  ok = ok && Bundle_readKernels(b, m, err, errsize);
  if (ok) b->partial = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "partial"));
  cJSON_Delete(m);
  ok = ok && Bundle_checkHashes(b, err, errsize) && Bundle_pointKernelPath(b, err, errsize);
  snprintf(b->session_path, sizeof b->session_path, "%s/session.json", b->dir);
  return ok;
}

const char *Bundle_hashOf(const BundleOpened *b, const char *variant) {
  for (int k = 0; k < b->nkernels; k++)
    if (strcmp(b->kernels[k].variant, variant) == 0) return b->kernels[k].hash;
  return NULL;
}

void Bundle_close(BundleOpened *b) {
  if (b->dir[0]) BundleArchive_removeTree(b->dir);
  free(b->kernels);
  memset(b, 0, sizeof *b);
}
