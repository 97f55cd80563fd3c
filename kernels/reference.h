/* The fp32 GPU reference (kernels/reference.cu): how the engine compiles and launches it.
 * It reads fp16 q/k/v and writes fp32 AttnParams.o_f32 [B, H, S, D]; runtime D <= 256. */
#ifndef BENCHTOP_REFERENCE_H
#define BENCHTOP_REFERENCE_H

#include "kernels/registry.h"
#include "kernels/shape.h"

#define REFERENCE_SOURCE "reference.cu"
#define REFERENCE_ENTRY "ref_attn"
#define REFERENCE_MAX_D 256

extern const char *const Reference_source;
extern const char *const Reference_entry;

/* Grid (ceil(S / 16), B*H), 256 threads, static shared memory only (about 42 KiB). */
void Reference_dims(const Shape *s, LaunchDims *out);

#endif
