/* Merging shard sessions (run --shard I/N on several hosts) into one session, in plan order,
 * as if one host had run the whole plan. Nothing is dropped or doubled without a word: every
 * shard of the plan must be there exactly once, each complete, all from the same plan (same
 * plan hash, same schema); each problem is one line, and then nothing is merged. */
#ifndef BENCHTOP_MERGE_H
#define BENCHTOP_MERGE_H

#include <stdbool.h>

#include "sessions/session.h"

/* What went wrong (one line each, printable) and what to know (mixed GPUs, several hosts). */
typedef struct MergeReport {
  int nproblems, nnotes;
  char **problems, **notes;
} MergeReport;

/* shards[i] was loaded from names[i]. On success out is a new session (caller frees) with
 * every record in plan order, each keeping its host and device (from its shard when the record
 * lacks them). On failure out is untouched and report says why. */
bool Merge_shards(const Session *shards, const char *const *names, int n, Session *out,
                  MergeReport *report);
void MergeReport_add(MergeReport *r, bool problem, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void MergeReport_free(MergeReport *r);

#endif
