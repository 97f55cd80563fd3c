/* Compiling a batch of configurations before the worker measures them: several processes
 * (fork, one NVRTC compile at a time each) fill the on-disk JIT cache, so the worker, which
 * compiles one module at a time, finds every build there. An fa3 build takes 0.5-3 s and a
 * GPU box has cores to spare; the cache key is the worker's (source, flags, arch, NVRTC), so
 * a prebuilt module is never compiled again. Non-blocking: the caller polls. */
#ifndef BENCHTOP_TUNE_PREBUILD_H
#define BENCHTOP_TUNE_PREBUILD_H

#include <stdbool.h>

#include "bench/plan.h"

typedef struct Prebuild Prebuild;

/* Starts up to jobs processes compiling the distinct (variant, knobs, D) of entries for a
 * device of compute capability cc (x10). NULL when there is nothing to do (jobs < 1). */
Prebuild *Prebuild_start(const PlanEntry *entries, int n, int cc, int jobs);
/* True once every process ended (reaps them; never blocks). */
bool Prebuild_done(Prebuild *p);
/* Ends the processes still compiling (each by its own pid) and reaps them. */
void Prebuild_cancel(Prebuild *p);
/* Frees (cancelling first if needed). */
void Prebuild_free(Prebuild *p);
/* Distinct builds in the batch. */
int Prebuild_count(const Prebuild *p);
/* Processes a tune uses by default: BENCHTOP_WORKER (a scripted worker compiles nothing)
 * means none; else the online cores, at most 16. */
int Prebuild_defaultJobs(void);

#endif
