#include "bench/worker/l2persist_window.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The span of the named tensors: from the lowest start to the highest end. */
static void L2Persist_span(L2PersistWhich w, const AttnParams *p, size_t bytes, uintptr_t *lo,
                           uintptr_t *hi) {
  const void *t[3];
  int n = 0;
  if (w == L2P_Q || w == L2P_QKV) t[n++] = p->q;
  if (w == L2P_KV || w == L2P_QKV) {
    t[n++] = p->k;
    t[n++] = p->v;
  }
  *lo = UINTPTR_MAX;
  *hi = 0;
  for (int i = 0; i < n; i++) {
    uintptr_t a = (uintptr_t)t[i];
    if (!a) continue;
    if (a < *lo) *lo = a;
    if (a + bytes > *hi) *hi = a + bytes;
  }
}

bool L2Persist_begin(Gpu *g, const RunOptions *o, const AttnParams *p, size_t bytes, L2Persist *l,
                     bool *refused, char *err, size_t errsize) {
  memset(l, 0, sizeof *l);
  *refused = false;
  L2PersistWhich w;
  if (!L2Persist_parse(o->l2_persist, &w)) {
    *refused = true;
    snprintf(err, errsize, "--l2-persist %.8s: not one of kv, q, qkv, off", o->l2_persist);
    return false;
  }
  if (w == L2P_OFF) return true;
  *refused = true;
  if (o->graph) {
    snprintf(err, errsize, "--l2-persist with --graph: a graph's kernels do not take the stream's "
             "access policy window; time without --graph");
    return false;
  }
  int max_persist = 0, max_window = 0;
  if (!Gpu_ok(cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, g->device),
              "reading the persisting L2 size", err, errsize) ||
      !Gpu_ok(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, g->device),
              "reading the largest access policy window", err, errsize)) {
    *refused = false;
    return false;
  }
  if (max_persist <= 0 || max_window <= 0) {
    snprintf(err, errsize, "--l2-persist: this device has no persisting L2 (set-aside %d bytes, "
             "window %d bytes)", max_persist, max_window);
    return false;
  }
  uintptr_t lo, hi;
  L2Persist_span(w, p, bytes, &lo, &hi);
  if (bytes == 0 || hi <= lo) {
    snprintf(err, errsize, "--l2-persist %s: the window would be empty", o->l2_persist);
    return false;
  }
  *refused = false;
  l->window_bytes = hi - lo < (size_t)max_window ? hi - lo : (size_t)max_window;
  l->setaside = l->window_bytes < (size_t)max_persist ? l->window_bytes : (size_t)max_persist;
  l->hit_ratio = (float)((double)l->setaside / (double)l->window_bytes);
  if (!Gpu_ok(cudaDeviceGetLimit(&l->old_limit, cudaLimitPersistingL2CacheSize),
              "reading the persisting L2 limit", err, errsize) ||
      !Gpu_ok(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, l->setaside),
              "setting the persisting L2 limit", err, errsize))
    return false;
  cudaStreamAttrValue a;
  memset(&a, 0, sizeof a);
  a.accessPolicyWindow.base_ptr = (void *)lo;
  a.accessPolicyWindow.num_bytes = l->window_bytes;
  a.accessPolicyWindow.hitRatio = l->hit_ratio;
  a.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  a.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  l->active = true; /* the limit is set: end restores it */
  if (!Gpu_ok(cudaStreamSetAttribute(g->stream, cudaStreamAttributeAccessPolicyWindow, &a),
              "setting the access policy window", err, errsize)) {
    L2Persist_end(g, l, NULL, 0);
    return false;
  }
  fprintf(stderr, "benchtop worker: --l2-persist %s: window base %p, %zu bytes (tensors %zu bytes "
          "each, span %zu), set-aside %zu of %d bytes, hit ratio %.3f\n", o->l2_persist, (void *)lo,
          l->window_bytes, bytes, (size_t)(hi - lo), l->setaside, max_persist, l->hit_ratio);
  return true;
}

bool L2Persist_end(Gpu *g, L2Persist *l, char *err, size_t errsize) {
  if (!l->active) return true;
  l->active = false;
  char own[320];
  if (!err) { /* the caller keeps an earlier error: this one goes to the log only */
    err = own;
    errsize = sizeof own;
  }
  cudaStreamAttrValue a;
  memset(&a, 0, sizeof a); /* num_bytes 0: no window */
  bool ok = Gpu_ok(cudaStreamSetAttribute(g->stream, cudaStreamAttributeAccessPolicyWindow, &a),
                   "clearing the access policy window", err, errsize);
  ok = ok && Gpu_ok(cudaStreamSynchronize(g->stream), "before resetting the persisting L2", err, errsize);
  ok = ok && Gpu_ok(cudaCtxResetPersistingL2Cache(), "resetting the persisting L2 lines", err, errsize);
  ok = ok && Gpu_ok(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, l->old_limit),
                    "restoring the persisting L2 limit", err, errsize);
  if (ok) fprintf(stderr, "benchtop worker: --l2-persist: window cleared, persisting lines reset, "
                  "limit back to %zu bytes\n", l->old_limit);
  else fprintf(stderr, "benchtop worker: --l2-persist: %s\n", err);
  return ok;
}
