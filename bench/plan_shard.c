#include "bench/plan_shard.h"

#include "sessions/shard.h"

static uint64_t PlanShard_hashWith(const PlanEntry *entries, int n, bool seeds) {
  uint64_t h = SHARD_HASH_SEED;
  for (int i = 0; i < n; i++) {
    const PlanEntry *e = &entries[i];
    char knobs[RECORD_KNOBS_MAX];
    Registry_formatKnobs(e->variant, &e->knobs, knobs, sizeof knobs);
    RunOptions o = e->opts;
    if (!seeds) o.seed = 0;
    h = Shard_hashEntry(h, e->variant->name, knobs, &e->shape, &o, e->metrics);
  }
  return h;
}

uint64_t PlanShard_hash(const PlanEntry *entries, int n) {
  return PlanShard_hashWith(entries, n, true);
}

uint64_t PlanShard_seed(const PlanEntry *entries, int n) {
  return PlanShard_hashWith(entries, n, false);
}
