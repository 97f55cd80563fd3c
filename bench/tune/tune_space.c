#include "bench/tune/tune_space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* One --knob restriction "k=v1,v2": the allowed positions of knob k, read by the one knob
 * parser (kernels/knobs.h), which names the allowed values when one is wrong. */
static bool TuneSpace_restrict(TuneSpace *sp, const char *text, char *err, size_t errsize) {
  size_t n = KnobText_nameLen(text);
  if (n == 0 || !text[n] || !text[n + 1]) {
    snprintf(err, errsize, "bad --knob '%.100s': expected name=value or name=v1,v2", text);
    return false;
  }
  KnobSweep sw;
  KnobSweep_init(&sw);
  if (!KnobSweep_add(sp->variant, text, &sw, true, err, errsize)) return false;
  for (int j = 0; j < sw.nknobs; j++) { /* none: another variant's knob */
    int k = sw.order[j];
    sp->nvals[k] = sw.nvalues[k];
    memcpy(sp->vals[k], sw.idx[k], sizeof(int) * (size_t)sw.nvalues[k]);
  }
  return true;
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
