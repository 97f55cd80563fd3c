#include "bench/protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

cJSON *Protocol_optionsToJson(const RunOptions *o) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddNumberToObject(j, "reps", o->reps);
  cJSON_AddNumberToObject(j, "warmup", o->warmup);
  cJSON_AddBoolToObject(j, "cold_l2", o->cold_l2);
  cJSON_AddBoolToObject(j, "graph", o->graph);
  cJSON_AddBoolToObject(j, "event_timing", o->event_timing);
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed); /* > 2^53: keep exact */
  cJSON_AddStringToObject(j, "seed", seed);
  cJSON_AddNumberToObject(j, "watchdog_s", o->watchdog_s);
  cJSON_AddStringToObject(j, "l2_persist", o->l2_persist);
  cJSON_AddNumberToObject(j, "span_s", o->span_s);
  return j;
}

void Protocol_optionsFromJson(const cJSON *j, RunOptions *o) {
  Plan_defaultOptions(o);
  const cJSON *x;
  if ((x = cJSON_GetObjectItemCaseSensitive(j, "reps")) && cJSON_IsNumber(x)) o->reps = x->valueint;
  if ((x = cJSON_GetObjectItemCaseSensitive(j, "warmup")) && cJSON_IsNumber(x)) o->warmup = x->valueint;
  if ((x = cJSON_GetObjectItemCaseSensitive(j, "cold_l2"))) o->cold_l2 = cJSON_IsTrue(x);
  if ((x = cJSON_GetObjectItemCaseSensitive(j, "graph"))) o->graph = cJSON_IsTrue(x);
  if ((x = cJSON_GetObjectItemCaseSensitive(j, "event_timing"))) o->event_timing = cJSON_IsTrue(x);
  if ((x = cJSON_GetObjectItemCaseSensitive(j, "seed")) && cJSON_IsString(x))
    o->seed = strtoull(x->valuestring, NULL, 10);
  if ((x = cJSON_GetObjectItemCaseSensitive(j, "watchdog_s")) && cJSON_IsNumber(x))
    o->watchdog_s = x->valuedouble;
  if ((x = cJSON_GetObjectItemCaseSensitive(j, "l2_persist")) && cJSON_IsString(x))
    Util_strlcpy(o->l2_persist, x->valuestring, sizeof o->l2_persist); /* checked where used */
  if ((x = cJSON_GetObjectItemCaseSensitive(j, "span_s")) && cJSON_IsNumber(x) &&
      ((x->valuedouble >= 0 && x->valuedouble <= PLAN_SPAN_MAX) || x->valuedouble == -1))
    o->span_s = x->valuedouble; /* -1: back to back */
}

static char *Protocol_encode(const PlanEntry *e, int id, const char *op) {
  cJSON *j = cJSON_CreateObject();
  char knobs[KNOB_TEXT_MAX], shape[64];
  Registry_formatKnobs(e->variant, &e->knobs, knobs, sizeof knobs);
  Shape_format(&e->shape, shape, sizeof shape);
  cJSON_AddStringToObject(j, "op", op);
  cJSON_AddNumberToObject(j, "id", id);
  cJSON_AddStringToObject(j, "variant", e->variant->name);
  cJSON_AddStringToObject(j, "knobs", knobs);
  cJSON_AddStringToObject(j, "shape", shape);
  cJSON_AddItemToObject(j, "opts", Protocol_optionsToJson(&e->opts));
  cJSON_AddStringToObject(j, "metrics", e->metrics);
  char *text = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  char *line = Util_asprintf("%s\n", text);
  cJSON_free(text);
  return line;
}

char *Protocol_encodeEntry(const PlanEntry *e, int id) { return Protocol_encode(e, id, "run"); }

char *Protocol_encodeBuild(const PlanEntry *e, int id) { return Protocol_encode(e, id, "build"); }

void Protocol_requestRecord(const cJSON *msg, Record *rec) {
  Record_init(rec);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, "variant");
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(msg, "knobs");
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(msg, "shape");
  char why[200];
  if (cJSON_IsString(v)) Util_strlcpy(rec->variant, v->valuestring, sizeof rec->variant);
  if (cJSON_IsString(k)) Util_strlcpy(rec->knobs, k->valuestring, sizeof rec->knobs);
  if (cJSON_IsString(s) && !Shape_parse(s->valuestring, &rec->shape, why, sizeof why))
    memset(&rec->shape, 0, sizeof rec->shape);
}

bool Protocol_decodeEntry(const cJSON *msg, PlanEntry *e, int *id, char *err, size_t errsize) {
  memset(e, 0, sizeof *e);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, "variant");
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(msg, "knobs");
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(msg, "shape");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "metrics");
  const cJSON *i = cJSON_GetObjectItemCaseSensitive(msg, "id");
  if (!cJSON_IsString(v) || !cJSON_IsString(k) || !cJSON_IsString(s) || !cJSON_IsNumber(i)) {
    snprintf(err, errsize, "protocol: run request lacks variant, knobs, shape or id");
    return false;
  }
  *id = i->valueint;
  e->variant = Registry_find(v->valuestring);
  if (!e->variant) {
    snprintf(err, errsize, "unknown variant '%s'", v->valuestring);
    return false;
  }
  Registry_defaults(e->variant, &e->knobs);
  if (!Registry_applyKnobs(e->variant, k->valuestring, &e->knobs, false, err, errsize)) return false;
  if (!Shape_parse(s->valuestring, &e->shape, err, errsize)) return false;
  Protocol_optionsFromJson(cJSON_GetObjectItemCaseSensitive(msg, "opts"), &e->opts);
  const char *metrics = cJSON_IsString(m) ? m->valuestring : "default";
  if (strlen(metrics) >= sizeof e->metrics) { /* the parent refuses longer lists; never cut one */
    snprintf(err, errsize, "protocol: the metrics list is %zu bytes; at most %zu", strlen(metrics),
             sizeof e->metrics - 1);
    return false;
  }
  Util_strlcpy(e->metrics, metrics, sizeof e->metrics);
  return true;
}
