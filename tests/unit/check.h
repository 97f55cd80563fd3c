/* A minimal test harness: CHECK records a failure and goes on (CHECKF also prints a printf-style
 * note of the values involved); main returns Check_done(). */
#ifndef BENCHTOP_CHECK_H
#define BENCHTOP_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int Check_failures, Check_count;

static inline void Check_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void Check_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
  char note[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(note, sizeof note, fmt, ap);
  va_end(ap);
  Check_failures++;
  fprintf(stderr, "%s:%d: check failed: %s%s%s\n", file, line, cond, note[0] ? ": " : "", note);
}

#define CHECKF(cond, ...)                                                 \
  do {                                                                    \
    Check_count++;                                                        \
    if (!(cond)) Check_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);      \
  } while (0)
#define CHECK(cond) CHECKF(cond, "%s", "")

static inline int Check_done(const char *name) {
  printf("%s: %d checks, %d failed\n", name, Check_count, Check_failures);
  return Check_failures ? 1 : 0;
}

#endif
