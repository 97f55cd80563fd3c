/* A minimal test harness: CHECK records a failure and goes on; main returns Check_done(). */
#ifndef BENCHTOP_CHECK_H
#define BENCHTOP_CHECK_H

#include <stdio.h>

static int Check_failures, Check_count;

#define CHECK(cond)                                                          \
  do {                                                                       \
    Check_count++;                                                           \
    if (!(cond)) {                                                           \
      Check_failures++;                                                      \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                        \
  } while (0)

static inline int Check_done(const char *name) {
  printf("%s: %d checks, %d failed\n", name, Check_count, Check_failures);
  return Check_failures ? 1 : 0;
}

#endif
