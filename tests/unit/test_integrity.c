/* The host side of the cheat checks (bench/worker/integrity.h): how far into a guard band a kernel
 * wrote, and the words a record's reason gets. */
#include <stdio.h>
#include <string.h>

#include "bench/worker/integrity.h"

static int failures;

static void expect(bool cond, const char *what) {
  if (!cond) {
    printf("FAIL %s\n", what);
    failures++;
  }
}

static void expect_str(const char *got, const char *want, const char *what) {
  if (strcmp(got, want) != 0) {
    printf("FAIL %s:\n  got  '%s'\n  want '%s'\n", what, got, want);
    failures++;
  }
}

int main(void) {
  enum { N = INTEGRITY_GUARD_BYTES };
  static unsigned char before[N], after[N];
  memset(before, INTEGRITY_GUARD_BYTE, N);
  memset(after, INTEGRITY_GUARD_BYTE, N);
  char reason[320] = "";
  expect(Integrity_reach(after, N, true) == 0 && Integrity_reach(before, N, false) == 0,
         "untouched bands reach 0");
  expect(!Integrity_describeBands("O", before, after, N, "", reason, sizeof reason) && !reason[0],
         "untouched bands say nothing");

  after[6] = 0x34; /* a 2-byte store at bytes 6..7 past the end, the low byte left as it was */
  after[7] = 0x12;
  expect(Integrity_reach(after, N, true) == 8, "a store at bytes 6..7 past the end reaches 8");
  before[N - 2] = 0; /* the 2 bytes just before the start */
  expect(Integrity_reach(before, N, false) == 2, "the 2 bytes before the start reach 2");
  expect(Integrity_describeBands("O", before, after, N, "", reason, sizeof reason), "touched");
  expect_str(reason, "wrote 8 bytes past the end of O; wrote 2 bytes before the start of O",
             "both bands");

  /* A value equal to the pattern at the far end is not a write; one byte at the very end is. */
  memset(after, INTEGRITY_GUARD_BYTE, N);
  after[N - 1] = 0;
  expect(Integrity_reach(after, N, true) == N, "the band's last byte reaches all of it");
  memset(before, INTEGRITY_GUARD_BYTE, N);
  before[0] = 1;
  expect(Integrity_reach(before, N, false) == N, "the band's first byte reaches all of it");
  reason[0] = '\0';
  Integrity_describeBands("the workspace", before, after, N, "during the timed launches", reason,
                          sizeof reason);
  char want[200];
  snprintf(want, sizeof want, "wrote %d bytes past the end of the workspace during the timed "
           "launches; wrote %d bytes before the start of the workspace during the timed launches",
           N, N);
  expect_str(reason, want, "a whole band, with when");

  reason[0] = '\0';
  memset(before, INTEGRITY_GUARD_BYTE, N);
  memset(after, INTEGRITY_GUARD_BYTE, N);
  after[0] = 0;
  Integrity_describeBands("O", before, after, N, NULL, reason, sizeof reason);
  expect_str(reason, "wrote 1 byte past the end of O", "one byte, singular");

  reason[0] = '\0';
  expect(!Integrity_describeInput("K", 42, 42, "", reason, sizeof reason) && !reason[0],
         "same checksum: nothing");
  expect(Integrity_describeInput("K", 42, 43, "", reason, sizeof reason), "changed checksum");
  Integrity_describeInput("V", 1, 2, "during the timed launches", reason, sizeof reason);
  expect_str(reason, "modified its input K; modified its input V during the timed launches",
             "inputs");

  /* A reason that is full stays a terminated string, whatever is appended. */
  char tiny[12] = "";
  for (int i = 0; i < 5; i++) Integrity_describeInput("Q", 1, 2, "", tiny, sizeof tiny);
  expect(strlen(tiny) < sizeof tiny, "a full reason stays terminated");
  tiny[0] = '\0';
  Integrity_describeBands("O", before, after, N, "during the timed launches", tiny, sizeof tiny);
  expect(strlen(tiny) == sizeof tiny - 1, "truncated, terminated");

  if (failures) return 1;
  printf("integrity: ok\n");
  return 0;
}
