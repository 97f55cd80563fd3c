#include "kernels/shape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* Targets, ragged and edge cases, then the wider problems: GQA (Llama-3-like 32 over 8 heads),
 * MQA, decode (one query against a long cache) and a causal chunked prefill. */
const char *const Shape_presets[] = {
  "1x1x1x64",          "1x8x512x64",         "2x8x512x64",          "2x8x512x64:causal",
  "1x2x4097x64",       "3x4x300x128:causal", "4x16x2048x128",       "4x16x2048x128:causal",
  "8x16x4096x64",      "1x2x300x64:causal",  "4x32/8x2048x128:causal:bf16",
  "2x16/1x1024x64",    "8x32/8x1/8192x128:bf16", "2x32/8x512/4096x128:causal:bf16",
};
const int Shape_presetCount = (int)(sizeof Shape_presets / sizeof Shape_presets[0]);

const char *Shape_dtypeName(ShapeDtype d) { return d == SHAPE_BF16 ? "bf16" : "fp16"; }

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

/* One "x"-separated field: a number, or "a/b" for the query and key/value counts. */
static bool Shape_parsePair(const char **p, long hi, int *first, int *second, const char *what1,
                            const char *what2, char *err, size_t errsize) {
  if (!Shape_parseDim(p, 1, hi, first, what1, err, errsize)) return false;
  *second = 0;
  if (**p != '/') return true;
  (*p)++;
  return Shape_parseDim(p, 1, hi, second, what2, err, errsize);
}

static bool Shape_expectX(const char **p, char *err, size_t errsize) {
  if (**p == 'x') {
    (*p)++;
    return true;
  }
  snprintf(err, errsize, "expected BxHq[/Hkv]xSq[/Skv]xD");
  return false;
}

/* The ':' suffixes after D, in any order, each at most once. */
static bool Shape_parseSuffixes(const char *p, Shape *s, char *err, size_t errsize) {
  bool seen_causal = false, seen_dtype = false;
  while (*p == ':') {
    const char *word = p + 1;
    size_t n = strcspn(word, ":");
    bool causal = n == 6 && strncmp(word, "causal", 6) == 0;
    bool bf16 = n == 4 && strncmp(word, "bf16", 4) == 0;
    bool fp16 = n == 4 && strncmp(word, "fp16", 4) == 0;
    if (!causal && !bf16 && !fp16) {
      snprintf(err, errsize, "unknown suffix ':%.*s' (expected :causal, :bf16 or :fp16)", (int)n,
               word);
      return false;
    }
    bool *seen = causal ? &seen_causal : &seen_dtype;
    if (*seen) {
      snprintf(err, errsize, "suffix ':%.*s' repeats %s (give it once)", (int)n, word,
               causal ? ":causal" : "the dtype");
      return false;
    }
    *seen = true;
    if (causal) s->causal = true;
    else s->dtype = bf16 ? SHAPE_BF16 : SHAPE_FP16;
    p = word + n;
  }
  if (*p) {
    snprintf(err, errsize, "unexpected '%s' after D (suffixes start with ':')", p);
    return false;
  }
  return true;
}

/* Cross-field rules, after every field is read; stores Hkv/Skv as 0 when equal to Hq/Sq so that
 * "2x8/8x512x64" and "2x8x512x64" are the same problem. */
static bool Shape_checkConsistent(Shape *s, char *err, size_t errsize) {
  if (s->D % 8 != 0 || s->D < SHAPE_MIN_D) {
    snprintf(err, errsize, "D (%d) must be a multiple of 8 from %d to %d", s->D, SHAPE_MIN_D,
             SHAPE_MAX_D);
    return false;
  }
  if (s->Hkv > 0 && s->H % s->Hkv != 0) {
    snprintf(err, errsize, "Hq (%d) must be a multiple of Hkv (%d)", s->H, s->Hkv);
    return false;
  }
  if (s->Skv > 0 && s->S > s->Skv) {
    snprintf(err, errsize, "Sq (%d) must not exceed Skv (%d): a query block longer than the cache",
             s->S, s->Skv);
    return false;
  }
  if (s->Hkv == s->H) s->Hkv = 0;
  if (s->Skv == s->S) s->Skv = 0;
  return true;
}

bool Shape_parse(const char *text, Shape *out, char *err, size_t errsize) {
  Shape s = {0};
  const char *p = text;
  char inner[200];
  if (!Shape_parseDim(&p, 1, 65535, &s.B, "B", inner, sizeof inner)) goto bad;
  if (!Shape_expectX(&p, inner, sizeof inner)) goto bad;
  if (!Shape_parsePair(&p, 65535, &s.H, &s.Hkv, "H", "Hkv", inner, sizeof inner)) goto bad;
  if (!Shape_expectX(&p, inner, sizeof inner)) goto bad;
  if (!Shape_parsePair(&p, SHAPE_MAX_S, &s.S, &s.Skv, "S", "Skv", inner, sizeof inner)) goto bad;
  if (!Shape_expectX(&p, inner, sizeof inner)) goto bad;
  if (!Shape_parseDim(&p, 1, SHAPE_MAX_D, &s.D, "D", inner, sizeof inner)) goto bad;
  if (!Shape_parseSuffixes(p, &s, inner, sizeof inner)) goto bad;
  if (!Shape_checkConsistent(&s, inner, sizeof inner)) goto bad;
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

/* Writes /Hkv and /Skv only when they differ, :causal before :bf16, never :fp16: today's shapes
 * format exactly as before. */
void Shape_format(const Shape *s, char *buf, size_t size) {
  char hkv[16] = "", skv[16] = "";
  if (Shape_hkv(s) != s->H) snprintf(hkv, sizeof hkv, "/%d", Shape_hkv(s));
  if (Shape_skv(s) != s->S) snprintf(skv, sizeof skv, "/%d", Shape_skv(s));
  snprintf(buf, size, "%dx%d%sx%d%sx%d%s%s", s->B, s->H, hkv, s->S, skv, s->D,
           s->causal ? ":causal" : "", s->dtype == SHAPE_BF16 ? ":bf16" : "");
}

void Shape_formatCompact(const Shape *s, char *buf, size_t size) {
  Shape_format(s, buf, size);
  char *c = s->causal ? strstr(buf, ":causal") : NULL;
  if (c) memmove(c + 2, c + 7, strlen(c + 7) + 1);
}

bool Shape_equal(const Shape *a, const Shape *b) {
  return a->B == b->B && a->H == b->H && a->S == b->S && a->D == b->D && a->causal == b->causal &&
         Shape_hkv(a) == Shape_hkv(b) && Shape_skv(a) == Shape_skv(b) && a->dtype == b->dtype;
}

/* Query-key pairs one head computes. Causal is bottom-right aligned (query i sees keys
 * 0 .. i + Skv - Sq); counted as the area Sq*Skv - Sq*Sq/2, which is today's S*S/2 when
 * Sq = Skv (the usual convention) and within half a key per query of the exact count. */
double Shape_pairs(const Shape *s) {
  double sq = s->S, skv = Shape_skv(s);
  return s->causal ? sq * skv - sq * sq / 2 : sq * skv;
}

double Shape_flops(const Shape *s) { return 4.0 * s->B * s->H * Shape_pairs(s) * s->D; }

/* Q read and O written per query head; K and V read once per key/value head (GQA shares them).
 * Both dtypes are 2 bytes. Every key is read even when causal: the last query sees them all. */
double Shape_bytes(const Shape *s) {
  double qo = 2.0 * s->B * s->H * (double)s->S * s->D;
  double kv = 2.0 * s->B * Shape_hkv(s) * (double)Shape_skv(s) * s->D;
  return SHAPE_ELEM_BYTES * (qo + kv);
}

bool Shape_isDecode(const Shape *s) {
  return s->S <= SHAPE_DECODE_MAX_SQ && s->S < Shape_skv(s);
}

size_t Shape_elems(const Shape *s) {
  return (size_t)s->B * (size_t)s->H * (size_t)s->S * (size_t)s->D;
}

size_t Shape_kvElems(const Shape *s) {
  return (size_t)s->B * (size_t)Shape_hkv(s) * (size_t)Shape_skv(s) * (size_t)s->D;
}
