/* What the JIT compiles, apart from compiling it (no NVRTC here, so builds without the CUDA
 * toolkit have it too): the kernel sources (embedded, or BENCHTOP_KERNEL_DIR's copies) with
 * the shared headers every kernel may include, and the hash records and the tuned table key
 * them by. Jit_loadSource, Jit_sourceHash and Jit_archFor are declared in kernels/jit.h. */
#ifndef BENCHTOP_JIT_SOURCE_H
#define BENCHTOP_JIT_SOURCE_H

#include <stdint.h>

#define JIT_HEADERS 7
extern const char *const Jit_headerNames[JIT_HEADERS];

/* The kernel's text and every shared header's (hdr_src[JIT_HEADERS], "" when missing). */
uint64_t Jit_hashSources(const char *source, const char *const *hdr_src);

#endif
