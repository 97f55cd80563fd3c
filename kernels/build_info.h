/* What compiling a kernel produced: the ptxas resource report and where the cubin came from.
 * Made by the JIT (kernels/jit.c), kept in every record (sessions/record.h). */
#ifndef BENCHTOP_BUILD_INFO_H
#define BENCHTOP_BUILD_INFO_H

#include <stdbool.h>

typedef struct BuildInfo {
  int regs, smem_static, smem_dynamic, stack_bytes, spill_stores, spill_loads; /* -1: unknown */
  double compile_ms;
  bool cache_hit;
  char source_hash[20]; /* 16 hex digits: the variant's .cu with the headers it may include */
  /* Where that source came from: the file's path for a kernel on the kernel path, the bare file
   * name ("mma.cu") for one compiled into the binary; "" unknown (older records). */
  char source_path[512];
  char arch[16];        /* sm_90, sm_90a, ... */
} BuildInfo;

#endif
