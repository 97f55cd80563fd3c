#include "kernels/shape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

const char *const Shape_presets[] = {
  "1x1x1x64",          "1x8x512x64",        "2x8x512x64",         "2x8x512x64:causal",
  "1x2x4097x64",       "3x4x300x128:causal", "4x16x2048x128",     "4x16x2048x128:causal",
  "8x16x4096x64",      "1x2x300x64:causal",
};
const int Shape_presetCount = (int)(sizeof Shape_presets / sizeof Shape_presets[0]);

static bool Shape_parseDim(const char **p, long lo, long hi, int *out, const char *what,
                           char *err, size_t errsize) {
  if (**p < '0' || **p > '9') {
    snprintf(err, errsize, "expected a number for %s", what);
    return false;
  }
  errno = 0;
  char *end;
  long v = strtol(*p, &end, 10);
  if (errno || v < lo || v > hi) {
    snprintf(err, errsize, "%s must be between %ld and %ld", what, lo, hi);
    return false;
  }
  *out = (int)v;
  *p = end;
  return true;
}

bool Shape_parse(const char *text, Shape *out, char *err, size_t errsize) {
  Shape s = {0};
  const char *p = text;
  char inner[200];
  if (!Shape_parseDim(&p, 1, 65535, &s.B, "B", inner, sizeof inner)) goto bad;
  if (*p++ != 'x') { snprintf(inner, sizeof inner, "expected BxHxSxD"); goto bad; }
  if (!Shape_parseDim(&p, 1, 65535, &s.H, "H", inner, sizeof inner)) goto bad;
  if (*p++ != 'x') { snprintf(inner, sizeof inner, "expected BxHxSxD"); goto bad; }
  if (!Shape_parseDim(&p, 1, SHAPE_MAX_S, &s.S, "S", inner, sizeof inner)) goto bad;
  if (*p++ != 'x') { snprintf(inner, sizeof inner, "expected BxHxSxD"); goto bad; }
  if (!Shape_parseDim(&p, 1, SHAPE_MAX_D, &s.D, "D", inner, sizeof inner)) goto bad;
  if (*p == ':') {
    if (strcmp(p + 1, "causal") != 0) {
      snprintf(inner, sizeof inner, "unknown suffix '%s' (only ':causal')", p);
      goto bad;
    }
    s.causal = true;
  } else if (*p) {
    snprintf(inner, sizeof inner, "unexpected '%s'", p);
    goto bad;
  }
  if (s.D % 8 != 0) {
    snprintf(inner, sizeof inner, "D must be a multiple of 8 (16-byte rows)");
    goto bad;
  }
  *out = s;
  return true;
bad:
  snprintf(err, errsize, "bad shape '%s': %s", text, inner);
  return false;
}

bool Shape_parseList(const char *text, Shape **out, int *count, char *err, size_t errsize) {
  char *copy = Util_xstrdup(text);
  int n = 0, cap = 8;
  Shape *v = Util_xmalloc(sizeof(Shape) * (size_t)cap);
  char *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (n == cap) v = Util_xrealloc(v, sizeof(Shape) * (size_t)(cap *= 2));
    if (!Shape_parse(tok, &v[n], err, errsize)) {
      free(v);
      free(copy);
      return false;
    }
    n++;
  }
  free(copy);
  if (n == 0) {
    free(v);
    snprintf(err, errsize, "no shape given (expected e.g. 2x8x512x64 or 2x8x512x64:causal)");
    return false;
  }
  *out = v;
  *count = n;
  return true;
}

void Shape_format(const Shape *s, char *buf, size_t size) {
  snprintf(buf, size, "%dx%dx%dx%d%s", s->B, s->H, s->S, s->D, s->causal ? ":causal" : "");
}

bool Shape_equal(const Shape *a, const Shape *b) {
  return a->B == b->B && a->H == b->H && a->S == b->S && a->D == b->D && a->causal == b->causal &&
         Shape_hkv(a) == Shape_hkv(b) && Shape_skv(a) == Shape_skv(b) && a->dtype == b->dtype;
}

double Shape_flops(const Shape *s) {
  double f = 4.0 * s->B * s->H * (double)s->S * s->S * s->D;
  return s->causal ? f / 2 : f;
}

size_t Shape_elems(const Shape *s) {
  return (size_t)s->B * (size_t)s->H * (size_t)s->S * (size_t)s->D;
}
