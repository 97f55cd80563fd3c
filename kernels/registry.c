/* The kernel path and its loader. Entries, in order: the built-in kernels (compiled into the
 * binary; BENCHTOP_KERNEL_DIR=DIR reads those files from DIR instead), the user kernel
 * directory (~/.config/benchtop/kernels), each entry of BENCHTOP_KERNEL_PATH (':'-separated;
 * the command line's --kernels DIRs are appended to it, so a worker process sees them too),
 * then BENCHTOP_EXTRA_KERNELS as one more. Every .cu file of an
 * entry is a variant described by its own declaration (decl.c); a later entry's variant
 * shadows an earlier one of the same name, with a note. A file that cannot be read or
 * declares nothing usable costs that file alone: one line naming it, everything else loads. */
#include "kernels/registry.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/safe_file.h"
#include "common/util.h"
#include "kernels/decl_private.h"
#include "kernels/embedded.h"
#include "kernels/jit.h"

#define REGISTRY_MAX_FILE (4u << 20) /* a kernel file larger than this is refused */

static struct {
  bool loaded;
  Variant **all; /* the variants, ladder order */
  int count;
  Variant **retired; /* replaced by a reload or shadowed: kept, pointers stay valid */
  int nretired;
  char **notes;
  int nnotes;
  int nerrors; /* of the notes: files left out */
  char **dirs; /* the kernel path after the built-ins */
  int ndirs;
  void (*sink)(const char *line);
} R;

static void Registry_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void Registry_note(const char *fmt, ...) {
  char line[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (strncmp(line, "note: ", 6) != 0) R.nerrors++;
  R.notes = Util_xrealloc(R.notes, sizeof(char *) * (size_t)(R.nnotes + 1));
  R.notes[R.nnotes++] = Util_xstrdup(line);
  if (R.sink) R.sink(line);
}

void Registry_setNoteSink(void (*sink)(const char *line)) { R.sink = sink; }

static void Registry_retire(Variant *v) {
  R.retired = Util_xrealloc(R.retired, sizeof(Variant *) * (size_t)(R.nretired + 1));
  R.retired[R.nretired++] = v;
}

/* A kernel file the user named: a regular file read without blocking (SafeFile_read: a FIFO
 * or a device never hangs the loader), bounded in size, text without NUL bytes. */
static char *Registry_readKernel(const char *path, char *err, size_t errsize) {
  size_t n = 0;
  char *buf = SafeFile_read(path, REGISTRY_MAX_FILE, &n, err, errsize);
  if (buf && memchr(buf, '\0', n)) {
    snprintf(err, errsize, "%s: not a text file (it holds NUL bytes)", path);
    free(buf);
    return NULL;
  }
  return buf;
}

/* "mine" of ".../mine.cu", when it is a valid variant name. */
static bool Registry_stem(const char *file, char *out, size_t size) {
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  size_t n = strlen(base);
  if (n < 4 || strcmp(base + n - 3, ".cu") != 0 || n - 3 >= size || n - 3 >= VARIANT_NAME_MAX) return false;
  for (size_t i = 0; i < n - 3; i++)
    if (!(base[i] == '_' || (base[i] >= 'a' && base[i] <= 'z') || (base[i] >= 'A' && base[i] <= 'Z') ||
          (i > 0 && base[i] >= '0' && base[i] <= '9')))
      return false;
  memcpy(out, base, n - 3);
  out[n - 3] = '\0';
  return true;
}

/* Parses text into a checked variant; NULL with one line in err. bare_ok: a file with no
 * declaration becomes a bare attn_fwd kernel named after the file. */
static Variant *Registry_make(const char *source, const char *path, const char *text, int origin,
                              bool bare_ok, bool *was_bare, char *err, size_t errsize) {
  bool bare = false;
  Variant *v = Decl_parse(source, text, &bare, err, errsize);
  if (was_bare) *was_bare = bare;
  if (!v && bare && bare_ok) {
    char name[VARIANT_NAME_MAX];
    if (!Registry_stem(source, name, sizeof name)) {
      snprintf(err, errsize, "%s: no declaration, and the file name is no variant name", source);
      return NULL;
    }
    if (Registry_reservedName(name)) {
      snprintf(err, errsize, "%s: skipped: '%s' is a word of the command line (all, default, "
               "auto, none), not a variant name; rename the file", source, name);
      return NULL;
    }
    v = Decl_bare(name, source, text);
    if (!v) {
      snprintf(err, errsize, "%s: no declaration (a comment block opening with '/* benchtop') and "
               "no attn_fwd kernel", source);
      return NULL;
    }
  }
  if (!v) return NULL;
  if (!Decl_probe(v, err, errsize)) {
    Decl_free(v);
    return NULL;
  }
  v->text = Decl_keep(v, text);
  v->path = path ? Decl_keep(v, path) : NULL;
  v->origin = origin;
  snprintf(v->source_hash, sizeof v->source_hash, "%016llx",
           (unsigned long long)Util_hash64(text, strlen(text), 0));
  return v;
}

static int Registry_indexOf(const char *name) {
  for (int i = 0; i < R.count; i++)
    if (strcmp(R.all[i]->name, name) == 0) return i;
  return -1;
}

static void Registry_add(Variant *v) {
  int at = Registry_indexOf(v->name);
  if (at >= 0) {
    Variant *old = R.all[at];
    if (old->origin == v->origin) {
      Registry_note("%s:%d: variant %s is already declared by %s; this file is left out", v->source,
                    v->decl->decl_line, v->name, old->source);
      Decl_free(v);
      return;
    }
    Registry_note("note: %s shadows variant %s of %s", v->source, v->name,
                  old->origin == 0 ? "the built-ins" : old->source);
    Registry_retire(old);
    R.all[at] = v;
    return;
  }
  R.all = Util_xrealloc(R.all, sizeof(Variant *) * (size_t)(R.count + 1));
  R.all[R.count++] = v;
}

static void Registry_loadBuiltins(void) {
  const char *dir = getenv("BENCHTOP_KERNEL_DIR");
  for (int i = 0; i < Embedded_count; i++) {
    const char *file = Embedded_files[i].name;
    size_t n = strlen(file);
    if (n < 4 || strcmp(file + n - 3, ".cu") != 0) continue;
    char err[600];
    char *text = Jit_loadSource(file, err, sizeof err);
    if (!text) { /* BENCHTOP_KERNEL_DIR's copy cannot be read: that variant is unavailable */
      Registry_note("%s", err);
      continue;
    }
    char path[4096] = "";
    if (dir && *dir) snprintf(path, sizeof path, "%s/%s", dir, file);
    bool bare = false;
    Variant *v = Registry_make(file, path[0] && access(path, R_OK) == 0 ? path : NULL, text, 0,
                               false, &bare, err, sizeof err);
    if (v) Registry_add(v);
    else if (!bare) Registry_note("%s", err); /* files with no declaration are engine kernels */
    free(text);
  }
}

static int Registry_cmpName(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void Registry_loadDir(const char *dir, int origin, bool quiet_if_missing) {
  DIR *d = opendir(dir);
  if (!d) {
    if (!(quiet_if_missing && errno == ENOENT))
      Registry_note("kernel path: %s: %s", dir, strerror(errno));
    return;
  }
  char **names = NULL;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (e->d_name[0] == '.' || len < 4 || strcmp(e->d_name + len - 3, ".cu") != 0) continue;
    if (n == 1000) {
      Registry_note("kernel path: %s: more than 1000 .cu files; the rest are left out", dir);
      break;
    }
    names = Util_xrealloc(names, sizeof(char *) * (size_t)(n + 1));
    names[n++] = Util_xstrdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(names, (size_t)n, sizeof *names, Registry_cmpName);
  for (int i = 0; i < n; i++) {
    char path[4200], err[600];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    char *text = Registry_readKernel(path, err, sizeof err);
    Variant *v = text ? Registry_make(path, path, text, origin, true, NULL, err, sizeof err) : NULL;
    if (v && v->bare)
      Registry_note("note: %s has no declaration: variant %s launches attn_fwd one thread per "
                    "query row", path, v->name);
    if (v) Registry_add(v);
    else Registry_note("%s", err);
    free(text);
    free(names[i]);
  }
  free(names);
}

static void Registry_pushDir(const char *dir) {
  R.dirs = Util_xrealloc(R.dirs, sizeof(char *) * (size_t)(R.ndirs + 1));
  R.dirs[R.ndirs++] = Util_xstrdup(dir);
}

/* Ladder order: by rung (none last), then kernel path order, then name. */
static int Registry_cmpLadder(const void *a, const void *b) {
  const Variant *x = *(Variant *const *)a, *y = *(Variant *const *)b;
  int rx = x->rung ? x->rung : 1001, ry = y->rung ? y->rung : 1001;
  if (rx != ry) return rx < ry ? -1 : 1;
  if (x->origin != y->origin) return x->origin < y->origin ? -1 : 1;
  return strcmp(x->name, y->name);
}

static void Registry_load(void) {
  if (R.loaded) return;
  R.loaded = true;
  Registry_loadBuiltins();
  char config[4096], dir[4200];
  Util_configDir(config, sizeof config);
  snprintf(dir, sizeof dir, "%s/kernels", config);
  Registry_pushDir(dir);
  const char *envs[] = {getenv("BENCHTOP_KERNEL_PATH"), getenv("BENCHTOP_EXTRA_KERNELS")};
  for (int e = 0; e < 2; e++) {
    if (!envs[e] || !*envs[e]) continue;
    char *copy = Util_xstrdup(envs[e]), *save = NULL;
    for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
      if (*tok) Registry_pushDir(tok);
    free(copy);
  }
  for (int i = 0; i < R.ndirs; i++) Registry_loadDir(R.dirs[i], i + 1, i == 0);
  if (R.count > 1) qsort(R.all, (size_t)R.count, sizeof *R.all, Registry_cmpLadder);
}

int Registry_count(void) {
  Registry_load();
  return R.count;
}

const Variant *Registry_at(int i) {
  Registry_load();
  return i >= 0 && i < R.count ? R.all[i] : NULL;
}

const Variant *Registry_find(const char *name) {
  Registry_load();
  int i = Registry_indexOf(name);
  return i < 0 ? NULL : R.all[i];
}

int Registry_diagnosticCount(void) {
  Registry_load();
  return R.nnotes;
}

const char *Registry_diagnostic(int i) { return i >= 0 && i < R.nnotes ? R.notes[i] : NULL; }

int Registry_errorCount(void) {
  Registry_load();
  return R.nerrors;
}

int Registry_dirCount(void) {
  Registry_load();
  return R.ndirs;
}

const char *Registry_dir(int i) { return i >= 0 && i < R.ndirs ? R.dirs[i] : NULL; }

Variant *Registry_readAgain(const char *name, char *err, size_t errsize) {
  Registry_load();
  int at = Registry_indexOf(name);
  if (at < 0) {
    snprintf(err, errsize, "no variant %s", name);
    return NULL;
  }
  const Variant *old = R.all[at];
  if (!old->path) {
    snprintf(err, errsize, "%s is compiled into benchtop: it has no file to read again", name);
    return NULL;
  }
  char *text = Registry_readKernel(old->path, err, errsize);
  if (!text) return NULL;
  Variant *v = Registry_make(old->source, old->path, text, old->origin, old->bare, NULL, err,
                             errsize);
  free(text);
  if (v && strcmp(v->name, old->name) != 0) {
    snprintf(err, errsize, "%s: the variant's name changed from %s to %s; restart benchtop to load "
             "it under the new name", old->source, old->name, v->name);
    Decl_free(v);
    return NULL;
  }
  return v;
}

const Variant *Registry_install(Variant *v) {
  Registry_load();
  int at = Registry_indexOf(v->name);
  if (at < 0) {
    Decl_free(v);
    return NULL;
  }
  Registry_retire(R.all[at]);
  R.all[at] = v;
  return v;
}

const Variant *Registry_reload(const char *name, char *err, size_t errsize) {
  Registry_load();
  int at = Registry_indexOf(name);
  if (at >= 0 && !R.all[at]->path) return R.all[at]; /* compiled into the binary: it cannot change */
  Variant *v = Registry_readAgain(name, err, errsize);
  if (!v) return NULL;
  if (strcmp(v->text, R.all[at]->text) == 0) {
    Decl_free(v);
    return R.all[at];
  }
  return Registry_install(v);
}

Variant *Registry_parseFile(const char *path, const char *text, char *err, size_t errsize) {
  return Registry_make(path, path, text, 1, false, NULL, err, errsize);
}

void Registry_freeVariant(Variant *v) { Decl_free(v); }
