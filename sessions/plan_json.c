/* The plan (what the user asked for, what replay re-runs): lifecycle, JSON, equality, and the
 * reading of the flat knob list of benchtop.session/1 plans. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/knobs.h"
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

static void PlanVariant_free(PlanVariant *v) {
  free(v->name);
  Plan_freeStrings(v->knobs, v->nknobs);
  free(v->shapes);
  memset(v, 0, sizeof *v);
}

void Plan_free(Plan *p) {
  for (int i = 0; i < p->nvariants; i++) PlanVariant_free(&p->variants[i]);
  free(p->variants);
  free(p->shapes);
  p->variants = NULL;
  p->shapes = NULL;
  p->nvariants = p->nshapes = 0;
}

static Shape *Plan_copyShapes(const Shape *s, int n) {
  if (n <= 0 || !s) return NULL;
  Shape *out = Util_xmalloc(sizeof(Shape) * (size_t)n);
  memcpy(out, s, sizeof(Shape) * (size_t)n);
  return out;
}

void Plan_copy(Plan *dst, const Plan *src) {
  *dst = *src;
  dst->variants = NULL;
  dst->nvariants = 0;
  for (int i = 0; i < src->nvariants; i++) {
    const PlanVariant *sv = &src->variants[i];
    PlanVariant *dv = Plan_addVariant(dst, sv->name ? sv->name : "");
    for (int k = 0; k < sv->nknobs; k++) PlanVariant_setKnob(dv, sv->knobs[k]);
    dv->shapes = Plan_copyShapes(sv->shapes, sv->nshapes);
    dv->nshapes = dv->shapes ? sv->nshapes : 0;
  }
  dst->shapes = Plan_copyShapes(src->shapes, src->nshapes);
  dst->nshapes = dst->shapes ? src->nshapes : 0;
}

PlanVariant *Plan_addVariant(Plan *p, const char *name) {
  p->variants = Util_xrealloc(p->variants, sizeof(PlanVariant) * (size_t)(p->nvariants + 1));
  PlanVariant *v = &p->variants[p->nvariants++];
  memset(v, 0, sizeof *v);
  v->name = Util_xstrdup(name);
  return v;
}

void Plan_removeVariant(Plan *p, int i) {
  if (i < 0 || i >= p->nvariants) return;
  PlanVariant_free(&p->variants[i]);
  memmove(&p->variants[i], &p->variants[i + 1], sizeof(PlanVariant) * (size_t)(p->nvariants - i - 1));
  p->nvariants--;
}

void PlanVariant_setKnob(PlanVariant *v, const char *spec) {
  size_t n = KnobText_nameLen(spec);
  for (int k = 0; k < v->nknobs; k++)
    if (KnobText_nameLen(v->knobs[k]) == n && strncmp(v->knobs[k], spec, n) == 0) {
      free(v->knobs[k]);
      v->knobs[k] = Util_xstrdup(spec);
      return;
    }
  v->knobs = Util_xrealloc(v->knobs, sizeof(char *) * (size_t)(v->nknobs + 1));
  v->knobs[v->nknobs++] = Util_xstrdup(spec);
}

const Shape *Plan_shapesOf(const Plan *p, const PlanVariant *v, int *n) {
  *n = v->nshapes > 0 ? v->nshapes : p->nshapes;
  return v->nshapes > 0 ? v->shapes : p->shapes;
}

static cJSON *Plan_stringArray(char *const *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(v[i] ? v[i] : ""));
  return a;
}

static cJSON *Plan_shapeArray(const Shape *s, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) {
    char buf[64];
    Shape_format(&s[i], buf, sizeof buf);
    cJSON_AddItemToArray(a, cJSON_CreateString(buf));
  }
  return a;
}

cJSON *Plan_toJson(const Plan *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON *vs = cJSON_AddArrayToObject(o, "variants");
  for (int i = 0; i < p->nvariants; i++) {
    const PlanVariant *v = &p->variants[i];
    cJSON *vo = cJSON_CreateObject();
    cJSON_AddStringToObject(vo, "name", v->name ? v->name : "");
    cJSON_AddItemToObject(vo, "knobs", Plan_stringArray(v->knobs, v->nknobs));
    if (v->nshapes > 0) cJSON_AddItemToObject(vo, "shapes", Plan_shapeArray(v->shapes, v->nshapes));
    cJSON_AddItemToArray(vs, vo);
  }
  cJSON_AddItemToObject(o, "shapes", Plan_shapeArray(p->shapes, p->nshapes));
  cJSON_AddStringToObject(o, "metrics", p->metrics);
  cJSON_AddItemToObject(o, "options", RunOptions_toJson(&p->opts));
  if (p->knobs_auto) cJSON_AddBoolToObject(o, "knobs_auto", true);
  return o;
}

/* An array of strings under key; out and n are set even on failure (the caller frees). */
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

static bool Plan_readShapes(const cJSON *obj, Shape **out, int *n, const char *path, char *err,
                            size_t errsize) {
  char **shapes = NULL;
  int nshapes = 0;
  bool ok = Plan_readStrings(obj, "shapes", 64, &shapes, &nshapes, path, err, errsize);
  if (ok && nshapes > 0) {
    *out = Util_xcalloc((size_t)nshapes, sizeof(Shape));
    for (int i = 0; i < nshapes && ok; i++) {
      char why[200];
      ok = Shape_parse(shapes[i], &(*out)[i], why, sizeof why);
      if (!ok) snprintf(err, errsize, "%s.shapes[%d]: %s", path, i, why);
      else *n = i + 1;
    }
  }
  Plan_freeStrings(shapes, nshapes);
  return ok;
}

/* benchtop.session/2: {"name": "mma", "knobs": ["k=v", ...], "shapes": [...]} per variant. */
static bool Plan_readVariants(const cJSON *j, Plan *out, const char *path, char *err,
                              size_t errsize) {
  bool ok = true;
  const cJSON *a = Json_member(j, "variants", cJSON_Array, false, path, &ok, err, errsize);
  if (!ok || !a) return ok;
  int i = 0;
  for (const cJSON *v = a->child; v; v = v->next, i++) {
    char vp[320], name[RECORD_NAME_MAX];
    snprintf(vp, sizeof vp, "%s.variants[%d]", path, i);
    if (!cJSON_IsObject(v)) {
      snprintf(err, errsize, "%s: expected an object {\"name\", \"knobs\"}", vp);
      return false;
    }
    const cJSON *n = Json_member(v, "name", cJSON_String, true, vp, &ok, err, errsize);
    if (!ok || !Json_readStr(n, name, sizeof name, vp, "name", err, errsize)) return false;
    PlanVariant *pv = Plan_addVariant(out, name);
    char **knobs = NULL;
    int nknobs = 0;
    ok = Plan_readStrings(v, "knobs", PLAN_STR_MAX, &knobs, &nknobs, vp, err, errsize);
    for (int k = 0; ok && k < nknobs; k++) {
      for (int m = 0; m < k && ok; m++) /* never the last one silently */
        if (KnobText_nameLen(knobs[m]) == KnobText_nameLen(knobs[k]) &&
            strncmp(knobs[m], knobs[k], KnobText_nameLen(knobs[k])) == 0) {
          snprintf(err, errsize, "%s.knobs[%d]: knob %.*s is set twice (give its values once)", vp, k,
                   (int)(KnobText_nameLen(knobs[k]) > 64 ? 64 : KnobText_nameLen(knobs[k])), knobs[k]);
          Json_oneLine(err);
          ok = false;
        }
      if (ok) PlanVariant_setKnob(pv, knobs[k]);
    }
    Plan_freeStrings(knobs, nknobs);
    if (!ok || !Plan_readShapes(v, &pv->shapes, &pv->nshapes, vp, err, errsize)) return false;
  }
  return true;
}

bool Plan_fromJson(const cJSON *j, int version, Plan *out, char ***flat_knobs, int *nflat,
                   const char *path, char *err, size_t errsize) {
  Plan_init(out);
  *flat_knobs = NULL;
  *nflat = 0;
  if (!Json_expectObject(j, path, err, errsize)) return false;
  if (version >= 2) {
    if (!Plan_readVariants(j, out, path, err, errsize)) goto fail;
  } else {
    char **names = NULL;
    int nnames = 0;
    bool ok = Plan_readStrings(j, "variants", RECORD_NAME_MAX, &names, &nnames, path, err, errsize);
    for (int i = 0; i < nnames; i++) Plan_addVariant(out, names[i]);
    Plan_freeStrings(names, nnames);
    if (!ok || !Plan_readStrings(j, "knobs", PLAN_STR_MAX, flat_knobs, nflat, path, err, errsize))
      goto fail;
  }
  if (!Plan_readShapes(j, &out->shapes, &out->nshapes, path, err, errsize)) goto fail;
  bool ok = true;
  const cJSON *au = cJSON_GetObjectItemCaseSensitive(j, "knobs_auto");
  if (au && !cJSON_IsBool(au) && !cJSON_IsNull(au)) {
    snprintf(err, errsize, "%s.knobs_auto: expected true or false", path);
    goto fail;
  }
  out->knobs_auto = cJSON_IsTrue(au);
  for (int i = 0; i < *nflat; i++) out->knobs_auto |= strcmp((*flat_knobs)[i], "auto") == 0;
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
  Plan_freeStrings(*flat_knobs, *nflat);
  *flat_knobs = NULL;
  *nflat = 0;
  return false;
}

/* The values a knob took in a variant's records, as one sweep per knob ("k=v1,v2" in order of
 * first appearance). */
static int Plan_knobsFromRecords(PlanVariant *pv, const Record *recs, int nrecs) {
  int used = 0;
  for (int i = 0; i < nrecs; i++) {
    if (strcmp(recs[i].variant, pv->name) != 0) continue;
    used++;
    KnobToken t = {0};
    for (const char *p = recs[i].knobs; KnobText_next(&p, &t) > 0;) {
      int at = -1;
      for (int k = 0; k < pv->nknobs; k++)
        if (KnobText_nameLen(pv->knobs[k]) == t.name_len && strncmp(pv->knobs[k], t.name, t.name_len) == 0) at = k;
      if (at < 0) {
        char spec[PLAN_STR_MAX];
        size_t len = 0;
        KnobText_append(spec, sizeof spec, &len, t.name, t.name_len, t.value, t.value_len);
        if (len < sizeof spec) PlanVariant_setKnob(pv, spec);
        continue;
      }
      bool have = false; /* already one of the sweep's values? */
      KnobToken s = {0};
      for (const char *q = pv->knobs[at]; !have && KnobText_next(&q, &s) > 0;)
        have = s.value_len == t.value_len && memcmp(s.value, t.value, t.value_len) == 0;
      if (!have) {
        char *grown = KnobText_withValue(pv->knobs[at], t.value, t.value_len);
        free(pv->knobs[at]);
        pv->knobs[at] = grown;
      }
    }
  }
  return used;
}

/* The flat list's sweeps that this variant has, with the values it allows; a later sweep of the
 * same knob replaces an earlier one (what /1 plans meant). */
static void Plan_knobsFromFlat(PlanVariant *pv, char *const *flat, int nflat) {
  const Variant *v = Registry_find(pv->name);
  for (int i = 0; v && i < nflat; i++) {
    char spec[PLAN_STR_MAX];
    size_t len = 0;
    KnobToken t = {0};
    int k = -1;
    for (const char *p = flat[i]; KnobText_next(&p, &t) > 0;) {
      if (t.first) k = -1;
      for (int m = 0; t.first && m < v->nknobs; m++)
        if (strlen(v->knobs[m].name) == t.name_len && strncmp(v->knobs[m].name, t.name, t.name_len) == 0) k = m;
      if (k < 0) continue;
      for (int j = 0; j < Registry_knobValueCount(&v->knobs[k]); j++) {
        const char *value = v->knobs[k].values[j];
        if (strlen(value) != t.value_len || memcmp(value, t.value, t.value_len) != 0) continue;
        if (len == 0) KnobText_append(spec, sizeof spec, &len, t.name, t.name_len, t.value, t.value_len);
        else KnobText_appendValue(spec, sizeof spec, &len, t.value, t.value_len);
      }
    }
    if (len > 0 && len < sizeof spec) PlanVariant_setKnob(pv, spec);
  }
}

void Plan_upgradeV1(Plan *p, char *const *flat, int nflat, const Record *recs, int nrecs,
                    char *note, size_t notesize) {
  if (nflat == 0) return; /* no knobs: the /1 plan says exactly what /2 does */
  char from_records[200] = "", from_list[200] = "";
  for (int i = 0; i < p->nvariants; i++) {
    PlanVariant *pv = &p->variants[i];
    bool by_records = Plan_knobsFromRecords(pv, recs, nrecs) > 0;
    if (!by_records) Plan_knobsFromFlat(pv, flat, nflat);
    char *list = by_records ? from_records : from_list;
    size_t n = strlen(list);
    snprintf(list + n, 200 - n, "%s%s", n ? ", " : "", pv->name);
  }
  snprintf(note, notesize, "plan converted from benchtop.session/1 (one knob list for all "
           "variants): each variant's knobs taken from its records%s%s%s%s", from_records[0] ? " (" : "",
           from_records, from_records[0] ? ")" : "", from_list[0] ? ", or else from that list (" : "");
  if (from_list[0]) {
    size_t n = strlen(note);
    snprintf(note + n, notesize - n, "%s)", from_list);
  }
}

void Plan_merge(Plan *dst, const Plan *src) {
  for (int i = 0; i < src->nvariants; i++) {
    const PlanVariant *sv = &src->variants[i];
    int n;
    const Shape *shapes = Plan_shapesOf(src, sv, &n);
    bool same_shapes = n == dst->nshapes;
    for (int s = 0; same_shapes && s < n; s++) same_shapes = Shape_equal(&shapes[s], &dst->shapes[s]);
    bool have = false;
    for (int j = 0; j < dst->nvariants && !have; j++) {
      const PlanVariant *dv = &dst->variants[j];
      int dn;
      const Shape *ds = Plan_shapesOf(dst, dv, &dn);
      have = strcmp(dv->name, sv->name) == 0 && dv->nknobs == sv->nknobs && dn == n;
      for (int k = 0; have && k < sv->nknobs; k++) have = KnobText_same(dv->knobs[k], sv->knobs[k]);
      for (int s = 0; have && s < n; s++) have = Shape_equal(&ds[s], &shapes[s]);
    }
    if (have) continue;
    PlanVariant *nv = Plan_addVariant(dst, sv->name);
    for (int k = 0; k < sv->nknobs; k++) PlanVariant_setKnob(nv, sv->knobs[k]);
    if (!same_shapes) { /* its own shapes, where they are not the plan's */
      nv->shapes = Plan_copyShapes(shapes, n);
      nv->nshapes = nv->shapes ? n : 0;
    }
  }
}

static bool Plan_knobsEqual(char *const *a, int na, char *const *b, int nb, const char *path,
                            const char *key, char *where, size_t wsize) {
  if (na != nb) {
    snprintf(where, wsize, "%s.%s (%d vs %d entries)", path, key, na, nb);
    return false;
  }
  for (int i = 0; i < na; i++) {
    if (!KnobText_same(a[i], b[i])) {
      snprintf(where, wsize, "%s.%s[%d]", path, key, i);
      return false;
    }
  }
  return true;
}

static bool Plan_shapesEqual(const Shape *a, int na, const Shape *b, int nb, const char *path,
                             char *where, size_t wsize) {
  if (na != nb) {
    snprintf(where, wsize, "%s.shapes (%d vs %d entries)", path, na, nb);
    return false;
  }
  for (int i = 0; i < na; i++) {
    if (!Shape_equal(&a[i], &b[i])) {
      snprintf(where, wsize, "%s.shapes[%d]", path, i);
      return false;
    }
  }
  return true;
}

bool Plan_equal(const Plan *a, const Plan *b, const char *path, char *where, size_t wsize) {
  if (a->nvariants != b->nvariants) {
    snprintf(where, wsize, "%s.variants (%d vs %d entries)", path, a->nvariants, b->nvariants);
    return false;
  }
  for (int i = 0; i < a->nvariants; i++) {
    const PlanVariant *va = &a->variants[i], *vb = &b->variants[i];
    char vp[320];
    snprintf(vp, sizeof vp, "%s.variants[%d]", path, i);
    if (strcmp(va->name, vb->name) != 0) {
      snprintf(where, wsize, "%s.name", vp);
      return false;
    }
    if (!Plan_knobsEqual(va->knobs, va->nknobs, vb->knobs, vb->nknobs, vp, "knobs", where, wsize) ||
        !Plan_shapesEqual(va->shapes, va->nshapes, vb->shapes, vb->nshapes, vp, where, wsize))
      return false;
  }
  if (!Plan_shapesEqual(a->shapes, a->nshapes, b->shapes, b->nshapes, path, where, wsize))
    return false;
  if (strcmp(a->metrics, b->metrics) != 0 || a->knobs_auto != b->knobs_auto) {
    snprintf(where, wsize, "%s.%s", path, a->knobs_auto != b->knobs_auto ? "knobs_auto" : "metrics");
    return false;
  }
  char op[320];
  return RunOptions_equal(&a->opts, &b->opts, Json_join(op, sizeof op, path, "options"), where,
                          wsize);
}
