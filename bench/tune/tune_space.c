#include "bench/tune/tune_space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

static int TuneSpace_knobIndex(const Variant *v, const char *name) {
  for (int k = 0; k < v->nknobs; k++)
    if (strcmp(v->knobs[k].name, name) == 0) return k;
  return -1;
}

/* One --knob restriction "k=v1,v2": the allowed positions of knob k, validated by the registry
 * itself (Registry_applyKnobs names the allowed values when one is wrong). */
static bool TuneSpace_restrict(TuneSpace *sp, const char *text, char *err, size_t errsize) {
  const Variant *v = sp->variant;
  const char *eq = strchr(text, '=');
  if (!eq || eq == text || !eq[1]) {
    snprintf(err, errsize, "bad --knob '%.100s': expected name=value or name=v1,v2", text);
    return false;
  }
  char name[64];
  size_t n = (size_t)(eq - text);
  if (n >= sizeof name) n = sizeof name - 1;
  memcpy(name, text, n);
  name[n] = '\0';
  int k = TuneSpace_knobIndex(v, name);
  if (k < 0) return true; /* another variant's knob */
  char *copy = Util_xstrdup(eq + 1), *save = NULL;
  bool ok = true;
  sp->nvals[k] = 0;
  for (char *val = strtok_r(copy, ",", &save); val && ok; val = strtok_r(NULL, ",", &save)) {
    char *spec = Util_asprintf("%s=%s", name, val); /* any length: a cut value may name another */
    KnobValues kv;
    Registry_defaults(v, &kv);
    bool applied = Registry_applyKnobs(v, spec, &kv, false, err, errsize);
    free(spec);
    if (!applied) {
      ok = false;
      break;
    }
    bool dup = false;
    for (int j = 0; j < sp->nvals[k]; j++) dup |= sp->vals[k][j] == kv.idx[k];
    if (!dup && sp->nvals[k] < KNOB_MAX_VALUES) sp->vals[k][sp->nvals[k]++] = kv.idx[k];
  }
  free(copy);
  if (ok && sp->nvals[k] == 0) {
    snprintf(err, errsize, "--knob %.60s gives knob %s no value", text, name);
    ok = false;
  }
  return ok;
}

static long TuneSpace_code(const TuneSpace *sp, const int *genes) {
  long code = 0;
  for (int k = sp->nknobs - 1; k >= 0; k--) code = code * sp->nvals[k] + genes[k];
  return code;
}

bool TuneSpace_build(TuneSpace *sp, const Variant *v, const Shape *s, char *const *restrictions,
                     int nrestrictions, const DeviceProps *dev, char *err, size_t errsize) {
  memset(sp, 0, sizeof *sp);
  sp->variant = v;
  sp->shape = *s;
  sp->nknobs = v->nknobs;
  char shape[64];
  Shape_format(s, shape, sizeof shape);
  if (v->nknobs == 0) {
    snprintf(err, errsize, "%s has no knobs: nothing to tune (benchtop run -v %s measures it)",
             v->name, v->name);
    return false;
  }
  for (int k = 0; k < v->nknobs; k++) {
    sp->nvals[k] = Registry_knobValueCount(&v->knobs[k]);
    for (int j = 0; j < sp->nvals[k]; j++) sp->vals[k][j] = j;
  }
  for (int i = 0; i < nrestrictions; i++)
    if (!TuneSpace_restrict(sp, restrictions[i], err, errsize)) return false;
  sp->combos = 1;
  for (int k = 0; k < sp->nknobs; k++) {
    sp->combos *= sp->nvals[k];
    if (sp->combos > TUNE_SPACE_MAX_COMBOS) {
      snprintf(err, errsize, "%s has more than %d knob combinations: narrow it with --knob k=v1,v2",
               v->name, TUNE_SPACE_MAX_COMBOS);
      return false;
    }
  }
  sp->lookup = Util_xmalloc(sizeof(int) * (size_t)sp->combos);
  sp->configs = Util_xmalloc(sizeof(KnobValues) * (size_t)sp->combos);
  sp->genes = Util_xmalloc(sizeof(int) * (size_t)sp->combos * (size_t)sp->nknobs);
  int genes[KNOB_MAX] = {0};
  for (long c = 0; c < sp->combos; c++) {
    /* Odometer, first knob fastest (the mixed-radix order of TuneSpace_code). */
    KnobValues kv;
    Registry_defaults(v, &kv);
    for (int k = 0; k < sp->nknobs; k++) kv.idx[k] = sp->vals[k][genes[k]];
    char why[256];
    const char *refused = Registry_refusal(v, s, &kv, dev, why, sizeof why);
    if (refused) {
      if (!sp->refused) snprintf(sp->refusal, sizeof sp->refusal, "%.190s", refused);
      sp->refused++;
      sp->lookup[c] = -1;
    } else {
      sp->lookup[c] = sp->nconfigs;
      sp->configs[sp->nconfigs] = kv;
      memcpy(sp->genes + (size_t)sp->nconfigs * (size_t)sp->nknobs, genes,
             sizeof(int) * (size_t)sp->nknobs);
      sp->nconfigs++;
    }
    for (int k = 0; k < sp->nknobs && ++genes[k] == sp->nvals[k]; k++) genes[k] = 0;
  }
  if (sp->nconfigs == 0) {
    snprintf(err, errsize, "%s at %s: all %ld knob combinations are refused (e.g. %s)", v->name,
             shape, sp->combos, sp->refusal);
    TuneSpace_free(sp);
    return false;
  }
  return true;
}

void TuneSpace_free(TuneSpace *sp) {
  free(sp->configs);
  free(sp->genes);
  free(sp->lookup);
  sp->configs = NULL;
  sp->genes = NULL;
  sp->lookup = NULL;
  sp->nconfigs = 0;
}

int TuneSpace_lookup(const TuneSpace *sp, const int *genes) {
  for (int k = 0; k < sp->nknobs; k++)
    if (genes[k] < 0 || genes[k] >= sp->nvals[k]) return -1;
  return sp->lookup[TuneSpace_code(sp, genes)];
}

int TuneSpace_find(const TuneSpace *sp, const KnobValues *kv) {
  int genes[KNOB_MAX];
  for (int k = 0; k < sp->nknobs; k++) {
    genes[k] = -1;
    for (int j = 0; j < sp->nvals[k]; j++)
      if (sp->vals[k][j] == kv->idx[k]) genes[k] = j;
    if (genes[k] < 0) return -1;
  }
  return TuneSpace_lookup(sp, genes);
}

void TuneSpace_format(const TuneSpace *sp, int i, char *buf, size_t size) {
  Registry_formatKnobs(sp->variant, &sp->configs[i], buf, size);
}
