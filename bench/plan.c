#include "bench/plan.h"

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
}

static void Plan_pushString(char ***list, int *n, const char *s) {
  *list = Util_xrealloc(*list, sizeof(char *) * (size_t)(*n + 1));
  (*list)[(*n)++] = Util_xstrdup(s);
}

bool Plan_setVariants(Plan *p, const char *text, char *err, size_t errsize) {
  for (int i = 0; i < p->nvariants; i++) free(p->variants[i]);
  free(p->variants);
  p->variants = NULL;
  p->nvariants = 0;
  if (strcmp(text, "all") == 0) {
    for (int i = 0; i < Registry_count; i++)
      Plan_pushString(&p->variants, &p->nvariants, Registry_variants[i]->name);
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
    for (int i = 0; i < p->nvariants; i++) dup |= strcmp(p->variants[i], tok) == 0;
    if (!dup) Plan_pushString(&p->variants, &p->nvariants, tok);
  }
  free(copy);
  if (ok && p->nvariants == 0) {
    snprintf(err, errsize, "no variant given (e.g. -v mma or -v all)");
    ok = false;
  }
  return ok;
}

/* "name=v1,v2" -> name and the list of values. */
static bool Plan_splitKnob(const char *text, char *name, size_t nsize, char **values,
                           char *err, size_t errsize) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text || !eq[1]) {
    snprintf(err, errsize, "bad --knob '%s': expected name=value or name=v1,v2", text);
    return false;
  }
  size_t n = (size_t)(eq - text);
  if (n >= nsize) n = nsize - 1;
  memcpy(name, text, n);
  name[n] = '\0';
  *values = Util_xstrdup(eq + 1);
  return true;
}

bool Plan_hasAuto(const Plan *p) {
  for (int i = 0; i < p->nknobs; i++)
    if (strcmp(p->knobs[i], "auto") == 0) return true;
  return false;
}

bool Plan_addKnob(Plan *p, const char *text, char *err, size_t errsize) {
  char name[64], *values = NULL;
  if (strcmp(text, "auto") == 0) {
    if (!Plan_hasAuto(p)) Plan_pushString(&p->knobs, &p->nknobs, text);
    return true;
  }
  if (!Plan_splitKnob(text, name, sizeof name, &values, err, errsize)) return false;
  bool known = false, ok = true;
  char *save = NULL;
  char *copy = Util_xstrdup(values);
  for (char *val = strtok_r(copy, ",", &save); val && ok; val = strtok_r(NULL, ",", &save)) {
    for (int i = 0; i < p->nvariants && ok; i++) {
      const Variant *v = Registry_find(p->variants[i]);
      KnobValues kv;
      Registry_defaults(v, &kv);
      char spec[160];
      snprintf(spec, sizeof spec, "%s=%s", name, val);
      bool has = false;
      for (int k = 0; k < v->nknobs; k++) has |= strcmp(v->knobs[k].name, name) == 0;
      if (!has) continue;
      known = true;
      ok = Registry_applyKnobs(v, spec, &kv, false, err, errsize);
    }
  }
  free(copy);
  if (ok && !known) {
    snprintf(err, errsize, "no selected variant has a knob '%s' (see benchtop list variants)", name);
    ok = false;
  }
  if (ok) Plan_pushString(&p->knobs, &p->nknobs, text);
  free(values);
  return ok;
}

/* Every combination of the swept knobs that variant v has: odometer over the --knob lists. */
static void Plan_expandVariant(const Plan *p, const Variant *v, PlanEntry **out, int *count,
                               int *cap) {
  int nk = 0;
  int which[KNOB_MAX];       /* index into p->knobs */
  int knob_idx[KNOB_MAX];    /* knob index in v */
  int nvals[KNOB_MAX];
  int vals[KNOB_MAX][KNOB_MAX_VALUES];
  for (int i = 0; i < p->nknobs; i++) {
    char name[64], *values = NULL, err[64];
    if (!Plan_splitKnob(p->knobs[i], name, sizeof name, &values, err, sizeof err)) continue;
    int k = -1;
    for (int j = 0; j < v->nknobs; j++)
      if (strcmp(v->knobs[j].name, name) == 0) k = j;
    if (k >= 0) {
      /* A later --knob for the same name replaces an earlier one. */
      int slot = nk;
      for (int j = 0; j < nk; j++)
        if (knob_idx[j] == k) slot = j;
      which[slot] = i;
      knob_idx[slot] = k;
      nvals[slot] = 0;
      char *save = NULL;
      const int allowed = Registry_knobValueCount(&v->knobs[k]);
      for (char *val = strtok_r(values, ",", &save); val; val = strtok_r(NULL, ",", &save))
        for (int j = 0; j < allowed; j++)
          if (strcmp(v->knobs[k].values[j], val) == 0 && nvals[slot] < KNOB_MAX_VALUES)
            vals[slot][nvals[slot]++] = j;
      if (slot == nk) nk++;
    }
    free(values);
  }
  (void)which;
  int odo[KNOB_MAX] = {0};
  unsigned given = 0;
  for (int j = 0; j < nk; j++)
    if (nvals[j]) given |= 1u << knob_idx[j];
  bool knobs_auto = Plan_hasAuto(p);
  for (;;) {
    KnobValues kv;
    Registry_defaults(v, &kv);
    for (int j = 0; j < nk; j++)
      if (nvals[j]) kv.idx[knob_idx[j]] = vals[j][odo[j]];
    for (int s = 0; s < p->nshapes; s++) {
      if (*count == *cap) *out = Util_xrealloc(*out, sizeof(PlanEntry) * (size_t)(*cap *= 2));
      PlanEntry *e = &(*out)[(*count)++];
      memset(e, 0, sizeof *e);
      e->variant = v;
      e->knobs = kv;
      e->shape = p->shapes[s];
      e->opts = p->opts;
      e->knobs_auto = knobs_auto;
      e->knobs_given = given;
      Util_strlcpy(e->metrics, p->metrics[0] ? p->metrics : "default", sizeof e->metrics);
    }
    int j = 0;
    while (j < nk && (nvals[j] == 0 || ++odo[j] == nvals[j])) odo[j++] = 0;
    if (j == nk) break;
  }
}

bool Plan_expand(const Plan *p, PlanEntry **out, int *count, char *err, size_t errsize) {
  if (p->nvariants == 0 || p->nshapes == 0) {
    snprintf(err, errsize, "the plan needs at least one variant and one shape");
    return false;
  }
  int cap = 16;
  *count = 0;
  *out = Util_xmalloc(sizeof(PlanEntry) * (size_t)cap);
  for (int i = 0; i < p->nvariants; i++) {
    const Variant *v = Registry_find(p->variants[i]);
    if (!v) {
      snprintf(err, errsize, "unknown variant '%s' (see benchtop list variants)", p->variants[i]);
      free(*out);
      *out = NULL;
      return false;
    }
    Plan_expandVariant(p, v, out, count, &cap);
  }
  return true;
}
