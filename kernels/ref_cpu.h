/* float64 CPU attention: the independent check of the fp32 GPU reference (small shapes). */
#ifndef BENCHTOP_REF_CPU_H
#define BENCHTOP_REF_CPU_H

#include <stdint.h>

#include "kernels/shape.h"

/* q, k, v: fp16 bit patterns [B,H,S,D]; out: float64 [B,H,S,D]. */
void RefCpu_attention(const Shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                      double *out);
double RefCpu_halfToDouble(uint16_t h);
uint16_t RefCpu_floatToHalf(float f);

#endif
