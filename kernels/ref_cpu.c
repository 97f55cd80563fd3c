#include "kernels/ref_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

double RefCpu_halfToDouble(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v;
  if (exp == 0) v = ldexp((double)man, -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = ldexp((double)(man | 0x400), exp - 25);
  return sign ? -v : v;
}

/* Round to nearest even, as the GPU's __float2half_rn does. */
uint16_t RefCpu_floatToHalf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx >= 0x7f800000) return (uint16_t)(sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 : 0));
  if (absx >= 0x477ff000) return (uint16_t)(sign | 0x7c00); /* overflow to inf */
  if (absx < 0x38800000) { /* subnormal half */
    float a;
    memcpy(&a, &absx, 4);
    uint32_t m = (uint32_t)lrintf(a * 16777216.0f); /* a / 2^-24, ties to even */
    return (uint16_t)(sign | m);
  }
  uint32_t exp = (absx >> 23) - 112;
  uint32_t man = absx & 0x7fffff;
  uint32_t h = (exp << 10) | (man >> 13);
  uint32_t rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

/* bf16 is the top half of an fp32: widening is exact. */
double RefCpu_bf16ToDouble(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* Round to nearest even, as the GPU's __float2bfloat16_rn does; NaN stays a (quiet) NaN. */
uint16_t RefCpu_floatToBf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return (uint16_t)((x + rounding) >> 16);
}

double RefCpu_elemToDouble(ShapeDtype dtype, uint16_t bits) {
  return dtype == SHAPE_BF16 ? RefCpu_bf16ToDouble(bits) : RefCpu_halfToDouble(bits);
}

uint16_t RefCpu_floatToElem(ShapeDtype dtype, float f) {
  return dtype == SHAPE_BF16 ? RefCpu_floatToBf16(f) : RefCpu_floatToHalf(f);
}

/* One query row against its key/value head: softmax(q K^T * scale) V over the visible keys. */
static void RefCpu_row(const Shape *s, const double *q, const double *k, const double *v, int last,
                       double *p, double *out) {
  const int D = s->D;
  const double scale = 1.0 / sqrt((double)D);
  double mx = -INFINITY;
  for (int j = 0; j <= last; j++) {
    double dot = 0;
    for (int d = 0; d < D; d++) dot += q[d] * k[(size_t)j * D + d];
    p[j] = dot * scale;
    if (p[j] > mx) mx = p[j];
  }
  double sum = 0;
  for (int j = 0; j <= last; j++) sum += (p[j] = exp(p[j] - mx));
  for (int d = 0; d < D; d++) {
    double acc = 0;
    for (int j = 0; j <= last; j++) acc += p[j] * v[(size_t)j * D + d];
    out[d] = acc / sum;
  }
}

static double *RefCpu_widen(ShapeDtype dtype, const uint16_t *src, size_t n) {
  double *w = Util_xmalloc(sizeof(double) * n);
  for (size_t i = 0; i < n; i++) w[i] = RefCpu_elemToDouble(dtype, src[i]);
  return w;
}

void RefCpu_attention(const Shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                      double *out) {
  const int Sq = s->S, Skv = Shape_skv(s), Hq = s->H, Hkv = Shape_hkv(s), D = s->D;
  const int group = Hq / Hkv;
  double *wq = RefCpu_widen(s->dtype, q, Shape_elems(s));
  double *wk = RefCpu_widen(s->dtype, k, Shape_kvElems(s));
  double *wv = RefCpu_widen(s->dtype, v, Shape_kvElems(s));
  double *p = Util_xmalloc(sizeof(double) * (size_t)Skv);
  for (long bh = 0; bh < (long)s->B * Hq; bh++) {
    const long b = bh / Hq, h = bh % Hq;
    const size_t qbase = (size_t)bh * Sq * D;
    const size_t kvbase = ((size_t)b * Hkv + (size_t)(h / group)) * Skv * D;
    for (int i = 0; i < Sq; i++) {
      /* Bottom-right causal: the queries are the last Sq positions of the sequence. */
      const int last = s->causal ? i + Skv - Sq : Skv - 1;
      RefCpu_row(s, wq + qbase + (size_t)i * D, wk + kvbase, wv + kvbase, last, p,
                 out + qbase + (size_t)i * D);
    }
  }
  free(p);
  free(wq);
  free(wk);
  free(wv);
}
