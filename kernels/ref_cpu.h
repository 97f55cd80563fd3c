/* float64 CPU attention: the independent check of the fp32 GPU reference (small shapes). */
#ifndef BENCHTOP_REF_CPU_H
#define BENCHTOP_REF_CPU_H

#include <stdint.h>

#include "kernels/shape.h"

/* q: [B,Hq,Sq,D], k and v: [B,Hkv,Skv,D], bit patterns of s->dtype (fp16 or bf16); out: float64
 * [B,Hq,Sq,D]. Query head h reads key/value head h / (Hq / Hkv); causal is bottom-right (query i
 * sees keys 0 .. i + Skv - Sq). */
void RefCpu_attention(const Shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                      double *out);
double RefCpu_halfToDouble(uint16_t h);
uint16_t RefCpu_floatToHalf(float f);
double RefCpu_bf16ToDouble(uint16_t h);
uint16_t RefCpu_floatToBf16(float f);
/* The element of a dtype: widened exactly, or rounded to nearest even. */
double RefCpu_elemToDouble(ShapeDtype dtype, uint16_t bits);
uint16_t RefCpu_floatToElem(ShapeDtype dtype, float f);

#endif
