/* Device buffers of the worker (see bench/worker/buffers.c). */
#ifndef BENCHTOP_BUFFERS_H
#define BENCHTOP_BUFFERS_H

#include "bench/worker/gpu.h"

typedef struct BufferNeeds {
  size_t elems;           /* of Q or O, [B,H,S,D] */
  size_t kv_elems;        /* of K or V, [B,Hkv,Skv,D] */
  size_t workspace_bytes;
  size_t partial_o_bytes;   /* AttnParams.o_f32: split-KV partial outputs, 0 if none */
  size_t partial_lse_bytes; /* AttnParams.lse */
  int bh, D;
  bool fp8;               /* fp8 copies of Q/K/V and per-(b,h) scales */
  bool cold_l2;           /* a flush buffer of twice the L2 */
} BufferNeeds;

bool Buffers_ensure(Gpu *g, const BufferNeeds *n, char *err, size_t errsize);
/* Frees every buffer (the worker's end). */
void Buffers_free(GpuBuffers *b);

/* A buffer a kernel is handed: where it is, the bytes this entry uses of it, what it holds. A
 * guard band of INTEGRITY_GUARD_BYTES lies before ptr and after ptr + used. */
typedef struct BufferRegion {
  const char *name;       /* "O", "the workspace", ... as a record's reason names it */
  void *ptr;
  size_t used, capacity;
  bool input;             /* Q, K, V: checksummed, never written */
} BufferRegion;
#define BUFFERS_REGIONS_MAX 11

/* The buffers allocated now, with the bytes entry n uses of each (at most BUFFERS_REGIONS_MAX). */
int Buffers_regions(const GpuBuffers *b, const BufferNeeds *n, BufferRegion *out);

#endif
