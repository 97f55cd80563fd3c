/* Small helpers every module uses: checked allocation, bounded strings, clocks, paths,
 * atomic file writes. No CUDA, no ncurses here. */
#ifndef BENCHTOP_UTIL_H
#define BENCHTOP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes documented in README.md ("Exit codes"). */
enum {
  BT_EXIT_OK = 0,
  BT_EXIT_FAILED = 1,   /* a verification failed, a diff passed its threshold, a bad file */
  BT_EXIT_USAGE = 2,    /* bad command line */
  BT_EXIT_NO_GPU = 3,   /* the command needs a CUDA device and there is none */
  BT_EXIT_INTERRUPTED = 130, /* SIGINT, SIGTERM or SIGHUP: what finished was saved */
  BT_EXIT_SKIP = 77,    /* tests only: skipped (meson's convention) */
};

void *Util_xmalloc(size_t n);
void *Util_xcalloc(size_t count, size_t size);
void *Util_xrealloc(void *p, size_t n);
char *Util_xstrdup(const char *s);

/* Copies at most size-1 bytes and always terminates; returns strlen(src). */
size_t Util_strlcpy(char *dst, const char *src, size_t size);
/* printf into a fresh heap string. */
char *Util_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool Util_startsWith(const char *s, const char *prefix);

/* Monotonic clock in milliseconds. */
double Util_nowMs(void);
/* Wall-clock time as ISO 8601 UTC ("2026-11-22T01:34:59Z"). */
void Util_isoTime(char *buf, size_t size);

/* Whole file into a NUL-terminated heap buffer; NULL with errno set on failure. Only regular
 * files (a FIFO or a directory fails at once: SafeFile_openRead). max_bytes bounds what is read
 * (0: no bound; more is EFBIG). SafeFile_read says what went wrong in words. */
char *Util_readFile(const char *path, size_t *len_out, size_t max_bytes);
/* Write-to-temp, fsync, rename: a reader sees the old file or the new one, never half. Refuses
 * to replace anything but a regular file; see common/safe_file.h. */
bool Util_writeFileAtomic(const char *path, const char *data, size_t len, char *err, size_t errsize);
/* mkdir -p */
bool Util_mkdirs(const char *path);

/* $XDG_CACHE_HOME/benchtop, $XDG_DATA_HOME/benchtop/sessions, $XDG_CONFIG_HOME/benchtop (the
 * XDG variable unset: under HOME, or the home directory of the password database). False, with
 * the reason in buf, when there is no home directory at all: never a shared /tmp. */
bool Util_cacheDir(char *buf, size_t size);
bool Util_sessionsDir(char *buf, size_t size);
bool Util_configDir(char *buf, size_t size);

/* 64-bit FNV-1a, for cache keys and source hashes. */
uint64_t Util_hash64(const void *data, size_t len, uint64_t seed);

#endif
