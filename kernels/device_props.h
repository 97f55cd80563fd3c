/* The facts about one GPU that launch geometry and the engine's heuristics depend on. The
 * worker reads them from the device itself (cudaGetDeviceProperties); nothing in the registry
 * or the engine may assume a particular card (an L4 has 58 SMs and 48 MiB of L2, an H100 SXM
 * 132 and 50 MiB). tests/kernels/test_device_props.c checks every heuristic on both. */
#ifndef BENCHTOP_DEVICE_PROPS_H
#define BENCHTOP_DEVICE_PROPS_H

#include <stddef.h>
#include <stdint.h>

/* Kernel declarations read cc, sm_count (as `sms`), l2_bytes and smem_optin in their
 * expressions, and every launch is checked against the limits; a field of 0 is unknown (no
 * device: the check is left to the device itself). */
typedef struct DeviceProps {
  int cc;             /* compute capability x10: 80, 86, 89, 90 */
  int sm_count;       /* multiprocessors */
  int64_t l2_bytes;   /* L2 cache size */
  int smem_optin;     /* shared memory one block may opt into (bytes); 0 = unknown */
  int max_threads;    /* threads one block may have */
  int max_block[3];   /* block dimensions */
  int64_t max_grid[3]; /* grid dimensions */
} DeviceProps;

/* Blocks of a persistent launch: one per SM at most (the kernel walks the rest), never 0 for a
 * non-empty grid. */
unsigned DeviceProps_persistentBlocks(const DeviceProps *d, unsigned long long grid_blocks);
/* Bytes the cold-L2 flush writes between timed launches: twice the L2, so that no line of the
 * inputs or the output survives whatever the replacement policy. */
size_t DeviceProps_flushBytes(const DeviceProps *d);
/* Blocks of the flush kernel: enough to keep every SM's load/store units busy. */
unsigned DeviceProps_flushBlocks(const DeviceProps *d);

#endif
