/* Compiling one variant again after its file changed (hot reload), away from the caller: a
 * child process runs NVRTC (no GPU needed) and writes one line back, so the TUI stays live
 * while the compiler works and a compiler that crashes costs the child alone. The build goes
 * to the on-disk JIT cache, so the worker's own build of the same code finds it there. */
#ifndef BENCHTOP_REBUILD_H
#define BENCHTOP_REBUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/registry.h"

typedef struct Rebuild Rebuild;

/* Starts compiling v at kv for head dimension D, for compute capability cc (x10; 0: the
 * variant's own lowest architecture). NULL with one line in err when it cannot start (no
 * compiler in this build, no process). */
Rebuild *Rebuild_start(const Variant *v, const KnobValues *kv, int D, int cc, char *err,
                       size_t errsize);
/* The descriptor to poll() for the result. */
int Rebuild_fd(const Rebuild *r);
/* Once Rebuild_fd is readable: the result in msg ("compiled in 180 ms, 96 regs, 0 spills
 * (sm_80)" or the first compiler error, "mine.cu:42: error: ..."), *ok whether it built. False
 * while the child is still compiling. */
bool Rebuild_result(Rebuild *r, bool *ok, char *msg, size_t size);
/* Ends a child still compiling (by its pid) and frees. */
void Rebuild_free(Rebuild *r);

#endif
