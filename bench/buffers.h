/* Device buffers of the worker (see bench/buffers.c). */
#ifndef BENCHTOP_BUFFERS_H
#define BENCHTOP_BUFFERS_H

#include "bench/gpu.h"

typedef struct BufferNeeds {
  size_t elems;           /* of one [B,H,S,D] tensor */
  size_t workspace_bytes;
  size_t partial_elems;   /* split-KV partial outputs (splits * elems), 0 if none */
  int bh, D;
  bool fp8;               /* fp8 copies of Q/K/V and per-(b,h) scales */
  bool cold_l2;           /* a flush buffer of twice the L2 */
} BufferNeeds;

bool Buffers_ensure(Gpu *g, const BufferNeeds *n, char *err, size_t errsize);

#endif
