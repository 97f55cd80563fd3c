/* timing.replicate_p50: the medians of a record's independently allocated input sets. */
#include "sessions/record_replicates.h"

#include <math.h>
#include <stdio.h>

#include "sessions/json_fields.h"

void Replicates_write(cJSON *timing, const Timing *t) {
  if (t->nreplicates <= 0) return; /* optional: absent when not measured */
  cJSON *a = cJSON_AddArrayToObject(timing, "replicate_p50");
  for (int i = 0; i < t->nreplicates && i < RECORD_REPLICATES_MAX; i++)
    cJSON_AddItemToArray(a, Json_number(t->replicate_p50[i]));
}

bool Replicates_read(const cJSON *timing, Timing *t, const char *path, char *err,
                     size_t errsize) {
  bool ok = true;
  const cJSON *a = Json_member(timing, "replicate_p50", cJSON_Array, false, path, &ok, err, errsize);
  if (!ok) return false;
  t->nreplicates = 0;
  if (!a) return true;
  int n = cJSON_GetArraySize(a);
  if (n > RECORD_REPLICATES_MAX) {
    snprintf(err, errsize, "%s.replicate_p50: %d replicates, at most %d are read", path, n,
             RECORD_REPLICATES_MAX);
    return false;
  }
  int i = 0;
  for (const cJSON *v = a->child; v; v = v->next, i++) {
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble <= 0) {
      snprintf(err, errsize, "%s.replicate_p50[%d]: expected a positive number", path, i);
      return false;
    }
    t->replicate_p50[i] = v->valuedouble;
  }
  t->nreplicates = n;
  return true;
}

bool Replicates_equal(const Timing *a, const Timing *b, const char *path, char *where,
                      size_t wsize) {
  bool same = a->nreplicates == b->nreplicates;
  for (int i = 0; same && i < a->nreplicates; i++)
    same = Json_doubleEqual(a->replicate_p50[i], b->replicate_p50[i]);
  if (!same) snprintf(where, wsize, "%s.timing.replicate_p50", path);
  return same;
}
