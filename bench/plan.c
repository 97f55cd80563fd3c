#include "bench/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/l2persist.h"
#include "common/util.h"

void Plan_defaultOptions(RunOptions *o) {
  o->reps = 100;
  o->warmup = 10;
  o->cold_l2 = false;
  o->graph = false;
  o->event_timing = false;
  o->seed = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)Util_nowMs();
  o->watchdog_s = 10.0;
  o->l2_persist[0] = '\0'; /* off */
  o->span_s = 0;
}

bool Plan_setVariants(Plan *p, const char *text, char *err, size_t errsize) {
  Shape *shapes = p->shapes;
  int nshapes = p->nshapes;
  p->shapes = NULL;
  p->nshapes = 0;
  Plan_free(p); /* the variants go, the shapes stay */
  p->shapes = shapes;
  p->nshapes = nshapes;
  if (strcmp(text, "all") == 0) {
    for (int i = 0; i < Registry_count(); i++) Plan_addVariant(p, Registry_at(i)->name);
    return true;
  }
  char *copy = Util_xstrdup(text);
  char *save = NULL;
  bool ok = true;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (!Registry_find(tok)) {
      snprintf(err, errsize, "unknown variant '%s' (see benchtop list variants)", tok);
      ok = false;
      break;
    }
    bool dup = false;
    for (int i = 0; i < p->nvariants; i++) dup |= strcmp(p->variants[i].name, tok) == 0;
    if (!dup) Plan_addVariant(p, tok);
  }
  free(copy);
  if (ok && p->nvariants == 0) {
    snprintf(err, errsize, "no variant given (e.g. -v mma or -v all)");
    ok = false;
  }
  return ok;
}

static int Plan_knobIndex(const Variant *v, const char *name, size_t len) {
  char buf[64];
  if (len >= sizeof buf) return -1;
  memcpy(buf, name, len);
  buf[len] = '\0';
  return Registry_knobIndex(v, buf);
}

/* The values of one sweep "k=v1,v2,v1" for knob k of v, as indexes without repeats. False with
 * one line in err for a value the knob does not allow. */
static bool Plan_knobValues(const Variant *v, int k, const char *values, int *idx, int *n,
                            char *err, size_t errsize) {
  *n = 0;
  char *copy = Util_xstrdup(values), *save = NULL;
  bool ok = true;
  for (char *val = strtok_r(copy, ",", &save); val && ok; val = strtok_r(NULL, ",", &save)) {
    int found = Registry_knobValueIndex(&v->knobs[k], val); /* numbers by value: 064 is 64 */
    if (found < 0) {
      char spec[200];
      KnobValues kv;
      Registry_defaults(v, &kv);
      snprintf(spec, sizeof spec, "%s=%.100s", v->knobs[k].name, val);
      ok = Registry_applyKnobs(v, spec, &kv, false, err, errsize); /* it words the error */
      if (ok) snprintf(err, errsize, "knob %s of %s cannot be '%.100s'", v->knobs[k].name, v->name, val);
      ok = false;
      break;
    }
    bool dup = false;
    for (int j = 0; j < *n; j++) dup |= idx[j] == found;
    if (!dup) idx[(*n)++] = found; /* at most nvalues distinct values: never past the array */
  }
  if (ok && *n == 0) {
    snprintf(err, errsize, "knob %s of %s: no value given", v->knobs[k].name, v->name);
    ok = false;
  }
  free(copy);
  return ok;
}

bool Plan_hasAuto(const Plan *p) { return p->knobs_auto; }

/* Whether pv already holds a setting of the knob named name. */
static bool Plan_knobSet(const PlanVariant *pv, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < pv->nknobs; i++)
    if (strncmp(pv->knobs[i], name, n) == 0 && pv->knobs[i][n] == '=') return true;
  return false;
}

bool Plan_setMetrics(Plan *p, const char *text, char *err, size_t errsize) {
  if (strlen(text) >= sizeof p->metrics) {
    snprintf(err, errsize, "--metrics: the list is %zu bytes; at most %zu (name fewer metrics)",
             strlen(text), sizeof p->metrics - 1);
    return false;
  }
  Util_strlcpy(p->metrics, text, sizeof p->metrics);
  return true;
}

bool Plan_addKnob(Plan *p, const char *text, char *err, size_t errsize) {
  if (strcmp(text, "auto") == 0) {
    p->knobs_auto = true;
    return true;
  }
  const char *eq = strchr(text, '=');
  if (!eq || eq == text || !eq[1]) {
    snprintf(err, errsize, "bad --knob '%s': expected name=value or name=v1,v2", text);
    return false;
  }
  bool known = false;
  for (int i = 0; i < p->nvariants; i++) {
    const Variant *v = Registry_find(p->variants[i].name);
    int k = v ? Plan_knobIndex(v, text, (size_t)(eq - text)) : -1;
    if (k < 0) continue;
    known = true;
    if (Plan_knobSet(&p->variants[i], v->knobs[k].name)) {
      snprintf(err, errsize, "--knob %s given twice: give its values once (%s=v1,v2)",
               v->knobs[k].name, v->knobs[k].name);
      return false;
    }
    int idx[KNOB_MAX_VALUES], n = 0;
    if (!Plan_knobValues(v, k, eq + 1, idx, &n, err, errsize)) return false;
    /* Sized for every value: a sweep is never cut (KNOB_MAX_VALUES values of any length). */
    size_t size = strlen(v->knobs[k].name) + 2;
    for (int j = 0; j < n; j++) size += strlen(v->knobs[k].values[idx[j]]) + 1;
    char *spec = Util_xmalloc(size);
    size_t len = (size_t)snprintf(spec, size, "%s=", v->knobs[k].name);
    for (int j = 0; j < n; j++)
      len += (size_t)snprintf(spec + len, size - len, "%s%s", j ? "," : "", v->knobs[k].values[idx[j]]);
    PlanVariant_setKnob(&p->variants[i], spec);
    free(spec);
  }
  if (!known) {
    snprintf(err, errsize, "no selected variant has a knob '%.*s' (see benchtop list variants)",
             (int)(eq - text), text);
    return false;
  }
  return true;
}

/* Every combination of the variant's own sweeps: odometer over its knob lists. */
static bool Plan_expandVariant(const Plan *p, const PlanVariant *pv, PlanEntry **out, int *count,
                               int *cap, char *err, size_t errsize) {
  const Variant *v = Registry_find(pv->name);
  if (!v) {
    snprintf(err, errsize, "unknown variant '%s' (see benchtop list variants)", pv->name);
    return false;
  }
  int nk = 0, knob_idx[KNOB_MAX], nvals[KNOB_MAX], vals[KNOB_MAX][KNOB_MAX_VALUES];
  for (int i = 0; i < pv->nknobs; i++) {
    const char *spec = pv->knobs[i], *eq = strchr(spec, '=');
    int k = eq ? Plan_knobIndex(v, spec, (size_t)(eq - spec)) : -1;
    if (!eq) {
      snprintf(err, errsize, "%s: bad knob setting '%.100s' (expected name=value)", v->name, spec);
      return false;
    }
    if (k < 0) {
      snprintf(err, errsize, "variant %s has no knob '%.*s'", v->name, (int)(eq - spec), spec);
      return false;
    }
    for (int j = 0; j < nk; j++)
      if (knob_idx[j] == k) { /* (a file's plan: one made here never holds two) */
        snprintf(err, errsize, "%s: knob %s is set twice (give its values once)", v->name, v->knobs[k].name);
        return false;
      }
    if (!Plan_knobValues(v, k, eq + 1, vals[nk], &nvals[nk], err, errsize)) return false;
    knob_idx[nk++] = k;
  }
  int nshapes;
  const Shape *shapes = Plan_shapesOf(p, pv, &nshapes);
  if (nshapes == 0) {
    snprintf(err, errsize, "the plan names no shape for %s", v->name);
    return false;
  }
  /* Counted before a byte is allocated: a plan of millions of runs is refused, not expanded. */
  double runs = nshapes;
  for (int j = 0; j < nk; j++) runs *= nvals[j];
  if (*count + runs > PLAN_ENTRIES_MAX) {
    snprintf(err, errsize, "the plan expands to %.0f runs%s (%s: %.0f knob combinations x %d shapes); "
             "at most %d: narrow --knob or -s", *count + runs, *count ? " so far" : "", v->name,
             runs / nshapes, nshapes, PLAN_ENTRIES_MAX);
    return false;
  }
  int odo[KNOB_MAX] = {0};
  unsigned given = 0;
  for (int j = 0; j < nk; j++) given |= 1u << knob_idx[j];
  for (;;) {
    KnobValues kv;
    Registry_defaults(v, &kv);
    for (int j = 0; j < nk; j++) kv.idx[knob_idx[j]] = vals[j][odo[j]];
    for (int s = 0; s < nshapes; s++) {
      if (*count == *cap) *out = Util_xrealloc(*out, sizeof(PlanEntry) * (size_t)(*cap *= 2));
      PlanEntry *e = &(*out)[(*count)++];
      memset(e, 0, sizeof *e);
      e->variant = v;
      e->knobs = kv;
      e->shape = shapes[s];
      e->opts = p->opts;
      e->knobs_auto = p->knobs_auto ? PLAN_AUTO_ASKED : PLAN_AUTO_NONE;
      e->knobs_given = given;
      Util_strlcpy(e->metrics, p->metrics[0] ? p->metrics : "default", sizeof e->metrics);
    }
    int j = 0;
    while (j < nk && ++odo[j] == nvals[j]) odo[j++] = 0;
    if (j == nk) break;
  }
  return true;
}

bool Plan_expand(const Plan *p, PlanEntry **out, int *count, char *err, size_t errsize) {
  *count = 0;
  *out = NULL;
  if (p->nvariants == 0) {
    snprintf(err, errsize, "the plan needs at least one variant and one shape");
    return false;
  }
  int cap = 16;
  *out = Util_xmalloc(sizeof(PlanEntry) * (size_t)cap);
  for (int i = 0; i < p->nvariants; i++)
    if (!Plan_expandVariant(p, &p->variants[i], out, count, &cap, err, errsize)) {
      free(*out);
      *out = NULL;
      *count = 0;
      return false;
    }
  return true;
}

void Plan_pin(Plan *p, const PlanEntry *e) {
  const Variant *v = e->variant;
  for (int i = 0; i < p->nvariants; i++) { /* the shape leaves the variant's unset knobs */
    PlanVariant *pv = &p->variants[i];
    int n, at = -1;
    const Shape *shapes = Plan_shapesOf(p, pv, &n);
    for (int s = 0; s < n && at < 0; s++)
      if (Shape_equal(&shapes[s], &e->shape)) at = s;
    if (pv->nknobs != 0 || strcmp(pv->name, v->name) != 0 || at < 0) continue;
    if (n == 1) {
      Plan_removeVariant(p, i);
    } else {
      Shape *rest = Util_xmalloc(sizeof(Shape) * (size_t)(n - 1));
      for (int s = 0, m = 0; s < n; s++)
        if (s != at) rest[m++] = shapes[s];
      free(pv->shapes);
      pv->shapes = rest;
      pv->nshapes = n - 1;
    }
    break;
  }
  char **specs = Util_xcalloc((size_t)(v->nknobs ? v->nknobs : 1), sizeof *specs);
  for (int k = 0; k < v->nknobs; k++)
    specs[k] = Util_asprintf("%s=%s", v->knobs[k].name, v->knobs[k].values[e->knobs.idx[k]]);
  PlanVariant *to = NULL; /* a variant already pinned to these knobs takes the shape too */
  for (int i = 0; i < p->nvariants && !to; i++) {
    PlanVariant *pv = &p->variants[i];
    bool same = strcmp(pv->name, v->name) == 0 && pv->nknobs == v->nknobs && pv->nshapes > 0;
    for (int k = 0; same && k < v->nknobs; k++) same = strcmp(pv->knobs[k], specs[k]) == 0;
    if (same) to = pv;
  }
  if (!to) {
    to = Plan_addVariant(p, v->name);
    for (int k = 0; k < v->nknobs; k++) PlanVariant_setKnob(to, specs[k]);
  }
  bool have = false;
  for (int s = 0; s < to->nshapes; s++) have |= Shape_equal(&to->shapes[s], &e->shape);
  if (!have) {
    to->shapes = Util_xrealloc(to->shapes, sizeof(Shape) * (size_t)(to->nshapes + 1));
    to->shapes[to->nshapes++] = e->shape;
  }
  for (int k = 0; k < v->nknobs; k++) free(specs[k]);
  free(specs);
}

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
