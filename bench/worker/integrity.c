/* Guard bands and input checksums, read on the host (bench/worker/integrity.h). */
#include "bench/worker/integrity.h"

#include <stdio.h>
#include <string.h>

size_t Integrity_reach(const unsigned char *band, size_t n, bool after) {
  if (after) {
    for (size_t i = n; i > 0; i--)
      if (band[i - 1] != INTEGRITY_GUARD_BYTE) return i;
    return 0;
  }
  for (size_t i = 0; i < n; i++)
    if (band[i] != INTEGRITY_GUARD_BYTE) return n - i;
  return 0;
}

/* "WHAT[ N bytes]WHERE[ WHEN]", after a "; " when reason holds something already. */
static void Integrity_append(char *reason, size_t size, const char *what, size_t bytes,
                             const char *where, const char *when) {
  size_t len = strlen(reason);
  if (len + 1 >= size) return;
  char count[48] = "";
  if (bytes) snprintf(count, sizeof count, " %zu byte%s", bytes, bytes == 1 ? "" : "s");
  snprintf(reason + len, size - len, "%s%s%s%s%s%s", len ? "; " : "", what, count, where,
           when && *when ? " " : "", when ? when : "");
}

bool Integrity_describeBands(const char *name, const unsigned char *before,
                             const unsigned char *after, size_t n, const char *when,
                             char *reason, size_t size) {
  size_t past = Integrity_reach(after, n, true), early = Integrity_reach(before, n, false);
  char where[96];
  if (past) {
    snprintf(where, sizeof where, " past the end of %s", name);
    Integrity_append(reason, size, "wrote", past, where, when);
  }
  if (early) {
    snprintf(where, sizeof where, " before the start of %s", name);
    Integrity_append(reason, size, "wrote", early, where, when);
  }
  return past || early;
}

bool Integrity_describeInput(const char *name, uint64_t was, uint64_t now, const char *when,
                             char *reason, size_t size) {
  if (was == now) return false;
  char what[64];
  snprintf(what, sizeof what, "modified its input %s", name);
  Integrity_append(reason, size, what, 0, "", when);
  return true;
}
