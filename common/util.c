#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
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
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = Util_xmalloc(cap + 1);
  for (;;) {
    if (len == cap) {
      if (max_bytes && cap >= max_bytes) {
        free(buf);
        fclose(f);
        errno = EFBIG;
        return NULL;
      }
      cap *= 2;
      buf = Util_xrealloc(buf, cap + 1);
    }
    size_t want = cap - len;
    if (max_bytes && len + want > max_bytes) want = max_bytes - len;
    size_t got = fread(buf + len, 1, want, f);
    len += got;
    if (got == 0) break;
    if (max_bytes && len >= max_bytes) {
      int c = fgetc(f);
      if (c != EOF) {
        free(buf);
        fclose(f);
        errno = EFBIG;
        return NULL;
      }
      break;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    errno = EIO;
    return NULL;
  }
  buf[len] = '\0';
  if (len_out) *len_out = len;
  return buf;
}

bool Util_writeFileAtomic(const char *path, const char *data, size_t len, char *err, size_t errsize) {
  char *tmp = Util_asprintf("%s.tmp.%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(err, errsize, "cannot create %s: %s", tmp, strerror(errno));
    free(tmp);
    return false;
  }
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(fd, data + off, len - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      snprintf(err, errsize, "cannot write %s: %s", tmp, strerror(errno));
      close(fd);
      unlink(tmp);
      free(tmp);
      return false;
    }
    off += (size_t)w;
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    snprintf(err, errsize, "cannot flush %s: %s", tmp, strerror(errno));
    unlink(tmp);
    free(tmp);
    return false;
  }
  if (rename(tmp, path) != 0) {
    snprintf(err, errsize, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    unlink(tmp);
    free(tmp);
    return false;
  }
  free(tmp);
  return true;
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

static void Util_xdgDir(char *buf, size_t size, const char *var, const char *fallback,
                        const char *suffix) {
  const char *base = getenv(var);
  if (base && base[0] == '/') {
    snprintf(buf, size, "%s/%s", base, suffix);
    return;
  }
  const char *home = getenv("HOME");
  snprintf(buf, size, "%s/%s/%s", home && *home ? home : "/tmp", fallback, suffix);
}

void Util_cacheDir(char *buf, size_t size) {
  Util_xdgDir(buf, size, "XDG_CACHE_HOME", ".cache", "benchtop");
}

void Util_sessionsDir(char *buf, size_t size) {
  Util_xdgDir(buf, size, "XDG_DATA_HOME", ".local/share", "benchtop/sessions");
}

void Util_configDir(char *buf, size_t size) {
  Util_xdgDir(buf, size, "XDG_CONFIG_HOME", ".config", "benchtop");
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
