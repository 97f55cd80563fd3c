#include "bench/tune/tune_table.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench/tune/tune_table_io.h"
#include "common/revision.h"
#include "common/safe_file.h"
#include "common/util.h"
#include "cupti/chips.h"
#include "kernels/jit.h"
#include "kernels/registry.h"

#define TUNED_MAX_ENTRIES 100000

bool TunedTable_path(char *buf, size_t size) {
  const char *env = getenv(TUNED_PATH_ENV);
  if (env && *env) {
    /* A cut name is another file: a name too long is no name at all. */
    if (Util_strlcpy(buf, env, size) < size) return true;
    buf[0] = '\0';
    return false;
  }
  char dir[4096];
  Util_cacheDir(dir, sizeof dir);
  int len = snprintf(buf, size, "%s/tuned.json", dir);
  if (len >= 0 && (size_t)len < size) return true;
  buf[0] = '\0';
  return false;
}

/* A table's header fields: what TunedTable_read fills in and TunedTable_build writes. */
#define INFO_FIELD(f) {#f, offsetof(TunedTableInfo, f), sizeof(((TunedTableInfo *)0)->f)}
static const struct {
  const char *key;
  size_t offset, size;
} Info_fields[] = {INFO_FIELD(chip), INFO_FIELD(device), INFO_FIELD(created), INFO_FIELD(revision),
                   INFO_FIELD(generator)};

/* Writes root to path (atomically) and frees it. */
static bool TunedTable_writeJson(cJSON *root, const char *path, char *err, size_t errsize) {
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  bool ok = text != NULL;
  if (!ok) snprintf(err, errsize, "cannot format %s: out of memory", path);
  else ok = Util_writeFileAtomic(path, text, strlen(text), err, errsize);
  cJSON_free(text);
  return ok;
}

static bool TunedTable_str(const cJSON *o, const char *key, char *buf, size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsString(v) || strlen(v->valuestring) >= size) return false;
  Util_strlcpy(buf, v->valuestring, size);
  return true;
}

static bool TunedTable_int(const cJSON *o, const char *key, int *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
      v->valuedouble > 1e9 || v->valuedouble != floor(v->valuedouble))
    return false;
  *out = (int)v->valuedouble;
  return true;
}

static bool TunedTable_fromJson(const cJSON *o, TunedEntry *e) {
  /* chip: optional (the user's table before it was written; shipped tables have it) */
  memset(e, 0, sizeof *e);
  char shape[64], why[160];
  const cJSON *p50 = cJSON_GetObjectItemCaseSensitive(o, "p50");
  if (!cJSON_IsObject(o) || !TunedTable_str(o, "device", e->device, sizeof e->device) ||
      !TunedTable_int(o, "cc", &e->cc) || !TunedTable_int(o, "driver", &e->driver) ||
      !TunedTable_str(o, "variant", e->variant, sizeof e->variant) ||
      !TunedTable_str(o, "source_hash", e->source_hash, sizeof e->source_hash) ||
      !TunedTable_str(o, "shape", shape, sizeof shape) || !Shape_parse(shape, &e->shape, why, sizeof why) ||
      !TunedTable_str(o, "knobs", e->knobs, sizeof e->knobs) || !cJSON_IsNumber(p50) ||
      !isfinite(p50->valuedouble) || p50->valuedouble <= 0)
    return false;
  e->p50 = p50->valuedouble;
  e->cold_l2 = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "cold_l2"));
  e->graph = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "graph"));
  if (!TunedTable_str(o, "chip", e->chip, sizeof e->chip)) TunedTable_chipOf(e->device, e->chip, sizeof e->chip);
  TunedTable_str(o, "clock", e->clock, sizeof e->clock);
  TunedTable_str(o, "created", e->created, sizeof e->created);
  TunedTable_str(o, "session", e->session, sizeof e->session);
  if (!TunedTable_int(o, "picked_of", &e->picked_of)) e->picked_of = 0;
  return true;
}

cJSON *TunedTable_toJson(const TunedEntry *e) {
  cJSON *o = cJSON_CreateObject();
  char shape[64];
  Shape_format(&e->shape, shape, sizeof shape);
  cJSON_AddStringToObject(o, "device", e->device);
  if (e->chip[0]) cJSON_AddStringToObject(o, "chip", e->chip);
  cJSON_AddNumberToObject(o, "cc", e->cc);
  cJSON_AddNumberToObject(o, "driver", e->driver);
  cJSON_AddStringToObject(o, "variant", e->variant);
  cJSON_AddStringToObject(o, "source_hash", e->source_hash);
  cJSON_AddStringToObject(o, "shape", shape);
  cJSON_AddBoolToObject(o, "cold_l2", e->cold_l2);
  cJSON_AddBoolToObject(o, "graph", e->graph);
  cJSON_AddStringToObject(o, "knobs", e->knobs);
  cJSON_AddNumberToObject(o, "p50", e->p50);
  cJSON_AddStringToObject(o, "clock", e->clock);
  cJSON_AddStringToObject(o, "created", e->created);
  cJSON_AddStringToObject(o, "session", e->session);
  if (e->picked_of > 0) cJSON_AddNumberToObject(o, "picked_of", e->picked_of);
  return o;
}

bool TunedTable_chipOf(const char *device, char *chip, size_t size) {
  char note[128];
  chip[0] = '\0';
  return Chips_resolve(device, chip, size, note, sizeof note);
}

/* A parsed table's entries and header (TunedTable_read's contract, root kept by the caller). */
static int TunedTable_fromRoot(const cJSON *root, const char *path, TunedEntry **out, int *n,
                               TunedTableInfo *info, char *why, size_t whysize) {
  if (info) memset(info, 0, sizeof *info);
  *out = NULL;
  *n = 0;
  const cJSON *schema = root ? cJSON_GetObjectItemCaseSensitive(root, "schema") : NULL;
  const cJSON *arr = root ? cJSON_GetObjectItemCaseSensitive(root, "entries") : NULL;
  if (!cJSON_IsString(schema) || strcmp(schema->valuestring, TUNED_SCHEMA) != 0 ||
      !cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > TUNED_MAX_ENTRIES) {
    snprintf(why, whysize, "%s is not a benchtop tuned table (%s)", path,
             !root ? "not JSON" : !cJSON_IsString(schema) ? "no schema"
             : strcmp(schema->valuestring, TUNED_SCHEMA) != 0 ? "another schema" : "no entries");
    return -1;
  }
  for (int k = 0; info && k < (int)(sizeof Info_fields / sizeof Info_fields[0]); k++)
    TunedTable_str(root, Info_fields[k].key, (char *)info + Info_fields[k].offset,
                   Info_fields[k].size);
  int cap = cJSON_GetArraySize(arr);
  *out = Util_xcalloc(cap > 0 ? (size_t)cap : 1, sizeof(TunedEntry));
  int i = 0;
  for (const cJSON *e = arr->child; e; e = e->next, i++) {
    if (!TunedTable_fromJson(e, &(*out)[*n])) {
      snprintf(why, whysize, "%s: entries[%d] is malformed", path, i);
      free(*out);
      *out = NULL;
      *n = 0;
      return -1;
    }
    (*n)++;
  }
  return 1;
}

int TunedTable_read(const char *path, TunedEntry **out, int *n, TunedTableInfo *info, char *why,
                    size_t whysize) {
  if (info) memset(info, 0, sizeof *info);
  *out = NULL;
  *n = 0;
  size_t len = 0;
  char *text = Util_readFile(path, &len, TUNED_MAX_BYTES);
  if (!text) {
    if (errno == ENOENT) return 0;
    snprintf(why, whysize, "cannot read %s: %s", path,
             errno == EFBIG ? "larger than 16 MiB" : strerror(errno));
    return -1;
  }
  cJSON *root = cJSON_ParseWithLength(text, len);
  free(text);
  int rc = TunedTable_fromRoot(root, path, out, n, info, why, whysize);
  cJSON_Delete(root);
  return rc;
}

bool TunedTable_sameSlot(const TunedEntry *a, const TunedEntry *b) {
  return strcmp(a->device, b->device) == 0 && a->cc == b->cc &&
         strcmp(a->variant, b->variant) == 0 && Shape_equal(&a->shape, &b->shape) &&
         a->cold_l2 == b->cold_l2 && a->graph == b->graph;
}

bool TunedTable_store(const TunedEntry *entries, int n, char *note, size_t notesize, char *err,
                      size_t errsize) {
  char path[4096], dir[4096], lockpath[4200];
  note[0] = '\0'; /* nothing to note now that a bad table is never moved aside */
  (void)notesize;
  if (!TunedTable_path(path, sizeof path)) {
    snprintf(err, errsize, "%s (or the cache directory) is longer than %zu bytes: nothing written",
             TUNED_PATH_ENV, sizeof path - 1);
    return false;
  }
  Util_strlcpy(dir, path, sizeof dir);
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) {
    *slash = '\0';
    Util_mkdirs(dir);
  }
  /* Only a regular file (or nothing) is ever read, locked beside or replaced: never a device,
   * a FIFO, a directory or a link, and never a lock file beside one of those. */
  char kind[4200];
  if (!SafeFile_regularOrAbsent(path, kind, sizeof kind)) {
    snprintf(err, errsize, "%s: nothing written (set %s to a file of its own)", kind, TUNED_PATH_ENV);
    return false;
  }
  /* One writer at a time: two tunes finishing together must not lose each other's entries. */
  snprintf(lockpath, sizeof lockpath, "%s.lock", path);
  int lock = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    snprintf(err, errsize, "cannot lock %s: %s", lockpath, strerror(errno));
    if (lock >= 0) close(lock);
    return false;
  }
  TunedEntry *old = NULL;
  int nold = 0;
  char why[512];
  if (TunedTable_read(path, &old, &nold, NULL, why, sizeof why) < 0) {
    /* Not ours to rename or replace: whoever put it there decides. */
    snprintf(err, errsize, "%s: left as it is, nothing written (move it away or set %s to another file)",
             why, TUNED_PATH_ENV);
    close(lock);
    return false;
  }
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", TUNED_SCHEMA);
  cJSON *arr = cJSON_AddArrayToObject(root, "entries");
  for (int i = 0; i < nold; i++) {
    bool replaced = false;
    for (int j = 0; j < n; j++) replaced |= TunedTable_sameSlot(&old[i], &entries[j]);
    if (!replaced) cJSON_AddItemToArray(arr, TunedTable_toJson(&old[i]));
  }
  for (int j = 0; j < n; j++) cJSON_AddItemToArray(arr, TunedTable_toJson(&entries[j]));
  free(old);
  bool ok = TunedTable_writeJson(root, path, err, errsize);
  close(lock);
  return ok;
}


/* An entry's slot among those built so far: replaced (a later session wins) or appended. */
static void TunedTable_put(TunedEntry **all, int *n, const TunedEntry *e) {
  for (int i = 0; i < *n; i++)
    if (TunedTable_sameSlot(&(*all)[i], e)) {
      (*all)[i] = *e;
      return;
    }
  *all = Util_xrealloc(*all, sizeof(TunedEntry) * (size_t)(*n + 1));
  (*all)[(*n)++] = *e;
}

#define TUNED_TABLE_OLD_MAX 16 /* variants whose stale winners an input counts */
/* Winners of another source of a kernel than this build's, counted per variant: they would ship
 * stale (a run takes them, though the kernel they were measured on is gone), so they are left out. */
typedef struct TunedOld {
  char variant[TUNED_TABLE_OLD_MAX][sizeof ((TunedEntry *)0)->variant];
  int count[TUNED_TABLE_OLD_MAX], n;
} TunedOld;

/* Whether e was measured on this build's source of its kernel; counts it in old when not. */
static bool TunedTable_current(const TunedEntry *e, TunedOld *old) {
  const Variant *v = Registry_find(e->variant);
  char now[sizeof e->source_hash];
  if (!v || !Jit_sourceHash(v, now, sizeof now) || strcmp(now, e->source_hash) == 0) return true;
  int k = 0;
  while (k < old->n && strcmp(old->variant[k], e->variant) != 0) k++;
  if (k == old->n && old->n < TUNED_TABLE_OLD_MAX) Util_strlcpy(old->variant[old->n++], e->variant, sizeof old->variant[k]);
  if (k < old->n) old->count[k]++;
  return false;
}
static void TunedTable_warn(char *warn, size_t warnsize, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void TunedTable_warn(char *warn, size_t warnsize, const char *fmt, ...) {
  size_t used = strlen(warn);
  if (used + 1 >= warnsize) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(warn + used, warnsize - used, fmt, ap);
  va_end(ap);
  used = strlen(warn);
  if (used + 1 < warnsize) Util_strlcpy(warn + used, "\n", warnsize - used);
}

static void TunedTable_warnOld(char *warn, size_t warnsize, const char *base, const TunedOld *old) {
  for (int k = 0; k < old->n; k++)
    TunedTable_warn(warn, warnsize, "%s: %d winner%s of %s measured on another source of the kernel than this "
                    "build's: left out (tune %s again)", base, old->count[k], old->count[k] == 1 ? "" : "s",
                    old->variant[k], old->count[k] == 1 ? "it" : "them");
}

/* One session's winners into all; false with one line in err when it cannot serve. */
static bool TunedTable_fromSession(const char *path, TunedEntry **all, int *n, TunedTableInfo *info,
                                   char *warn, size_t warnsize, char *err, size_t errsize) {
  Session s;
  if (!Session_load(path, &s, err, errsize)) return false;
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  TunedOld old = {.n = 0};
  int nlocal = 0;
  char local_first[32] = "";
  char chip[16];
  bool ok = false;
  if (!s.has_device || !TunedTable_chipOf(s.device.name, chip, sizeof chip)) {
    snprintf(err, errsize, "%s: %s", path, !s.has_device ? "no device: it never ran on a GPU"
             : "the chip of its device is unknown (cupti/chips.c lists the names)");
  } else if (info->chip[0] && strcmp(info->chip, chip) != 0) {
    snprintf(err, errsize, "%s was measured on %s, the sessions before it on %s: one table per chip",
             path, chip, info->chip);
  } else if (s.ntune == 0) {
    snprintf(err, errsize, "%s holds no tune (make one with benchtop tune --strategy exhaustive -o FILE)", path);
  } else {
    ok = true;
  }
  if (ok && !info->chip[0]) {
    Util_strlcpy(info->chip, chip, sizeof info->chip);
    Util_strlcpy(info->device, s.device.name, sizeof info->device);
    Util_strlcpy(info->revision, s.revision, sizeof info->revision);
  } else if (ok && strcmp(info->revision, s.revision) != 0) {
    TunedTable_warn(warn, warnsize, "%s ran on benchtop %s, the first session on %s (the table names the first)",
                    base, s.revision, info->revision);
  }
  for (int i = 0; ok && i < s.ntune; i++) {
    const TuneSummary *t = &s.tune[i];
    char shape[64];
    Shape_format(&t->shape, shape, sizeof shape);
    if (t->winner < 0 || t->winner >= s.nrecords) {
      TunedTable_warn(warn, warnsize, "%s: %s at %s has no winner: left out", base, t->variant, shape);
      continue;
    }
    if (strcmp(t->strategy, "exhaustive") != 0 && nlocal++ == 0) /* the first named, the others counted */
      Util_strlcpy(local_first, t->strategy, sizeof local_first);
    if (!t->complete)
      TunedTable_warn(warn, warnsize, "%s: %s at %s: the search did not finish (%s); its winner is kept",
                      base, t->variant, shape, t->note[0] ? t->note : "stopped");
    const Record *w = &s.records[t->winner];
    TunedEntry e;
    memset(&e, 0, sizeof e);
    Util_strlcpy(e.device, s.device.name, sizeof e.device);
    Util_strlcpy(e.chip, chip, sizeof e.chip);
    e.cc = s.device.cc_major * 10 + s.device.cc_minor;
    e.driver = s.device.driver_version;
    Util_strlcpy(e.variant, t->variant, sizeof e.variant);
    Util_strlcpy(e.source_hash, w->build.source_hash, sizeof e.source_hash);
    e.shape = t->shape;
    e.cold_l2 = w->opts.cold_l2;
    e.graph = w->opts.graph;
    Util_strlcpy(e.knobs, t->winner_knobs, sizeof e.knobs);
    e.p50 = t->winner_p50;
    Util_strlcpy(e.clock, w->timing.source, sizeof e.clock);
    Util_strlcpy(e.created, w->created[0] ? w->created : s.created, sizeof e.created);
    Util_strlcpy(e.session, base, sizeof e.session);
    if (!(e.p50 > 0) || !e.source_hash[0]) {
      TunedTable_warn(warn, warnsize, "%s: %s at %s: the winner has no p50 or build: left out", base,
                      t->variant, shape);
      continue;
    }
    if (TunedTable_current(&e, &old)) TunedTable_put(all, n, &e);
  }
  if (nlocal > 0)
    TunedTable_warn(warn, warnsize, "%s: %d search%s not exhaustive (the first by %s): %s winner%s kept", base,
                    nlocal, nlocal == 1 ? "" : "es", local_first, nlocal == 1 ? "its" : "their", nlocal == 1 ? "" : "s");
  TunedTable_warnOld(warn, warnsize, base, &old);
  Session_free(&s);
  return ok;
}

/* Whether path holds a tuned table (its schema), rather than a session. */
static cJSON *TunedTable_parseTable(const char *path) {
  size_t len = 0;
  char *text = Util_readFile(path, &len, TUNED_MAX_BYTES);
  cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  const cJSON *schema = root ? cJSON_GetObjectItemCaseSensitive(root, "schema") : NULL;
  if (cJSON_IsString(schema) && strcmp(schema->valuestring, TUNED_SCHEMA) == 0) return root;
  cJSON_Delete(root);
  return NULL;
}

/* A table made before: its entries into all as a session's winners go (a later input's replace
 * them), those of another source of the kernel left out; false with one line in err. */
static bool TunedTable_fromTable(const cJSON *table, const char *path, TunedEntry **all, int *n,
                                 TunedTableInfo *info, char *warn, size_t warnsize, char *err,
                                 size_t errsize) {
  TunedEntry *t = NULL;
  int nt = 0;
  TunedTableInfo ti;
  if (TunedTable_fromRoot(table, path, &t, &nt, &ti, err, errsize) <= 0) return false;
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  bool ok = !info->chip[0] || strcmp(info->chip, ti.chip) == 0;
  if (!ok) snprintf(err, errsize, "%s is a table of %s, the inputs before it are of %s: one table per chip", path, ti.chip, info->chip);
  if (ok && !info->chip[0]) *info = ti;
  TunedOld old = {.n = 0};
  for (int i = 0; ok && i < nt; i++) {
    if (strcmp(t[i].chip, ti.chip) != 0) {
      snprintf(err, errsize, "%s: entries[%d] is of chip %s, the table of %s", path, i, t[i].chip, ti.chip);
      ok = false;
    } else if (TunedTable_current(&t[i], &old)) {
      TunedTable_put(all, n, &t[i]);
    }
  }
  if (ok) TunedTable_warnOld(warn, warnsize, base, &old);
  free(t);
  return ok;
}

bool TunedTable_build(const char *const *sessions, int nsessions, const char *out_path,
                      TunedTableInfo *info, int *nentries, char *warn, size_t warnsize, char *err,
                      size_t errsize) {
  memset(info, 0, sizeof *info);
  warn[0] = '\0';
  *nentries = 0;
  TunedEntry *all = NULL;
  int n = 0;
  bool ok = true;
  cJSON *from = cJSON_CreateArray(); /* the inputs' names; a table's own sources stand for it */
  for (int i = 0; i < nsessions && ok; i++) {
    cJSON *table = TunedTable_parseTable(sessions[i]);
    ok = table ? TunedTable_fromTable(table, sessions[i], &all, &n, info, warn, warnsize, err, errsize)
               : TunedTable_fromSession(sessions[i], &all, &n, info, warn, warnsize, err, errsize);
    const char *base = strrchr(sessions[i], '/') ? strrchr(sessions[i], '/') + 1 : sessions[i];
    const cJSON *was = table ? cJSON_GetObjectItemCaseSensitive(table, "from") : NULL, *f;
    if (cJSON_IsArray(was))
      cJSON_ArrayForEach(f, was) if (cJSON_IsString(f)) cJSON_AddItemToArray(from, cJSON_CreateString(f->valuestring));
    if (!cJSON_IsArray(was)) cJSON_AddItemToArray(from, cJSON_CreateString(base));
    cJSON_Delete(table);
  }
  if (ok && n == 0) {
    snprintf(err, errsize, "the sessions name no winner: nothing to write");
    ok = false;
  }
  if (ok) { /* replaces an older table, never another kind of file */
    TunedEntry *old = NULL;
    int nold = 0;
    char why[600];
    if (TunedTable_read(out_path, &old, &nold, NULL, why, sizeof why) < 0) {
      snprintf(err, errsize, "%s; name another -o (nothing written)", why);
      ok = false;
    }
    free(old);
  }
  if (ok) {
    Util_isoTime(info->created, sizeof info->created);
    Util_strlcpy(info->generator, BENCHTOP_REVISION, sizeof info->generator);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", TUNED_SCHEMA);
    for (int k = 0; k < (int)(sizeof Info_fields / sizeof Info_fields[0]); k++)
      cJSON_AddStringToObject(root, Info_fields[k].key, (const char *)info + Info_fields[k].offset);
    cJSON_AddItemToObject(root, "from", from);
    from = NULL;
    cJSON *arr = cJSON_AddArrayToObject(root, "entries");
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(arr, TunedTable_toJson(&all[i]));
    ok = TunedTable_writeJson(root, out_path, err, errsize);
  }
  cJSON_Delete(from); /* NULL once the table holds it */
  free(all);
  if (ok) *nentries = n;
  return ok;
}
