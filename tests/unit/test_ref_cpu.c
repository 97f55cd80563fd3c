/* The float64 CPU reference on every kind of problem (GQA, MQA, decode, chunked prefill with
 * bottom-right causal, bf16, D from 32 to 256) against a textbook float64 attention written
 * independently here (full score matrix, explicit mask), and against today's Sq = Skv, Hq = Hkv
 * path: a chunked prefill is the last rows of the full causal problem, GQA is MHA with K/V
 * repeated. Relative L2 error under 1e-6. Also the bf16 and fp16 conversions. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/ref_cpu.h"

static uint64_t Ref_rng = 0x9E3779B97F4A7C15ull;
static double Ref_uniform(void) {
  Ref_rng ^= Ref_rng << 13;
  Ref_rng ^= Ref_rng >> 7;
  Ref_rng ^= Ref_rng << 17;
  return (double)(Ref_rng >> 11) / 9007199254740992.0 * 4.0 - 2.0;
}

static uint16_t *Ref_random(ShapeDtype dtype, size_t n) {
  uint16_t *x = malloc(n * 2);
  for (size_t i = 0; i < n; i++) x[i] = RefCpu_floatToElem(dtype, (float)Ref_uniform());
  return x;
}

static double Ref_relL2(const double *got, const double *want, size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return den > 0 ? sqrt(num / den) : INFINITY;
}

/* Textbook: scores of every key, -inf where the bottom-right mask hides it, softmax, times V. */
static void Ref_textbook(const Shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                         double *out) {
  int Sq = s->S, Skv = Shape_skv(s), Hq = s->H, Hkv = Shape_hkv(s), D = s->D;
  double *sc = malloc(sizeof(double) * (size_t)Skv);
  for (int b = 0; b < s->B; b++)
    for (int h = 0; h < Hq; h++) {
      int hk = h * Hkv / Hq;
      for (int i = 0; i < Sq; i++) {
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < Skv; j++) {
          bool hidden = s->causal && j - (Skv - Sq) > i;
          double dot = 0;
          for (int d = 0; d < D; d++)
            dot += RefCpu_elemToDouble(s->dtype, q[(((size_t)b * Hq + h) * Sq + i) * D + d]) *
                   RefCpu_elemToDouble(s->dtype, k[(((size_t)b * Hkv + hk) * Skv + j) * D + d]);
          sc[j] = hidden ? -INFINITY : dot / sqrt((double)D);
          mx = fmax(mx, sc[j]);
        }
        for (int j = 0; j < Skv; j++) sum += (sc[j] = exp(sc[j] - mx));
        for (int d = 0; d < D; d++) {
          double acc = 0;
          for (int j = 0; j < Skv; j++)
            acc += sc[j] / sum *
                   RefCpu_elemToDouble(s->dtype, v[(((size_t)b * Hkv + hk) * Skv + j) * D + d]);
          out[(((size_t)b * Hq + h) * Sq + i) * D + d] = acc;
        }
      }
    }
  free(sc);
}

static void Ref_checkTextbook(const char *text) {
  Shape s;
  char err[300];
  CHECKF(Shape_parse(text, &s, err, sizeof err), "%s", err);
  size_t nq = Shape_elems(&s), nkv = Shape_kvElems(&s);
  uint16_t *q = Ref_random(s.dtype, nq), *k = Ref_random(s.dtype, nkv), *v = Ref_random(s.dtype, nkv);
  double *got = malloc(nq * sizeof(double)), *want = malloc(nq * sizeof(double));
  RefCpu_attention(&s, q, k, v, got);
  Ref_textbook(&s, q, k, v, want);
  double rel = Ref_relL2(got, want, nq);
  CHECKF(rel < 1e-6, "%s: rel L2 %.3e", text, rel);
  free(q); free(k); free(v); free(got); free(want);
}

/* A chunked prefill (and a causal decode) is the last Sq query rows of the full causal problem
 * of Skv queries, with GQA's K/V repeated per query head: today's path computes the latter. */
static void Ref_checkAgainstFull(const char *text) {
  Shape s, full;
  char err[300];
  CHECKF(Shape_parse(text, &s, err, sizeof err), "%s", err);
  int Sq = s.S, Skv = Shape_skv(&s), Hq = s.H, Hkv = Shape_hkv(&s), D = s.D;
  full = (Shape){.B = s.B, .H = Hq, .S = Skv, .D = D, .causal = s.causal, .dtype = s.dtype};
  size_t nfull = Shape_elems(&full), nkv = Shape_kvElems(&s);
  uint16_t *qf = Ref_random(s.dtype, nfull), *k = Ref_random(s.dtype, nkv), *v = Ref_random(s.dtype, nkv);
  uint16_t *q = malloc(Shape_elems(&s) * 2), *kf = malloc(nfull * 2), *vf = malloc(nfull * 2);
  for (size_t bh = 0; bh < (size_t)s.B * Hq; bh++) {
    size_t b = bh / Hq, hk = bh % Hq / (Hq / Hkv), rows = (size_t)Skv * D;
    memcpy(q + bh * Sq * D, qf + bh * rows + (size_t)(Skv - Sq) * D, (size_t)Sq * D * 2);
    memcpy(kf + bh * rows, k + (b * Hkv + hk) * rows, rows * 2);
    memcpy(vf + bh * rows, v + (b * Hkv + hk) * rows, rows * 2);
  }
  double *got = malloc(Shape_elems(&s) * sizeof(double)), *wantf = malloc(nfull * sizeof(double));
  double *want = malloc(Shape_elems(&s) * sizeof(double));
  RefCpu_attention(&s, q, k, v, got);
  RefCpu_attention(&full, qf, kf, vf, wantf);
  for (size_t bh = 0; bh < (size_t)s.B * Hq; bh++)
    memcpy(want + bh * Sq * D, wantf + bh * Skv * D + (size_t)(Skv - Sq) * D,
           (size_t)Sq * D * sizeof(double));
  double rel = Ref_relL2(got, want, Shape_elems(&s));
  CHECKF(rel < 1e-12, "%s against the full problem: rel L2 %.3e", text, rel);
  free(q); free(k); free(v); free(qf); free(kf); free(vf); free(got); free(want); free(wantf);
}

static void Ref_checkConversions(void) {
  CHECK(RefCpu_floatToBf16(1.0f) == 0x3f80);
  CHECK(RefCpu_floatToBf16(-2.0f) == 0xc000);
  CHECK(RefCpu_floatToBf16(1.0f + 1.0f / 256) == 0x3f80);     /* tie: to even (down) */
  CHECK(RefCpu_floatToBf16(1.0f + 3.0f / 256) == 0x3f82);     /* tie: to even (up) */
  CHECK(RefCpu_floatToBf16(1.0f + 1.0f / 128 + 1.0f / 1024) == 0x3f81);
  CHECK(RefCpu_floatToBf16(INFINITY) == 0x7f80);
  CHECK(RefCpu_floatToBf16(3.4e38f) == 0x7f80);               /* rounds past the largest */
  CHECK(isnan(RefCpu_bf16ToDouble(RefCpu_floatToBf16(NAN))));
  CHECK(RefCpu_bf16ToDouble(0x3f80) == 1.0 && RefCpu_bf16ToDouble(0x0001) == ldexp(1, -133));
  int bad = 0;
  for (uint32_t b = 0; b < 0x10000; b++) {
    uint16_t h = (uint16_t)b;
    double x = RefCpu_bf16ToDouble(h);
    if (!isnan(x) && RefCpu_floatToBf16((float)x) != h) bad++;
    x = RefCpu_halfToDouble(h);
    if (!isnan(x) && RefCpu_floatToHalf((float)x) != h) bad++;
  }
  CHECKF(bad == 0, "%d values do not round-trip", bad);
  CHECK(RefCpu_elemToDouble(SHAPE_BF16, 0x4040) == 3.0 && RefCpu_elemToDouble(SHAPE_FP16, 0x4200) == 3.0);
}

int main(void) {
  Ref_checkConversions();
  const char *kinds[] = {
    "1x2x37x64",                 "1x2x37x64:causal",        "2x4/2x33x64",
    "1x4/1x17/40x32",            "1x8/2x1/300x128:bf16",    "1x4/2x20/77x64:causal",
    "1x2x1/50x64:causal",        "1x2x37x96:causal:bf16",   "1x2/1x5/9x256:causal",
    "2x6/3x16/64x32:causal:bf16", "1x4/4x1/1x64",           "1x3/1x7/7x128:bf16",
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) Ref_checkTextbook(kinds[i]);
  const char *chunks[] = {"1x4/2x20/77x64:causal", "2x8/1x1/64x32:causal:bf16",
                          "1x2x16/48x64:causal", "1x4/2x30/30x64:causal", "1x4/2x5/40x64"};
  for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) Ref_checkAgainstFull(chunks[i]);
  return Check_done("test_ref_cpu");
}
