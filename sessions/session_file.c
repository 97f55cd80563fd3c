/* Sessions on disk: loading (type-checked, bounded), saving (through common/safe_file.h), the
 * autosave target and what `-o` may do to a file that is already there, where sessions live. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/datadir.h"
#include "common/safe_file.h"
#include "common/util.h"
#include "sessions/json_fields.h"
#include "sessions/session.h"

static long long Session_mtimeNs(const struct stat *st) {
  return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

static void Session_setOrigin(Session *s, const struct stat *st) {
  s->has_origin = true;
  s->origin_dev = (unsigned long long)st->st_dev;
  s->origin_ino = (unsigned long long)st->st_ino;
  s->origin_size = (long long)st->st_size;
  s->origin_mtime_ns = Session_mtimeNs(st);
}

static bool Session_isOrigin(const Session *s, const struct stat *st) {
  return s->has_origin && s->origin_dev == (unsigned long long)st->st_dev &&
         s->origin_ino == (unsigned long long)st->st_ino && s->origin_size == (long long)st->st_size &&
         s->origin_mtime_ns == Session_mtimeNs(st);
}

bool Session_load(const char *path, Session *out, char *err, size_t errsize) {
  Session_clear(out);
  char why[1024];
  int fd = SafeFile_openRead(path, SESSION_MAX_BYTES, why, sizeof why);
  if (fd < 0) {
    if (errno == EFBIG) {
      struct stat st;
      stat(path, &st);
      snprintf(err, errsize, "%s: %jd bytes, larger than the %u MiB a session may have", path,
               (intmax_t)st.st_size, SESSION_MAX_BYTES >> 20);
    } else if (strstr(why, ": is a directory")) {
      snprintf(err, errsize, "%s: is a directory, not a session file", path);
    } else {
      snprintf(err, errsize, "%s", why);
    }
    Json_oneLine(err);
    return false;
  }
  struct stat st;
  fstat(fd, &st);
  size_t len = 0;
  char *data = SafeFile_readFd(fd, SESSION_MAX_BYTES, &len);
  int e = errno;
  close(fd);
  if (!data) {
    if (e == EFBIG)
      snprintf(err, errsize, "%s: larger than the %u MiB a session may have", path, SESSION_MAX_BYTES >> 20);
    else
      snprintf(err, errsize, "%s: cannot read: %s", path, strerror(e));
    Json_oneLine(err);
    return false;
  }
  bool ok = Session_parse(data, len, path, out, err, errsize);
  free(data);
  if (ok) {
    Util_strlcpy(out->path, path, sizeof out->path);
    Session_setOrigin(out, &st);
  }
  return ok;
}

static char *Session_text(const Session *s, size_t *len) {
  cJSON *j = Session_toJson(s);
  char *text = cJSON_Print(j);
  cJSON_Delete(j);
  if (!text) return NULL;
  size_t n = strlen(text);
  char *buf = Util_xmalloc(n + 2);
  memcpy(buf, text, n);
  buf[n] = '\n';
  buf[n + 1] = '\0';
  cJSON_free(text);
  *len = n + 1;
  return buf;
}

static bool Session_write(const Session *s, SafeFile *f, char *err, size_t errsize) {
  size_t len = 0;
  char *text = Session_text(s, &len);
  if (!text) {
    snprintf(err, errsize, "cannot format the session for %s: out of memory", f->path);
    return false;
  }
  bool ok = SafeFile_replace(f, text, len, err, errsize);
  free(text);
  return ok;
}

/* Is what f holds a benchtop session? (why: what it is instead) */
static bool Session_fileIsSession(const SafeFile *f, Session *loaded, char *why, size_t whysize) {
  size_t len = 0;
  char *data = SafeFile_content(f, SESSION_MAX_BYTES, &len, why, whysize);
  if (!data) {
    Session_clear(loaded);
    return false;
  }
  bool ok = Session_parse(data, len, f->path, loaded, why, whysize);
  free(data);
  return ok;
}

bool Session_save(const Session *s, const char *path, char *err, size_t errsize) {
  SafeFile f;
  if (!SafeFile_claim(&f, path, err, errsize)) return false;
  bool ok = true;
  if (SafeFile_exists(&f)) {
    Session old;
    char why[512];
    ok = Session_fileIsSession(&f, &old, why, sizeof why);
    Session_free(&old);
    if (!ok) snprintf(err, errsize, "%s: exists and is not a benchtop session; not replaced", path);
  }
  ok = ok && Session_write(s, &f, err, errsize);
  SafeFile_release(&f);
  return ok;
}

/* Lets go of the claimed autosave file: end is SafeFile_release (it stays) or SafeFile_discard. */
static void Session_endOutput(Session *s, void (*end)(SafeFile *)) {
  if (!s->out) return;
  end(s->out);
  free(s->out);
  s->out = NULL;
}

void Session_releaseFile(Session *s) { Session_endOutput(s, SafeFile_release); }

bool Session_saveAs(Session *s, const char *path, bool replace_other, char *err, size_t errsize) {
  SafeFile *f = Util_xcalloc(1, sizeof *f);
  bool ok = SafeFile_claim(f, path, err, errsize);
  if (ok && SafeFile_exists(f) && !replace_other && !(s->out && SafeFile_same(s->out->path, path))) {
    Session old;
    char why[512];
    ok = Session_fileIsSession(f, &old, why, sizeof why);
    Session_free(&old);
    if (!ok) snprintf(err, errsize, "%s: exists and is not a benchtop session; not replaced", path);
  }
  if (ok) ok = Session_write(s, f, err, errsize);
  if (!ok) {
    SafeFile_release(f);
    free(f);
    return false;
  }
  Session_releaseFile(s);
  s->out = f;
  Util_strlcpy(s->path, path, sizeof s->path);
  s->dirty = false;
  return true;
}

/* The first autosave: path must be new, or the file s was loaded from, unchanged since. */
static bool Session_claimOwn(Session *s, char *err, size_t errsize) {
  SafeFile *f = Util_xcalloc(1, sizeof *f);
  if (!SafeFile_claim(f, s->path, err, errsize)) {
    free(f);
    return false;
  }
  struct stat st;
  if (SafeFile_exists(f) && (fstat(f->fd, &st) != 0 || !Session_isOrigin(s, &st))) {
    snprintf(err, errsize, "%s: %s; not replaced (save under another name)", s->path,
             s->has_origin ? "changed on disk since it was opened (another program wrote it)"
                           : "already exists and is not this session's file");
    SafeFile_release(f);
    free(f);
    return false;
  }
  s->out = f;
  return true;
}

bool Session_autosave(Session *s, char *err, size_t errsize) {
  if (!s->path[0]) return true;
  if (s->out && strcmp(s->out->path, s->path) != 0) Session_releaseFile(s); /* a new target */
  if (!s->out && !Session_claimOwn(s, err, errsize)) return false;
  if (!Session_write(s, s->out, err, errsize)) return false;
  s->dirty = false;
  return true;
}

/* Moves the records, device and plan of old into s (whose plan, the new run's, is merged). */
static void Session_adopt(Session *s, Session *old) {
  Plan run = s->plan;
  s->plan = old->plan;
  Plan_merge(&s->plan, &run);
  Plan_free(&run);
  Plan_init(&old->plan);
  for (int i = 0; i < s->nrecords; i++) Record_free(&s->records[i]);
  free(s->records);
  s->records = old->records;
  s->nrecords = old->nrecords;
  s->cap = old->cap;
  old->records = NULL;
  old->nrecords = old->cap = 0;
  s->has_device = old->has_device;
  s->device = old->device;
  s->tune = old->tune; /* what earlier tunes found stays with their records */
  s->overall = old->overall;
  s->ntune = old->ntune;
  s->noverall = old->noverall;
  old->tune = NULL;
  old->overall = NULL;
  old->ntune = old->noverall = 0;
  Util_strlcpy(s->created, old->created, sizeof s->created);
  Util_strlcpy(s->note, old->note, sizeof s->note);
}

bool Session_openOutput(Session *s, const char *path, SessionOutMode mode, int *existing,
                        char *err, size_t errsize) {
  *existing = 0;
  SafeFile *f = Util_xcalloc(1, sizeof *f);
  if (!SafeFile_claim(f, path, err, errsize)) {
    free(f);
    return false;
  }
  if (SafeFile_exists(f) && mode == SESSION_OUT_NEW) {
    snprintf(err, errsize, "%s: exists already; name a new file", path);
    SafeFile_release(f);
    free(f);
    return false;
  }
  if (SafeFile_exists(f)) {
    Session old;
    char why[1024];
    bool is_session = Session_fileIsSession(f, &old, why, sizeof why);
    if (!is_session && mode != SESSION_OUT_REPLACE) {
      const char *colon = strncmp(why, path, strlen(path)) == 0 ? why + strlen(path) : ": ";
      snprintf(err, errsize, "%s: exists and is not a benchtop session (%.300s); not replaced: "
               "name another file, or add --force to replace it", path, colon + (colon[0] == ':' ? 2 : 0));
      Json_oneLine(err);
      Session_free(&old);
      SafeFile_release(f);
      free(f);
      return false;
    }
    if (is_session && mode == SESSION_OUT_APPEND) {
      *existing = old.nrecords;
      Session_adopt(s, &old);
    }
    Session_free(&old);
  }
  Session_releaseFile(s);
  s->out = f;
  Util_strlcpy(s->path, path, sizeof s->path);
  /* A new file is written now; an existing one only when a record comes (the caller may still
   * refuse to add to it: another GPU), but whether it could be is known now. */
  bool exists = SafeFile_exists(f);
  if (exists ? !SafeFile_probe(f, err, errsize) : !Session_write(s, f, err, errsize)) {
    Session_releaseFile(s);
    return false;
  }
  s->dirty = exists;
  return true;
}

void Session_discardOutput(Session *s) { Session_endOutput(s, SafeFile_discard); }

bool Session_defaultPath(char *buf, size_t size) {
  char dir[4096];
  if (!Util_sessionsDir(dir, sizeof dir)) {
    Util_strlcpy(buf, dir, size);
    return false;
  }
  Util_mkdirs(dir);
  char stamp[32];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  snprintf(buf, size, "%s/session-%s.json", dir, stamp);
  struct stat st;
  for (int i = 2; lstat(buf, &st) == 0 && i < 1000; i++)
    snprintf(buf, size, "%s/session-%s-%d.json", dir, stamp, i);
  return true;
}

bool Device_sameGpu(const DeviceInfo *a, const DeviceInfo *b) {
  return strcmp(a->name, b->name) == 0 && a->cc_major == b->cc_major && a->cc_minor == b->cc_minor;
}

bool Session_acceptsDevice(const Session *s, const DeviceInfo *d) {
  return s->nrecords == 0 || !s->has_device || Device_sameGpu(&s->device, d);
}

static bool Session_isJsonName(const char *name) {
  size_t n = strlen(name);
  return n > 5 && name[0] != '.' && strcmp(name + n - 5, ".json") == 0;
}

/* newest: the most recently modified *.json; else the first one alphabetically. Only regular
 * files owned by this user (a directory others can write to may hold planted ones). */
static bool Session_pickIn(const char *dir, bool newest, char *buf, size_t size) {
  DIR *d = opendir(dir);
  if (!d) return false;
  char best[4096] = "";
  struct timespec best_t = {0, 0};
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!Session_isJsonName(e->d_name)) continue;
    char full[4096];
    if (snprintf(full, sizeof full, "%s/%s", dir, e->d_name) >= (int)sizeof full) continue;
    struct stat st;
    if (lstat(full, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) continue;
    bool better;
    if (!best[0]) better = true;
    else if (newest)
      better = st.st_mtim.tv_sec > best_t.tv_sec ||
               (st.st_mtim.tv_sec == best_t.tv_sec && st.st_mtim.tv_nsec > best_t.tv_nsec);
    else better = strcmp(full, best) < 0;
    if (better) {
      Util_strlcpy(best, full, sizeof best);
      best_t = st.st_mtim;
    }
  }
  closedir(d);
  if (!best[0]) return false;
  Util_strlcpy(buf, best, size);
  return true;
}

bool Session_findDefault(char *buf, size_t size) {
  char dir[4096];
  if (Util_sessionsDir(dir, sizeof dir) && Session_pickIn(dir, true, buf, size)) return true;
  const char *env = getenv("BENCHTOP_EXAMPLES");
  if (env && env[0] && Session_pickIn(env, false, buf, size)) return true;
  char ex[4096];
  return DataDir_find(DATA_EXAMPLES, ex, sizeof ex) && Session_pickIn(ex, false, buf, size);
}
