/* Where a plan runs (run_loop.h): --shard and --devices parsed, and the seed every shard of a
 * plan shares. */
#include "cmd/run_loop.h"

#include <stdlib.h>
#include <string.h>

#include "bench/plan_shard.h"

bool RunLoop_parseSpread(const char *shard, const char *devices, RunSpread *spread, char *err,
                         size_t errsize) {
  memset(spread, 0, sizeof *spread);
  if (shard && !(strcmp(shard, "slurm") == 0 ? Shard_fromSlurm(&spread->shard, err, errsize)
                                             : Shard_parse(shard, &spread->shard, err, errsize)))
    return false;
  if (devices) {
    spread->ndevices = RunnerPool_parseDevices(devices, spread->devices, &spread->all_devices, err,
                                               errsize);
    if (spread->ndevices < 0) return false;
  }
  return true;
}

uint64_t RunLoop_shardSeed(const Plan *plan) {
  PlanEntry *entries = NULL;
  int n = 0;
  char err[256];
  if (!Plan_expand(plan, &entries, &n, err, sizeof err)) return plan->opts.seed;
  uint64_t seed = PlanShard_seed(entries, n);
  free(entries);
  return seed;
}
