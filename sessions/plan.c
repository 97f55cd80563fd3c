/* The plan built from the command line, expanded and pinned (see plan.h). */
#include "sessions/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  o->span_s = 0; /* pauses where a record is large */
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

bool Plan_hasAuto(const Plan *p) { return p->knobs_auto; }

/* Whether pv already holds a setting of knob k (by its name). */
static bool Plan_knobSet(const PlanVariant *pv, const KnobDesc *k) {
  size_t n = strlen(k->name);
  for (int i = 0; i < pv->nknobs; i++)
    if (KnobText_nameLen(pv->knobs[i]) == n && strncmp(pv->knobs[i], k->name, n) == 0) return true;
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
  size_t name_len = KnobText_nameLen(text);
  if (name_len == 0 || !text[name_len] || !text[name_len + 1]) {
    snprintf(err, errsize, "bad --knob '%s': expected name=value or name=v1,v2", text);
    return false;
  }
  bool known = false;
  for (int i = 0; i < p->nvariants; i++) {
    const Variant *v = Registry_find(p->variants[i].name);
    KnobSweep sw;
    KnobSweep_init(&sw);
    if (!v || !KnobSweep_add(v, text, &sw, true, err, errsize)) {
      if (v) return false;
      continue;
    }
    if (sw.nknobs == 0) continue; /* not a knob of this variant */
    int k = sw.order[0];
    known = true;
    if (sw.nknobs > 1) {
      snprintf(err, errsize, "bad --knob '%.100s': one knob per --knob (name=v1,v2)", text);
      return false;
    }
    if (Plan_knobSet(&p->variants[i], &v->knobs[k])) {
      snprintf(err, errsize, "--knob %s given twice: give its values once (%s=v1,v2)",
               v->knobs[k].name, v->knobs[k].name);
      return false;
    }
    char *spec = KnobSweep_format(v, &sw, k);
    PlanVariant_setKnob(&p->variants[i], spec);
    free(spec);
  }
  if (!known) {
    snprintf(err, errsize, "no selected variant has a knob '%.*s' (see benchtop list variants)",
             (int)name_len, text);
    return false;
  }
  return true;
}

/* The sweep a plan variant's knobs ask for; false with one line in err. */
static bool Plan_sweepOf(const Variant *v, const PlanVariant *pv, KnobSweep *sw, char *err,
                         size_t errsize) {
  KnobSweep_init(sw);
  for (int i = 0; i < pv->nknobs; i++) {
    int before = sw->nknobs;
    if (!KnobSweep_add(v, pv->knobs[i], sw, false, err, errsize)) return false;
    if (sw->nknobs != before + 1) { /* one knob per entry, as Plan_addKnob writes them */
      snprintf(err, errsize, "%s: bad knob setting '%.100s' (expected name=value or name=v1,v2)",
               v->name, pv->knobs[i]);
      return false;
    }
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
  KnobSweep sw;
  if (!Plan_sweepOf(v, pv, &sw, err, errsize)) return false;
  int nshapes;
  const Shape *shapes = Plan_shapesOf(p, pv, &nshapes);
  if (nshapes == 0) {
    snprintf(err, errsize, "the plan names no shape for %s", v->name);
    return false;
  }
  /* Counted before a byte is allocated: a plan of millions of runs is refused, not expanded. */
  double combos = KnobSweep_count(v, &sw), runs = combos * nshapes;
  if (*count + runs > PLAN_ENTRIES_MAX) {
    snprintf(err, errsize, "the plan expands to %.0f runs%s (%s: %.0f knob combinations x %d shapes); "
             "at most %d: narrow --knob or -s", *count + runs, *count ? " so far" : "", v->name,
             combos, nshapes, PLAN_ENTRIES_MAX);
    return false;
  }
  unsigned given = 0;
  for (int j = 0; j < sw.nknobs; j++) given |= 1u << sw.order[j];
  for (long long c = 0; c < (long long)combos; c++) {
    KnobValues kv;
    KnobSweep_at(v, &sw, c, &kv);
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

/* Whether pv is v with every knob set to the one value of kv (and some shape). */
static bool Plan_pinnedTo(const Variant *v, const PlanVariant *pv, const KnobValues *kv) {
  KnobSweep sw;
  char err[256];
  if (strcmp(pv->name, v->name) != 0 || pv->nknobs != v->nknobs || pv->nshapes == 0 ||
      !Plan_sweepOf(v, pv, &sw, err, sizeof err))
    return false;
  for (int k = 0; k < v->nknobs; k++)
    if (sw.nvalues[k] != 1 || sw.idx[k][0] != kv->idx[k]) return false;
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
  KnobSweep pinned; /* every knob at e's value */
  KnobSweep_init(&pinned);
  for (int k = 0; k < v->nknobs; k++) {
    pinned.order[pinned.nknobs++] = k;
    pinned.nvalues[k] = 1;
    pinned.idx[k][0] = e->knobs.idx[k];
  }
  PlanVariant *to = NULL; /* a variant already pinned to these knobs takes the shape too */
  for (int i = 0; i < p->nvariants && !to; i++)
    if (Plan_pinnedTo(v, &p->variants[i], &e->knobs)) to = &p->variants[i];
  if (!to) {
    to = Plan_addVariant(p, v->name);
    for (int k = 0; k < v->nknobs; k++) {
      char *spec = KnobSweep_format(v, &pinned, k);
      PlanVariant_setKnob(to, spec);
      free(spec);
    }
  }
  bool have = false;
  for (int s = 0; s < to->nshapes; s++) have |= Shape_equal(&to->shapes[s], &e->shape);
  if (!have) {
    to->shapes = Util_xrealloc(to->shapes, sizeof(Shape) * (size_t)(to->nshapes + 1));
    to->shapes[to->nshapes++] = e->shape;
  }
}
