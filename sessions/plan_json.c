/* The plan (what the user asked for, what replay re-runs): lifecycle, JSON, equality. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "sessions/json_fields.h"
#include "sessions/session.h"

#define PLAN_STR_MAX 4096 /* a longer variant name or knob sweep in a file is refused */

void Plan_init(Plan *p) {
  memset(p, 0, sizeof *p);
  RunOptions_init(&p->opts);
}

static void Plan_freeStrings(char **v, int n) {
  for (int i = 0; i < n; i++) free(v[i]);
  free(v);
}

void Plan_free(Plan *p) {
  Plan_freeStrings(p->variants, p->nvariants);
  Plan_freeStrings(p->knobs, p->nknobs);
  free(p->shapes);
  p->variants = p->knobs = NULL;
  p->shapes = NULL;
  p->nvariants = p->nknobs = p->nshapes = 0;
}

static char **Plan_copyStrings(char *const *v, int n) {
  if (n <= 0 || !v) return NULL;
  char **out = Util_xmalloc(sizeof(char *) * (size_t)n);
  for (int i = 0; i < n; i++) out[i] = Util_xstrdup(v[i] ? v[i] : "");
  return out;
}

void Plan_copy(Plan *dst, const Plan *src) {
  *dst = *src;
  dst->variants = Plan_copyStrings(src->variants, src->nvariants);
  dst->knobs = Plan_copyStrings(src->knobs, src->nknobs);
  dst->nvariants = dst->variants ? src->nvariants : 0;
  dst->nknobs = dst->knobs ? src->nknobs : 0;
  dst->shapes = NULL;
  if (src->nshapes > 0 && src->shapes) {
    dst->shapes = Util_xmalloc(sizeof(Shape) * (size_t)src->nshapes);
    memcpy(dst->shapes, src->shapes, sizeof(Shape) * (size_t)src->nshapes);
  } else {
    dst->nshapes = 0;
  }
}

static cJSON *Plan_stringArray(char *const *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(v[i] ? v[i] : ""));
  return a;
}

cJSON *Plan_toJson(const Plan *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "variants", Plan_stringArray(p->variants, p->nvariants));
  cJSON *shapes = cJSON_AddArrayToObject(o, "shapes");
  for (int i = 0; i < p->nshapes; i++) {
    char buf[64];
    Shape_format(&p->shapes[i], buf, sizeof buf);
    cJSON_AddItemToArray(shapes, cJSON_CreateString(buf));
  }
  cJSON_AddItemToObject(o, "knobs", Plan_stringArray(p->knobs, p->nknobs));
  cJSON_AddStringToObject(o, "metrics", p->metrics);
  cJSON_AddItemToObject(o, "options", RunOptions_toJson(&p->opts));
  return o;
}

/* An array of strings under key; out and n are set even on failure (freed by Plan_free). */
static bool Plan_readStrings(const cJSON *obj, const char *key, size_t max, char ***out, int *n,
                             const char *path, char *err, size_t errsize) {
  bool ok = true;
  const cJSON *a = Json_member(obj, key, cJSON_Array, false, path, &ok, err, errsize);
  if (!ok || !a) return ok;
  int count = cJSON_GetArraySize(a);
  if (count == 0) return true;
  *out = Util_xcalloc((size_t)count, sizeof(char *));
  char *buf = Util_xmalloc(max);
  int i = 0;
  for (const cJSON *v = a->child; v; v = v->next, i++) {
    char k[64];
    snprintf(k, sizeof k, "%s[%d]", key, i);
    if (cJSON_IsNull(v) || !Json_readStr(v, buf, max, path, k, err, errsize)) {
      if (cJSON_IsNull(v)) snprintf(err, errsize, "%s.%s: expected a string", path, k);
      free(buf);
      return false;
    }
    (*out)[i] = Util_xstrdup(buf);
    *n = i + 1;
  }
  free(buf);
  return true;
}

bool Plan_fromJson(const cJSON *j, Plan *out, const char *path, char *err, size_t errsize) {
  Plan_init(out);
  if (!cJSON_IsObject(j)) {
    snprintf(err, errsize, "%s: expected an object", path);
    return false;
  }
  if (!Plan_readStrings(j, "variants", RECORD_NAME_MAX, &out->variants, &out->nvariants, path,
                        err, errsize) ||
      !Plan_readStrings(j, "knobs", PLAN_STR_MAX, &out->knobs, &out->nknobs, path, err, errsize))
    goto fail;
  char **shapes = NULL;
  int nshapes = 0;
  bool ok = Plan_readStrings(j, "shapes", 64, &shapes, &nshapes, path, err, errsize);
  if (ok && nshapes > 0) {
    out->shapes = Util_xcalloc((size_t)nshapes, sizeof(Shape));
    for (int i = 0; i < nshapes && ok; i++) {
      char why[200];
      ok = Shape_parse(shapes[i], &out->shapes[i], why, sizeof why);
      if (!ok) snprintf(err, errsize, "%s.shapes[%d]: %s", path, i, why);
      else out->nshapes = i + 1;
    }
  }
  Plan_freeStrings(shapes, nshapes);
  if (!ok) goto fail;
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "metrics");
  if (m && !Json_readStr(m, out->metrics, sizeof out->metrics, path, "metrics", err, errsize))
    goto fail;
  const cJSON *o = Json_member(j, "options", cJSON_Object, false, path, &ok, err, errsize);
  char op[320];
  if (!ok || (o && !RunOptions_fromJson(o, &out->opts, Json_join(op, sizeof op, path, "options"),
                                        err, errsize)))
    goto fail;
  return true;
fail:
  Plan_free(out);
  return false;
}

static bool Plan_stringsEqual(char *const *a, int na, char *const *b, int nb, const char *path,
                              const char *key, char *where, size_t wsize) {
  if (na != nb) {
    snprintf(where, wsize, "%s.%s (%d vs %d entries)", path, key, na, nb);
    return false;
  }
  for (int i = 0; i < na; i++) {
    if (strcmp(a[i], b[i]) != 0) {
      snprintf(where, wsize, "%s.%s[%d]", path, key, i);
      return false;
    }
  }
  return true;
}

bool Plan_equal(const Plan *a, const Plan *b, const char *path, char *where, size_t wsize) {
  if (!Plan_stringsEqual(a->variants, a->nvariants, b->variants, b->nvariants, path, "variants",
                         where, wsize) ||
      !Plan_stringsEqual(a->knobs, a->nknobs, b->knobs, b->nknobs, path, "knobs", where, wsize))
    return false;
  if (a->nshapes != b->nshapes) {
    snprintf(where, wsize, "%s.shapes (%d vs %d entries)", path, a->nshapes, b->nshapes);
    return false;
  }
  for (int i = 0; i < a->nshapes; i++) {
    if (!Shape_equal(&a->shapes[i], &b->shapes[i])) {
      snprintf(where, wsize, "%s.shapes[%d]", path, i);
      return false;
    }
  }
  if (strcmp(a->metrics, b->metrics) != 0) {
    snprintf(where, wsize, "%s.metrics", path);
    return false;
  }
  char op[320];
  return RunOptions_equal(&a->opts, &b->opts, Json_join(op, sizeof op, path, "options"), where,
                          wsize);
}
