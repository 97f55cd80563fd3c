/* A viewer build has no kernel compiler: a reloaded declaration is checked, nothing compiled. */
#include "bench/rebuild.h"

#include <stdio.h>

Rebuild *Rebuild_start(const Variant *v, const KnobValues *kv, int D, int cc, char *err,
                       size_t errsize) {
  (void)kv;
  (void)D;
  (void)cc;
  snprintf(err, errsize, "%s: declaration reloaded; this build has no kernel compiler", v->name);
  return NULL;
}

int Rebuild_fd(const Rebuild *r) {
  (void)r;
  return -1;
}

bool Rebuild_result(Rebuild *r, bool *ok, char *msg, size_t size) {
  (void)r;
  (void)msg;
  (void)size;
  *ok = false;
  return false;
}

void Rebuild_free(Rebuild *r) { (void)r; }
