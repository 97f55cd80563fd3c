/* Prebuilding in a build without the CUDA toolkit (meson -Dgpu=disabled): there is no NVRTC to
 * compile with and its worker measures nothing (worker_viewer.c), so a tune there never gets
 * past the worker's "no GPU"; nothing is compiled ahead. */
#include "bench/tune/tune_prebuild.h"

#include <stdlib.h>

Prebuild *Prebuild_start(const PlanEntry *entries, int n, int cc, int jobs) {
  (void)entries;
  (void)n;
  (void)cc;
  (void)jobs;
  return NULL;
}

bool Prebuild_done(Prebuild *p) {
  (void)p;
  return true;
}

void Prebuild_cancel(Prebuild *p) { (void)p; }

void Prebuild_free(Prebuild *p) { free(p); }

int Prebuild_count(const Prebuild *p) {
  (void)p;
  return 0;
}

int Prebuild_defaultJobs(void) { return 0; }
