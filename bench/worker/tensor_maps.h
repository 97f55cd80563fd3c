/* TMA tensor maps for the variants that read tiles through the copy engine (a declaration's
 * `tma` line): built on the host for the worker's current buffers, carried in AttnParams. */
#ifndef BENCHTOP_TENSOR_MAPS_H
#define BENCHTOP_TENSOR_MAPS_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/attn_params.h"
#include "kernels/registry.h"

/* Fills p->tmap_q/k/v/o (from p->q/k/v/o and the shape) for the boxes the plan asks for; a
 * no-op when it asks for none. False with one line in err when the driver refuses one. */
bool TensorMaps_fill(const LaunchPlan *plan, const Shape *s, AttnParams *p, char *err,
                     size_t errsize);

#endif
