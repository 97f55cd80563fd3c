/* A record's replicate medians (Timing.replicate_p50) in its JSON form: the optional array
 * timing.replicate_p50, absent in sessions written before it existed. */
#ifndef BENCHTOP_RECORD_REPLICATES_H
#define BENCHTOP_RECORD_REPLICATES_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sessions/record.h"

/* Adds "replicate_p50" to the timing object when the record has any. */
void Replicates_write(cJSON *timing, const Timing *t);
/* Reads the optional "replicate_p50" of the timing object at path: positive finite numbers,
 * at most RECORD_REPLICATES_MAX (more is refused in one line naming the limit). */
bool Replicates_read(const cJSON *timing, Timing *t, const char *path, char *err,
                     size_t errsize);
/* Whether both hold the same replicates; where names the first difference. */
bool Replicates_equal(const Timing *a, const Timing *b, const char *path, char *where,
                      size_t wsize);

#endif
