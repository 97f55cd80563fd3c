/* --l2-persist kv|q|qkv|off: persisting L2 lines for the named input tensors during the timed
 * launches. The device's persisting set-aside (cudaLimitPersistingL2CacheSize, at most what it
 * allows) and an access policy window on the worker's stream over the tensors (one window: it
 * spans from the first tensor's start to the last one's end, clamped to the device's largest
 * window; the hit ratio is set-aside / window, so the persisting lines fit), taken down after
 * them (the window cleared, cudaCtxResetPersistingL2Cache, the limit as it was) so the next
 * record starts clean. The worker log says the window. The option's word parsing has no CUDA. */
#ifndef BENCHTOP_L2PERSIST_H
#define BENCHTOP_L2PERSIST_H

#include <stdbool.h>
#include <stddef.h>

#include "sessions/record.h"

typedef enum { L2P_OFF = 0, L2P_Q, L2P_KV, L2P_QKV } L2PersistWhich;

/* "off" (or "" in sessions made before the option), "q", "kv", "qkv"; false for any other. */
bool L2Persist_parse(const char *word, L2PersistWhich *out);
/* Whether the option asks for a window. */
bool L2Persist_on(const RunOptions *o);

#if BENCHTOP_GPU
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

#endif
