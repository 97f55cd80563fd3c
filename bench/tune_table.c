#include "bench/tune_table.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/datadir.h"
#include "common/util.h"
#include "kernels/jit.h"

#define TUNED_MAX_ENTRIES 100000

void TunedTable_path(char *buf, size_t size) {
  const char *env = getenv(TUNED_PATH_ENV);
  if (env && *env) {
    Util_strlcpy(buf, env, size);
    return;
  }
  char dir[4096];
  Util_cacheDir(dir, sizeof dir);
  snprintf(buf, size, "%s/tuned.json", dir);
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
  TunedTable_str(o, "clock", e->clock, sizeof e->clock);
  TunedTable_str(o, "created", e->created, sizeof e->created);
  TunedTable_str(o, "session", e->session, sizeof e->session);
  return true;
}

static cJSON *TunedTable_toJson(const TunedEntry *e) {
  cJSON *o = cJSON_CreateObject();
  char shape[64];
  Shape_format(&e->shape, shape, sizeof shape);
  cJSON_AddStringToObject(o, "device", e->device);
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
  return o;
}

/* Reads the table. 1: read (maybe empty); 0: no file; -1: unreadable or malformed (why). */
static int TunedTable_read(const char *path, TunedEntry **out, int *n, char *why, size_t whysize) {
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
  const cJSON *schema = root ? cJSON_GetObjectItemCaseSensitive(root, "schema") : NULL;
  const cJSON *arr = root ? cJSON_GetObjectItemCaseSensitive(root, "entries") : NULL;
  if (!cJSON_IsString(schema) || strcmp(schema->valuestring, TUNED_SCHEMA) != 0 ||
      !cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > TUNED_MAX_ENTRIES) {
    snprintf(why, whysize, "%s is not a benchtop tuned table (%s)", path,
             !root ? "not JSON" : !cJSON_IsString(schema) ? "no schema"
             : strcmp(schema->valuestring, TUNED_SCHEMA) != 0 ? "another schema" : "no entries");
    cJSON_Delete(root);
    return -1;
  }
  int cap = cJSON_GetArraySize(arr);
  *out = Util_xcalloc(cap > 0 ? (size_t)cap : 1, sizeof(TunedEntry));
  int i = 0;
  for (const cJSON *e = arr->child; e; e = e->next, i++) {
    if (!TunedTable_fromJson(e, &(*out)[*n])) {
      snprintf(why, whysize, "%s: entries[%d] is malformed", path, i);
      free(*out);
      *out = NULL;
      *n = 0;
      cJSON_Delete(root);
      return -1;
    }
    (*n)++;
  }
  cJSON_Delete(root);
  return 1;
}

static bool TunedTable_sameSlot(const TunedEntry *a, const TunedEntry *b) {
  return strcmp(a->device, b->device) == 0 && a->cc == b->cc &&
         strcmp(a->variant, b->variant) == 0 && Shape_equal(&a->shape, &b->shape) &&
         a->cold_l2 == b->cold_l2 && a->graph == b->graph;
}

bool TunedTable_store(const TunedEntry *entries, int n, char *note, size_t notesize, char *err,
                      size_t errsize) {
  char path[4096], dir[4096], lockpath[4200];
  note[0] = '\0';
  TunedTable_path(path, sizeof path);
  Util_strlcpy(dir, path, sizeof dir);
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) {
    *slash = '\0';
    Util_mkdirs(dir);
  }
  /* One writer at a time: two tunes finishing together must not lose each other's entries. */
  snprintf(lockpath, sizeof lockpath, "%s.lock", path);
  int lock = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    snprintf(err, errsize, "cannot lock %s: %s", lockpath, strerror(errno));
    if (lock >= 0) close(lock);
    return false;
  }
  TunedEntry *old = NULL;
  int nold = 0;
  char why[512];
  if (TunedTable_read(path, &old, &nold, why, sizeof why) < 0) {
    /* Kept for whoever wants to look, never overwritten. */
    char aside[4200];
    snprintf(aside, sizeof aside, "%s.bad-%ld", path, (long)time(NULL));
    if (rename(path, aside) != 0) {
      snprintf(err, errsize, "%s; cannot move it aside: %s", why, strerror(errno));
      close(lock);
      return false;
    }
    snprintf(note, notesize, "%s: moved to %s, a new table started", why, aside);
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
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  bool ok = text != NULL;
  if (!ok) snprintf(err, errsize, "cannot format %s: out of memory", path);
  else ok = Util_writeFileAtomic(path, text, strlen(text), err, errsize);
  cJSON_free(text);
  close(lock);
  return ok;
}

/* The entry of key's slot among n: 1 found (its source and, unless any_driver, its driver
 * match); else why says what came closest. */
static int TunedTable_match(const TunedEntry *all, int n, const TunedEntry *key, const char *hash,
                            int driver, bool any_driver, const Variant *v, TunedEntry *out,
                            char *why, size_t whysize) {
  for (int i = 0; i < n; i++) {
    if (!TunedTable_sameSlot(&all[i], key)) continue;
    if (strcmp(all[i].source_hash, hash) != 0) {
      snprintf(why, whysize, "tuned for an older %s (the source changed since)", v->source);
    } else if (!any_driver && all[i].driver != driver) {
      snprintf(why, whysize, "tuned under driver %d, this is %d", all[i].driver, driver);
    } else {
      *out = all[i];
      return 1;
    }
  }
  return 0;
}

bool TunedTable_shippedDir(char *dir, size_t size) {
  const char *env = getenv(TUNED_SHIPPED_ENV);
  if (env && *env) {
    Util_strlcpy(dir, env, size);
    return true;
  }
  return DataDir_find(DATA_TUNED, dir, size);
}

/* A shipped table's file: a *.json that is no hidden file. */
static bool TunedTable_isTableName(const char *name) {
  size_t len = strlen(name);
  return len > 5 && name[0] != '.' && strcmp(name + len - 5, ".json") == 0;
}

/* The tables shipped with benchtop: their entries hold for every driver (they were tuned under
 * one, and a driver rarely moves the best setting), never for another source. A shipped file
 * that cannot be read is said in why, and the others still count. */
static int TunedTable_shipped(const TunedEntry *key, const char *hash, const Variant *v,
                              TunedEntry *out, char *why, size_t whysize) {
  char dir[4096];
  if (!TunedTable_shippedDir(dir, sizeof dir)) return 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  int found = 0;
  struct dirent *e;
  while (!found && (e = readdir(d))) {
    if (!TunedTable_isTableName(e->d_name)) continue;
    char path[8192], note[400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    TunedEntry *all = NULL;
    int n = 0;
    int rc = TunedTable_read(path, &all, &n, note, sizeof note);
    if (rc > 0) found = TunedTable_match(all, n, key, hash, 0, true, v, out, why, whysize);
    else if (rc < 0) snprintf(why, whysize, "a shipped table is unusable: %.300s", note);
    free(all);
  }
  closedir(d);
  if (found) out->shipped = true;
  return found;
}

int TunedTable_lookup(const DeviceInfo *d, const Variant *v, const Shape *s, const RunOptions *o,
                      TunedEntry *out, char *why, size_t whysize) {
  char path[4096], hash[20];
  TunedTable_path(path, sizeof path);
  TunedEntry *all = NULL;
  int n = 0;
  char own_why[400] = "";
  int rc = TunedTable_read(path, &all, &n, own_why, sizeof own_why);
  if (!Jit_sourceHash(v, hash, sizeof hash)) {
    free(all);
    snprintf(why, whysize, "the source of %s cannot be read", v->name);
    return -1;
  }
  TunedEntry key;
  memset(&key, 0, sizeof key);
  Util_strlcpy(key.device, d->name, sizeof key.device);
  key.cc = d->cc_major * 10 + d->cc_minor;
  Util_strlcpy(key.variant, v->name, sizeof key.variant);
  key.shape = *s;
  key.cold_l2 = o->cold_l2;
  key.graph = o->graph;
  snprintf(why, whysize, "nothing tuned%s on this %s", o->cold_l2 ? " with a cold L2" : "", d->name);
  /* The user's own tunes first; then what benchtop ships for this GPU. */
  int found = rc > 0 && TunedTable_match(all, n, &key, hash, d->driver_version, false, v, out, why, whysize);
  free(all);
  if (found) return 1;
  char shipped_why[400] = "";
  if (TunedTable_shipped(&key, hash, v, out, shipped_why, sizeof shipped_why)) return 1;
  if (rc < 0) { /* an unreadable table of the user's is what to fix first */
    Util_strlcpy(why, own_why, whysize);
    return -1;
  }
  if (shipped_why[0] && Util_startsWith(why, "nothing tuned"))
    snprintf(why, whysize, "the table shipped for this GPU: %.300s", shipped_why);
  return 0;
}

bool TunedTable_exists(void) {
  char path[4096], dir[4096];
  TunedTable_path(path, sizeof path);
  if (access(path, F_OK) == 0) return true;
  if (!TunedTable_shippedDir(dir, sizeof dir)) return false;
  DIR *d = opendir(dir);
  if (!d) return false;
  bool any = false;
  struct dirent *e;
  while (!any && (e = readdir(d))) any = TunedTable_isTableName(e->d_name);
  closedir(d);
  return any;
}

int TunedTable_checkShipped(const char *dir, int *stale, char *err, size_t errsize) {
  *stale = 0;
  DIR *d = opendir(dir);
  if (!d) {
    snprintf(err, errsize, "cannot open %s: %s", dir, strerror(errno));
    return -1;
  }
  int checked = 0;
  bool ok = true;
  struct dirent *de;
  while (ok && (de = readdir(d))) {
    if (!TunedTable_isTableName(de->d_name)) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    TunedEntry *all = NULL;
    int n = 0;
    int rc = TunedTable_read(path, &all, &n, err, errsize);
    if (rc == 0) snprintf(err, errsize, "%s vanished while it was read", path);
    ok = rc > 0;
    for (int i = 0; i < n && ok; i++) {
      const TunedEntry *t = &all[i];
      const Variant *v = Registry_find(t->variant);
      KnobValues kv;
      char why[256], hash[20];
      const char *refused = NULL;
      if (v) Registry_defaults(v, &kv);
      if (!v || !Registry_applyKnobs(v, t->knobs, &kv, false, why, sizeof why) ||
          (refused = Registry_supports(v, &t->shape, &kv, NULL, why, sizeof why)) != NULL) {
        snprintf(err, errsize, "%s: entries[%d] (%s): %s", path, i, t->variant,
                 !v ? "no such variant" : refused ? refused : why);
        ok = false;
      } else {
        checked++;
        if (!Jit_sourceHash(v, hash, sizeof hash) || strcmp(hash, t->source_hash) != 0) (*stale)++;
      }
    }
    free(all);
  }
  closedir(d);
  return ok ? checked : -1;
}

/* Notes quote the device's name, which the worker reports: one printable line whatever it holds. */
static void TunedTable_printable(char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = '?';
}

void TunedTable_resolve(PlanEntry *entries, int n, const DeviceInfo *d, char (*notes)[160]) {
  for (int i = 0; i < n; i++) {
    PlanEntry *e = &entries[i];
    notes[i][0] = '\0';
    if (e->knobs_auto == PLAN_AUTO_NONE || e->variant->nknobs == 0) continue;
    TunedEntry t;
    char why[400];
    int rc = TunedTable_lookup(d, e->variant, &e->shape, &e->opts, &t, why, sizeof why);
    KnobValues kv;
    Registry_defaults(e->variant, &kv);
    char err[256];
    bool usable = rc == 1 && Registry_applyKnobs(e->variant, t.knobs, &kv, false, err, sizeof err);
    if (usable) { /* the registry may have narrowed since the tune */
      const char *refused = Registry_supports(e->variant, &e->shape, &kv, NULL, err, sizeof err);
      if (refused) {
        Util_strlcpy(err, refused, sizeof err);
        usable = false;
      }
    }
    if (usable) {
      for (int k = 0; k < e->variant->nknobs; k++)
        if (!(e->knobs_given & (1u << k))) e->knobs.idx[k] = kv.idx[k];
      snprintf(notes[i], sizeof notes[i], "tuned (%sp50 %.4g us, %.10s)",
               t.shipped ? "shipped for this GPU, " : "", t.p50, t.created);
    } else if (e->knobs_auto == PLAN_AUTO_IF_TUNED) {
      continue; /* nothing tuned: the defaults, as without a tuned table, unremarked */
    } else {
      if (rc == 1) snprintf(why, sizeof why, "the tuned knobs of %s are no longer valid: %s", e->variant->name, err);
      snprintf(notes[i], sizeof notes[i], "defaults: %.148s", why);
    }
    TunedTable_printable(notes[i]);
  }
}

void TunedTable_markRecord(Record *r, const PlanEntry *entries, char (*notes)[160], bool *used,
                           int n) {
  for (int i = 0; i < n; i++) {
    if (used[i] || !notes[i][0] || strcmp(entries[i].variant->name, r->variant) != 0 ||
        !Shape_equal(&entries[i].shape, &r->shape))
      continue;
    char knobs[RECORD_KNOBS_MAX];
    Registry_formatKnobs(entries[i].variant, &entries[i].knobs, knobs, sizeof knobs);
    if (strcmp(knobs, r->knobs) != 0) continue;
    used[i] = true;
    Util_strlcpy(r->knobs_auto, notes[i], sizeof r->knobs_auto);
    return;
  }
}
