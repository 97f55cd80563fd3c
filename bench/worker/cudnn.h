/* The `cudnn` variant's engine side: cuDNN's fused attention forward through its backend graph
 * API, loaded at run time. Plans are built once per (problem, engine) and cached in the worker. */
#ifndef BENCHTOP_CUDNN_H
#define BENCHTOP_CUDNN_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this build and this machine can run cuDNN; false with one line saying why (a build
 * without cuDNN, or no loadable libcudnn.so.9). Needs no GPU. */
bool Cudnn_available(char *why, size_t whysize);

#if BENCHTOP_GPU
#include "bench/worker/gpu.h"

/* Whether the variant runs the cudnn_sdpa hook. */
bool Cudnn_uses(const Variant *v);
/* Build the variant's cuDNN plan for this problem and its `engine` knob, or find it cached.
 * *built_ms: the time spent building now (0 when cached). False with *refused set: this engine
 * cannot run this problem (cuDNN's reason in err); false otherwise: an error. */
bool Cudnn_prepare(Gpu *g, const Variant *v, const KnobValues *kv, const Shape *s,
                   double *built_ms, bool *refused, char *err, size_t errsize);
/* Launch the prepared plan on the params' buffers, on the worker's stream. */
bool Cudnn_run(Gpu *g, const Variant *v, const KnobValues *kv, const AttnParams *p, char *err,
               size_t errsize);
void Cudnn_free(Gpu *g);
#endif

#endif
