/* The worker's half of --l2-persist (the option's words are bench/l2persist.h): the window over
 * the input tensors for the timed launches, and its taking down. */
#ifndef BENCHTOP_L2PERSIST_WINDOW_H
#define BENCHTOP_L2PERSIST_WINDOW_H

#include "bench/l2persist.h"
#include "bench/worker/gpu.h"

typedef struct L2Persist {
  bool active;            /* a window is set: L2Persist_end takes it down */
  size_t old_limit;       /* cudaLimitPersistingL2CacheSize before */
  size_t window_bytes, setaside;
  float hit_ratio;
} L2Persist;

/* Sets the window for the tensors o names (each `bytes` long) when o asks for one; a no-op
 * otherwise. False with one line in err: refused (no persisting L2 on this device, an empty
 * window, --graph) or a CUDA call that failed; *refused says which (a refusal is the record's
 * n/a, a failure its error). */
bool L2Persist_begin(Gpu *g, const RunOptions *o, const AttnParams *p, size_t bytes, L2Persist *l,
                     bool *refused, char *err, size_t errsize);
/* Takes down what begin set (a no-op when nothing was, or already taken down). err may be NULL
 * (an earlier error is kept; this one goes to the worker log). */
bool L2Persist_end(Gpu *g, L2Persist *l, char *err, size_t errsize);

#endif
