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

#endif
