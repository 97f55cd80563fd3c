#include "common/util.h"

#include "common/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void Util_oom(size_t n) {
  fprintf(stderr, "benchtop: out of memory allocating %zu bytes\n", n);
  abort();
}

void *Util_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) Util_oom(n);
  return p;
}

void *Util_xcalloc(size_t count, size_t size) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) Util_oom(count * size);
  return p;
}

void *Util_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) Util_oom(n);
  return q;
}

char *Util_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = Util_xmalloc(n);
  memcpy(d, s, n);
  return d;
}

size_t Util_strlcpy(char *dst, const char *src, size_t size) {
  size_t n = strlen(src);
  if (size) {
    size_t c = n < size - 1 ? n : size - 1;
    memcpy(dst, src, c);
    dst[c] = '\0';
  }
  return n;
}

char *Util_asprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  char *s = Util_xmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

bool Util_startsWith(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

double Util_nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void Util_isoTime(char *buf, size_t size) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

char *Util_readFile(const char *path, size_t *len_out, size_t max_bytes) {
  char err[8];
  int fd = SafeFile_openRead(path, max_bytes, err, sizeof err);
  if (fd < 0) return NULL;
  char *data = SafeFile_readFd(fd, max_bytes, len_out);
  int e = errno;
  close(fd);
  errno = e;
  return data;
}

bool Util_writeFileAtomic(const char *path, const char *data, size_t len, char *err, size_t errsize) {
  SafeFile f;
  if (!SafeFile_claim(&f, path, err, errsize)) return false;
  bool ok = SafeFile_replace(&f, data, len, err, errsize);
  SafeFile_release(&f);
  return ok;
}

bool Util_mkdirs(const char *path) {
  char buf[4096];
  if (Util_strlcpy(buf, path, sizeof buf) >= sizeof buf) return false;
  for (char *p = buf + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      if (mkdir(buf, 0755) != 0 && errno != EEXIST) return false;
      *p = '/';
    }
  }
  return mkdir(buf, 0755) == 0 || errno == EEXIST;
}

/* $VAR/suffix, else HOME/fallback/suffix, HOME from the environment or else the password
 * database. Never a shared directory such as /tmp: anyone could plant files there. */
static bool Util_xdgDir(char *buf, size_t size, const char *var, const char *fallback,
                        const char *suffix) {
  const char *base = getenv(var);
  if (base && base[0] == '/') {
    snprintf(buf, size, "%s/%s", base, suffix);
    return true;
  }
  const char *home = getenv("HOME");
  if (!home || home[0] != '/') {
    struct passwd *pw = getpwuid(getuid());
    home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
  }
  if (!home) {
    snprintf(buf, size, "(no directory: neither %s nor HOME is set)", var);
    return false;
  }
  snprintf(buf, size, "%s/%s/%s", strcmp(home, "/") == 0 ? "" : home, fallback, suffix);
  return true;
}

bool Util_cacheDir(char *buf, size_t size) {
  return Util_xdgDir(buf, size, "XDG_CACHE_HOME", ".cache", "benchtop");
}

bool Util_sessionsDir(char *buf, size_t size) {
  return Util_xdgDir(buf, size, "XDG_DATA_HOME", ".local/share", "benchtop/sessions");
}

bool Util_configDir(char *buf, size_t size) {
  return Util_xdgDir(buf, size, "XDG_CONFIG_HOME", ".config", "benchtop");
}

uint64_t Util_hash64(const void *data, size_t len, uint64_t seed) {
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ULL ^ seed;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}
