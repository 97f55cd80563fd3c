/* A build without cuDNN (-Dcudnn=disabled, or no cudnn_graph.h found at setup): the `cudnn`
 * variant is listed as unavailable and refused with the reason. */
#include <stdio.h>

#include "bench/worker/cudnn.h"

#ifndef BENCHTOP_CUDNN_WHY
#define BENCHTOP_CUDNN_WHY "built without cuDNN"
#endif

bool Cudnn_available(char *why, size_t whysize) {
  snprintf(why, whysize, "%s (rebuild with -Dcudnn=enabled, -Dcudnn_root=DIR if its headers are "
           "elsewhere)", BENCHTOP_CUDNN_WHY);
  return false;
}

#if BENCHTOP_GPU
bool Cudnn_uses(const Variant *v) {
  for (int i = 0; i < v->nsteps; i++)
    if (v->steps[i].hook == HOOK_CUDNN_SDPA) return true;
  return false;
}

bool Cudnn_prepare(Gpu *g, const Variant *v, const KnobValues *kv, const Shape *s,
                   double *built_ms, bool *refused, char *err, size_t errsize) {
  (void)g, (void)v, (void)kv, (void)s;
  *built_ms = 0;
  *refused = true;
  Cudnn_available(err, errsize);
  return false;
}

bool Cudnn_run(Gpu *g, const Variant *v, const KnobValues *kv, const AttnParams *p, char *err,
               size_t errsize) {
  (void)g, (void)v, (void)kv, (void)p;
  Cudnn_available(err, errsize);
  return false;
}

void Cudnn_free(Gpu *g) { (void)g; }
#endif
