/* Shards: one plan cut into N deterministic slices, run on N hosts (a Slurm job array) and
 * merged back (sessions/merge.h). The slicing is round-robin over the expanded plan: entry k
 * (counting from 0, in plan order) belongs to shard (k mod N) + 1. The plan is ordered variant
 * by variant, so contiguous blocks would give one host every slow entry of one variant;
 * round-robin spreads each variant over every shard. Every host expands the same command line
 * to the same entries, so every host computes the same slices; the plan hash (a hash of every
 * entry's variant, knobs, shape, options and metrics, in order) lets merge check that they did. */
#ifndef BENCHTOP_SHARD_H
#define BENCHTOP_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sessions/record.h"

#define SHARD_MAX 100000
#define SHARD_HASH_LEN 16 /* hex digits */

/* Which slice: index 1..count; count 0 means the whole plan (not a shard). */
typedef struct ShardSpec {
  int index, count;
} ShardSpec;

/* What a shard session carries so that merge can check its shards belong together. */
typedef struct ShardInfo {
  ShardSpec spec;      /* count 0: not a shard */
  int plan_size;       /* entries in the whole plan */
  char plan_hash[SHARD_HASH_LEN + 1];
} ShardInfo;

/* "I/N" with 1 <= I <= N <= SHARD_MAX. */
bool Shard_parse(const char *text, ShardSpec *out, char *err, size_t errsize);
/* From a Slurm job array's environment: SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN (0 when
 * unset), SLURM_ARRAY_TASK_STEP (1) and SLURM_ARRAY_TASK_COUNT (else from _MAX): task
 * MIN + k*STEP is shard k+1 of COUNT. Tasks that are not evenly spaced give one line. */
bool Shard_fromSlurm(ShardSpec *out, char *err, size_t errsize);
/* Whether plan entry k (from 0) belongs to the shard; every entry belongs to count 0. */
bool Shard_owns(const ShardSpec *s, int k);
/* How many of a plan's total entries the shard holds. */
int Shard_size(const ShardSpec *s, int total);
/* "2/4" (or "all"). */
void Shard_format(const ShardSpec *s, char *buf, size_t size);

/* The plan hash, one entry at a time in plan order (start with SHARD_HASH_SEED). */
#define SHARD_HASH_SEED 0x62656e6368746f70ull
uint64_t Shard_hashEntry(uint64_t h, const char *variant, const char *knobs, const Shape *shape,
                         const RunOptions *o, const char *metrics);
void Shard_formatHash(uint64_t h, char *buf, size_t size);

#endif
