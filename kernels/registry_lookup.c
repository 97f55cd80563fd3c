/* Finding variants (the built-in table in registry.c, or an external kernel file) and reading,
 * writing and checking their knob settings. */
#include "kernels/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"

#define RECORD_NAME_SIZE 32

/* ---- lookups ---------------------------------------------------------------------------- */

/* Kernels outside the ladder: with BENCHTOP_EXTRA_KERNELS=DIR, DIR/NAME.cu is variant NAME
 * (an attn_fwd(AttnParams) kernel, one thread per query row, 128 rows per block, like naive).
 * The engine's fault tests use it for deliberately broken kernels that live under tests/. */
#define REGISTRY_EXTRA_MAX 16
static Variant Registry_extra[REGISTRY_EXTRA_MAX];
static char Registry_extraNames[REGISTRY_EXTRA_MAX][RECORD_NAME_SIZE];
static char Registry_extraPaths[REGISTRY_EXTRA_MAX][4096];
static int Registry_extraCount;

static const Variant *Registry_findExtra(const char *name) {
  for (int i = 0; i < Registry_extraCount; i++)
    if (strcmp(Registry_extra[i].name, name) == 0) return &Registry_extra[i];
  const char *dir = getenv("BENCHTOP_EXTRA_KERNELS");
  if (!dir || !*dir || Registry_extraCount == REGISTRY_EXTRA_MAX) return NULL;
  if (strlen(name) >= RECORD_NAME_SIZE || strchr(name, '/') || name[0] == '.') return NULL;
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s.cu", dir, name) >= (int)sizeof path) return NULL;
  struct stat st; /* looked at, not opened: a FIFO there must not hang the lookup */
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return NULL;
  int i = Registry_extraCount++;
  Util_strlcpy(Registry_extraNames[i], name, sizeof Registry_extraNames[i]);
  Util_strlcpy(Registry_extraPaths[i], path, sizeof Registry_extraPaths[i]);
  Variant *v = &Registry_extra[i];
  memset(v, 0, sizeof *v);
  v->name = Registry_extraNames[i];
  v->source = Registry_extraPaths[i];
  v->summary = "external kernel from BENCHTOP_EXTRA_KERNELS";
  v->head_dims[0] = 64;
  v->head_dims[1] = 128;
  v->min_cc = 80;
  v->tolerance = 2e-3;
  v->kind = LAUNCH_KERNELS;
  v->nsteps = 1;
  v->steps[0] = Registry_variants[0]->steps[0]; /* naive's attn_fwd and launch shape */
  v->presets[0] = "";
  return v;
}

const Variant *Registry_find(const char *name) {
  for (int i = 0; i < Registry_count; i++)
    if (strcmp(Registry_variants[i]->name, name) == 0) return Registry_variants[i];
  return Registry_findExtra(name);
}

void Registry_defaults(const Variant *v, KnobValues *kv) {
  (void)v;
  memset(kv, 0, sizeof *kv);
}

int Registry_knobValueCount(const KnobDesc *k) {
  int n = 0;
  while (n < KNOB_MAX_VALUES && k->values[n]) n++;
  return n;
}

static int Registry_knobIndex(const Variant *v, const char *name, size_t len) {
  for (int i = 0; i < v->nknobs; i++)
    if (strlen(v->knobs[i].name) == len && strncmp(v->knobs[i].name, name, len) == 0) return i;
  return -1;
}

bool Registry_applyKnobs(const Variant *v, const char *spec, KnobValues *kv, bool ignore_unknown,
                         char *err, size_t errsize) {
  char *copy = Util_xstrdup(spec ? spec : "");
  char *save = NULL;
  bool ok = true;
  for (char *tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) {
      snprintf(err, errsize, "bad knob '%s': expected name=value", tok);
      ok = false;
      break;
    }
    int k = Registry_knobIndex(v, tok, (size_t)(eq - tok));
    if (k < 0) {
      if (ignore_unknown) continue;
      *eq = '\0';
      snprintf(err, errsize, "variant %s has no knob '%s'%s", v->name, tok,
               v->nknobs ? "" : " (it has no knobs)");
      ok = false;
      break;
    }
    const KnobDesc *kd = &v->knobs[k];
    const int nvals = Registry_knobValueCount(kd);
    int found = -1;
    for (int j = 0; j < nvals; j++)
      if (strcmp(kd->values[j], eq + 1) == 0) found = j;
    if (found < 0) {
      char allowed[128] = "";
      for (int j = 0; j < nvals; j++) {
        if (j) strncat(allowed, "|", sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, kd->values[j], sizeof allowed - strlen(allowed) - 1);
      }
      snprintf(err, errsize, "knob %s of %s cannot be '%s' (allowed: %s)", kd->name, v->name,
               eq + 1, allowed);
      ok = false;
      break;
    }
    kv->idx[k] = found;
  }
  free(copy);
  return ok;
}

int Registry_knobInt(const Variant *v, const KnobValues *kv, const char *name, int fallback) {
  const char *s = Registry_knobStr(v, kv, name);
  if (!s) return fallback;
  char *end;
  long x = strtol(s, &end, 10);
  return (*end || end == s) ? fallback : (int)x;
}

const char *Registry_knobStr(const Variant *v, const KnobValues *kv, const char *name) {
  int k = Registry_knobIndex(v, name, strlen(name));
  return k < 0 ? NULL : v->knobs[k].values[kv->idx[k]];
}

void Registry_formatKnobs(const Variant *v, const KnobValues *kv, char *buf, size_t size) {
  buf[0] = '\0';
  for (int i = 0; i < v->nknobs; i++) {
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "%s%s=%s", i ? "," : "", v->knobs[i].name,
             v->knobs[i].values[kv->idx[i]]);
  }
}

const char *Registry_supports(const Variant *v, const Shape *s, const KnobValues *kv,
                              const DeviceProps *dev, char *buf, size_t size) {
  int cc = dev ? dev->cc : 0;
  bool d_ok = false;
  for (int i = 0; i < 4 && v->head_dims[i]; i++) d_ok |= v->head_dims[i] == s->D;
  if (!d_ok) {
    char dims[64] = "";
    for (int i = 0; i < 4 && v->head_dims[i]; i++) {
      size_t n = strlen(dims);
      snprintf(dims + n, sizeof dims - n, "%s%d", i ? "," : "", v->head_dims[i]);
    }
    snprintf(buf, size, "%s supports D in {%s}, not %d", v->name, dims, s->D);
    return buf;
  }
  if (cc && cc < v->min_cc) {
    snprintf(buf, size, "%s needs sm_%d or newer, this GPU is sm_%d", v->name, v->min_cc, cc);
    return buf;
  }
  if (cc && v->arch_specific && cc != 90) {
    snprintf(buf, size, "%s is sm_90a-only (Hopper), this GPU is sm_%d", v->name, cc);
    return buf;
  }
  if (v->check) {
    const char *why = v->check(s, kv);
    if (why) {
      snprintf(buf, size, "%s", why);
      return buf;
    }
  }
  /* The device's own shared-memory limit: the launch would fail with a bare CUDA error. */
  for (int i = 0; dev && dev->smem_optin > 0 && i < v->nsteps; i++) {
    LaunchDims d;
    v->steps[i].dims(s, kv, dev, &d);
    if (d.grid[0] && d.grid[1] && d.grid[2] && d.smem > (size_t)dev->smem_optin) {
      snprintf(buf, size, "%s asks for %zu bytes of shared memory per block, this GPU allows %d",
               v->name, d.smem, dev->smem_optin);
      return buf;
    }
  }
  return NULL;
}
