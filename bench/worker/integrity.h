/* What a kernel may not do besides computing a wrong answer: write out of bounds, change its
 * inputs, or stop computing once verified. The host side of those checks (no CUDA here, so it
 * is tested on any machine): reading a guard band and wording what was found. The worker's
 * GPU side is bench/worker/measure_guard.c. */
#ifndef BENCHTOP_INTEGRITY_H
#define BENCHTOP_INTEGRITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes on each side of every buffer a kernel is handed, set to INTEGRITY_GUARD_BYTE before a
 * checked launch. A multiple of 256: the buffer after it stays as aligned as cudaMalloc's. */
#define INTEGRITY_GUARD_BYTES 1024
#define INTEGRITY_GUARD_BYTE 0xA5

/* How far into a band a kernel wrote: for the band after a buffer, the offset of the last
 * changed byte plus one; for the band before it, the distance from the first changed byte to
 * the buffer's start. 0 when the band is untouched. */
size_t Integrity_reach(const unsigned char *band, size_t n, bool after);

/* Appends "wrote N bytes past the end of NAME" and/or "wrote N bytes before the start of NAME"
 * (then " WHEN" when given) to reason, "; "-separated. True when either band was touched. */
bool Integrity_describeBands(const char *name, const unsigned char *before,
                             const unsigned char *after, size_t n, const char *when,
                             char *reason, size_t size);

/* Appends "modified its input NAME" (then " WHEN") when the checksums differ. */
bool Integrity_describeInput(const char *name, uint64_t was, uint64_t now, const char *when,
                             char *reason, size_t size);

#endif
