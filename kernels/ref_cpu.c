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

void RefCpu_attention(const Shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                      double *out) {
  const int S = s->S, D = s->D;
  const double scale = 1.0 / sqrt((double)D);
  double *p = Util_xmalloc(sizeof(double) * (size_t)S);
  for (long bh = 0; bh < (long)s->B * s->H; bh++) {
    const size_t base = (size_t)bh * S * D;
    for (int i = 0; i < S; i++) {
      const int last = s->causal ? i : S - 1;
      double mx = -INFINITY;
      for (int j = 0; j <= last; j++) {
        double dot = 0;
        for (int d = 0; d < D; d++)
          dot += RefCpu_halfToDouble(q[base + (size_t)i * D + d]) *
                 RefCpu_halfToDouble(k[base + (size_t)j * D + d]);
        p[j] = dot * scale;
        if (p[j] > mx) mx = p[j];
      }
      double sum = 0;
      for (int j = 0; j <= last; j++) sum += (p[j] = exp(p[j] - mx));
      for (int d = 0; d < D; d++) {
        double acc = 0;
        for (int j = 0; j <= last; j++) acc += p[j] * RefCpu_halfToDouble(v[base + (size_t)j * D + d]);
        out[base + (size_t)i * D + d] = acc / sum;
      }
    }
  }
  free(p);
}
