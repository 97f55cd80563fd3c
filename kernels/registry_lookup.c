/* Reading, writing and checking knob settings: indices into each knob's declared values. */
#include "kernels/registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

void Registry_defaults(const Variant *v, KnobValues *kv) {
  memset(kv, 0, sizeof *kv);
  for (int k = 0; v && k < v->nknobs && k < KNOB_MAX; k++) kv->idx[k] = v->knobs[k].def;
}

int Registry_knobValueCount(const KnobDesc *k) { return k->nvalues; }

static int Registry_knobIndexN(const Variant *v, const char *name, size_t len) {
  for (int i = 0; i < v->nknobs; i++)
    if (strlen(v->knobs[i].name) == len && strncmp(v->knobs[i].name, name, len) == 0) return i;
  return -1;
}

int Registry_knobIndex(const Variant *v, const char *name) {
  return Registry_knobIndexN(v, name, strlen(name));
}

long long Registry_knobNumber(const Variant *v, const KnobValues *kv, int k) {
  const KnobDesc *kd = &v->knobs[k];
  int i = kv->idx[k];
  return i >= 0 && i < kd->nvalues ? kd->numbers[i] : kd->numbers[kd->def];
}

int Registry_knobValueIndex(const KnobDesc *k, const char *text) {
  for (int j = 0; j < k->nvalues; j++)
    if (strcmp(k->values[j], text) == 0) return j;
  char *end;
  errno = 0;
  long long x = strtoll(text, &end, 10);
  if (end == text || *end || errno) return -1;
  for (int j = 0; j < k->nvalues; j++)
    if (!k->defines[j] && k->numbers[j] == x) return j;
  return -1;
}

void Registry_formatAllowed(const KnobDesc *k, char *buf, size_t size) {
  if (k->is_range) {
    if (k->step != 1) snprintf(buf, size, "%lld..%lld step %lld", k->lo, k->hi, k->step);
    else snprintf(buf, size, "%lld..%lld", k->lo, k->hi);
    return;
  }
  buf[0] = '\0';
  for (int j = 0; j < k->nvalues; j++) {
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "%s%s", j ? "|" : "", k->values[j]);
  }
}

bool Registry_applyKnobs(const Variant *v, const char *spec, KnobValues *kv, bool ignore_unknown,
                         char *err, size_t errsize) {
  char *copy = Util_xstrdup(spec ? spec : "");
  char *save = NULL;
  bool ok = true;
  for (char *tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) {
      snprintf(err, errsize, "bad knob '%.60s': expected name=value", tok);
      ok = false;
      break;
    }
    int k = Registry_knobIndexN(v, tok, (size_t)(eq - tok));
    if (k < 0) {
      if (ignore_unknown) continue;
      *eq = '\0';
      snprintf(err, errsize, "variant %s has no knob '%.60s'%s", v->name, tok,
               v->nknobs ? "" : " (it has no knobs)");
      ok = false;
      break;
    }
    const KnobDesc *kd = &v->knobs[k];
    int found = Registry_knobValueIndex(kd, eq + 1);
    if (found < 0) {
      char allowed[256];
      Registry_formatAllowed(kd, allowed, sizeof allowed);
      snprintf(err, errsize, "knob %s of %s cannot be '%.60s' (allowed: %s)", kd->name, v->name,
               eq + 1, allowed);
      ok = false;
      break;
    }
    kv->idx[k] = found;
  }
  free(copy);
  return ok;
}

void Registry_formatKnobs(const Variant *v, const KnobValues *kv, char *buf, size_t size) {
  buf[0] = '\0';
  for (int i = 0; i < v->nknobs; i++) {
    size_t n = strlen(buf);
    int j = kv->idx[i] >= 0 && kv->idx[i] < v->knobs[i].nvalues ? kv->idx[i] : v->knobs[i].def;
    snprintf(buf + n, size - n, "%s%s=%s", i ? "," : "", v->knobs[i].name, v->knobs[i].values[j]);
  }
}
