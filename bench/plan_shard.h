/* The plan hash of expanded entries (see sessions/shard.h): what shard sessions carry so that
 * merge can tell that every host ran slices of the same plan. */
#ifndef BENCHTOP_PLAN_SHARD_H
#define BENCHTOP_PLAN_SHARD_H

#include <stdint.h>

#include "bench/plan.h"

/* Every entry's variant, canonical knobs, shape, options (seed included) and metrics, in
 * order. */
uint64_t PlanShard_hash(const PlanEntry *entries, int n);
/* The same with every seed left out: the base seed of a sharded plan given no --seed, so
 * that every host draws the same inputs without being told. */
uint64_t PlanShard_seed(const PlanEntry *entries, int n);

#endif
