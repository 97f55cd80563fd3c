/* Plan_check: the plan from a file against what the worker takes (see plan.h). */
#include "bench/plan.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench/l2persist.h"

bool Plan_check(const Plan *p, char *err, size_t errsize) {
  const RunOptions *o = &p->opts;
  if (o->reps < PLAN_REPS_MIN || o->reps > PLAN_REPS_MAX) {
    snprintf(err, errsize, "options.reps is %d: must be 1 to %d", o->reps, PLAN_REPS_MAX);
    return false;
  }
  if (o->warmup < PLAN_WARMUP_MIN || o->warmup > PLAN_WARMUP_MAX) {
    snprintf(err, errsize, "options.warmup is %d: must be 0 to %d", o->warmup, PLAN_WARMUP_MAX);
    return false;
  }
  if (!(o->watchdog_s >= PLAN_WATCHDOG_MIN && o->watchdog_s <= PLAN_WATCHDOG_MAX)) {
    snprintf(err, errsize, "options.watchdog_s is %g: must be %d to %d seconds", o->watchdog_s,
             PLAN_WATCHDOG_MIN, PLAN_WATCHDOG_MAX);
    return false;
  }
  if (!((o->span_s >= 0 && o->span_s <= PLAN_SPAN_MAX) || o->span_s == -1)) {
    snprintf(err, errsize, "options.span_s is %g: must be 0 to %d seconds, or -1 (back to back)",
             o->span_s, PLAN_SPAN_MAX);
    return false;
  }
  L2PersistWhich l2p;
  if (!L2Persist_parse(o->l2_persist, &l2p)) {
    snprintf(err, errsize, "options.l2_persist is \"%.8s\": must be kv, q, qkv or off", o->l2_persist);
    return false;
  }
  PlanEntry *entries = NULL;
  int n = 0;
  bool ok = Plan_expand(p, &entries, &n, err, errsize);
  free(entries);
  return ok;
}
