/* check-kernels' sweep record (cmd/check_record.h): sorted lines, looked up by binary search. */
#include "cmd/check_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/safe_file.h"
#include "common/util.h"

#define RECORD_MAX_BYTES (16u << 20)
#define RECORD_KEY_FIELDS 7
#define RECORD_HEADER "# benchtop check-kernels --all-knobs record: variant knobs D dtype arch " \
                      "source_hash nvrtc regs smem stack (tab-separated; made by tools/dev.sh sweep)\n"

typedef struct {
  char *key;
  BuildInfo b;
} RecordLine;

struct CheckRecord {
  RecordLine *lines;
  int n, cap;
};

bool CheckRecord_key(const char *variant, const char *knobs, int D, const char *dtype, const char *arch,
                     const char *source_hash, const char *nvrtc, char *key, size_t size) {
  int w = snprintf(key, size, "%s\t%s\t%d\t%s\t%s\t%s\t%s", variant, knobs, D, dtype, arch,
                   source_hash, nvrtc);
  return w > 0 && (size_t)w < size;
}

CheckRecord *CheckRecord_new(void) { return Util_xcalloc(1, sizeof(CheckRecord)); }

void CheckRecord_free(CheckRecord *r) {
  if (!r) return;
  for (int i = 0; i < r->n; i++) free(r->lines[i].key);
  free(r->lines);
  free(r);
}

void CheckRecord_add(CheckRecord *r, const char *key, const BuildInfo *b) {
  if (r->n == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 256;
    r->lines = Util_xrealloc(r->lines, (size_t)r->cap * sizeof *r->lines);
  }
  r->lines[r->n].key = Util_xstrdup(key);
  r->lines[r->n++].b = *b;
}

static int Record_cmp(const void *a, const void *b) {
  return strcmp(((const RecordLine *)a)->key, ((const RecordLine *)b)->key);
}

void CheckRecord_seal(CheckRecord *r) {
  if (r->n) qsort(r->lines, (size_t)r->n, sizeof *r->lines, Record_cmp);
}

int CheckRecord_count(const CheckRecord *r) { return r->n; }

bool CheckRecord_hasNvrtc(const CheckRecord *r, const char *nvrtc) {
  size_t len = strlen(nvrtc);
  for (int i = 0; i < r->n; i++) {
    const char *last = strrchr(r->lines[i].key, '\t'); /* the key's last field */
    if (last && strlen(last + 1) == len && memcmp(last + 1, nvrtc, len) == 0) return true;
  }
  return false;
}

const BuildInfo *CheckRecord_find(const CheckRecord *r, const char *key) {
  RecordLine probe = {.key = (char *)key};
  const RecordLine *hit = r->n ? bsearch(&probe, r->lines, (size_t)r->n, sizeof *r->lines, Record_cmp) : NULL;
  return hit ? &hit->b : NULL;
}

/* One line: seven key fields and three numbers, tab-separated; false when it is not that. */
static bool Record_parseLine(char *line, CheckRecord *r) {
  char *f[RECORD_KEY_FIELDS + 3];
  int n = 0;
  for (char *p = line; p; n++) {
    if (n == RECORD_KEY_FIELDS + 3) return false; /* a field too many */
    f[n] = p;
    p = strchr(p, '\t');
    if (p) *p++ = '\0';
  }
  if (n != RECORD_KEY_FIELDS + 3) return false;
  for (int i = 0; i < RECORD_KEY_FIELDS; i++)
    if (!f[i][0]) return false;
  BuildInfo b = {.spill_stores = 0, .spill_loads = 0};
  int *vals[3] = {&b.regs, &b.smem_static, &b.stack_bytes};
  for (int i = 0; i < 3; i++) {
    char *end = NULL;
    long v = strtol(f[RECORD_KEY_FIELDS + i], &end, 10);
    if (end == f[RECORD_KEY_FIELDS + i] || *end || v < 0 || v > 1 << 24) return false;
    *vals[i] = (int)v;
  }
  char *end = NULL;
  long D = strtol(f[2], &end, 10);
  if (*end || D < 1 || D > 4096) return false;
  char key[1024];
  if (!CheckRecord_key(f[0], f[1], (int)D, f[3], f[4], f[5], f[6], key, sizeof key)) return false;
  CheckRecord_add(r, key, &b);
  return true;
}

CheckRecord *CheckRecord_load(const char *path, char *err, size_t errsize) {
  size_t len = 0;
  char why[256];
  char *text = SafeFile_read(path, RECORD_MAX_BYTES, &len, why, sizeof why);
  if (!text) {
    snprintf(err, errsize, "%s", why);
    return NULL;
  }
  CheckRecord *r = CheckRecord_new();
  int lineno = 0;
  for (char *line = text, *next; line && *line; line = next) {
    lineno++;
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (line[0] == '#' || !line[0]) continue;
    if (strlen(line) > 900 || !Record_parseLine(line, r)) {
      snprintf(err, errsize, "%s:%d: not a check-kernels record line (variant, knobs, D, dtype, arch, "
               "hash, nvrtc, regs, smem, stack; at most 900 bytes): make the record again with "
               "tools/dev.sh sweep", path, lineno);
      CheckRecord_free(r);
      free(text);
      return NULL;
    }
  }
  free(text);
  CheckRecord_seal(r);
  return r;
}

bool CheckRecord_write(CheckRecord *r, const char *path, char *err, size_t errsize) {
  CheckRecord_seal(r);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    snprintf(err, errsize, "out of memory");
    return false;
  }
  fputs(RECORD_HEADER, f);
  for (int i = 0; i < r->n; i++)
    fprintf(f, "%s\t%d\t%d\t%d\n", r->lines[i].key, r->lines[i].b.regs, r->lines[i].b.smem_static,
            r->lines[i].b.stack_bytes);
  bool ok = fclose(f) == 0;
  if (!ok) snprintf(err, errsize, "out of memory");
  else ok = Util_writeFileAtomic(path, text, len, err, errsize);
  free(text);
  return ok;
}

bool CheckRecord_audits(const char *key, uint64_t seed, int every) {
  if (every <= 0) return false;
  return Util_hash64(key, strlen(key), seed) % (uint64_t)every == 0;
}
