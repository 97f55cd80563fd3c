/* check-kernels' record of an all-knobs sweep: one line per build that passed (its key: variant,
 * knobs, head dimension, dtype, architecture, kernel source hash, NVRTC version and build ID; its ptxas
 * report: registers, shared memory, stack). A later run takes a build whose key is in the record
 * from it, compiles a seeded sample of those again (the audit) and every build the record lacks
 * (a kernel changed): the sweep costs a full compile once per kernel source, not once per test
 * run, and a record that does not match the compiler fails the audit. */
#ifndef BENCHTOP_CHECK_RECORD_H
#define BENCHTOP_CHECK_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/build_info.h"

typedef struct CheckRecord CheckRecord;

/* The key of one build, "variant\tknobs\tD\tdtype\tarch\thash\tnvrtc"; false when it does not
 * fit in size. */
bool CheckRecord_key(const char *variant, const char *knobs, int D, const char *dtype, const char *arch,
                     const char *source_hash, const char *nvrtc, char *key, size_t size);

CheckRecord *CheckRecord_new(void);
/* Reads FILE (at most 16 MiB; lines as CheckRecord_write makes them). NULL with one line in err
 * naming the file (and line) on a missing, oversized or malformed file. */
CheckRecord *CheckRecord_load(const char *path, char *err, size_t errsize);
void CheckRecord_free(CheckRecord *r);
/* The recorded report of key, or NULL. Call CheckRecord_seal after the last add first. */
const BuildInfo *CheckRecord_find(const CheckRecord *r, const char *key);
void CheckRecord_add(CheckRecord *r, const char *key, const BuildInfo *b);
void CheckRecord_seal(CheckRecord *r);
int CheckRecord_count(const CheckRecord *r);
/* Whether any line's NVRTC field is nvrtc ("nvrtc-13.0"). */
bool CheckRecord_hasNvrtc(const CheckRecord *r, const char *nvrtc);
/* Writes every line, sorted (it seals r), atomically (a temporary file renamed over path). */
bool CheckRecord_write(CheckRecord *r, const char *path, char *err, size_t errsize);
/* Whether the audit compiles key again: 1 in every `every` keys, chosen by a hash of key and
 * seed (every 0: none; 1: all). */
bool CheckRecord_audits(const char *key, uint64_t seed, int every);

#endif
