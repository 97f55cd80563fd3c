/* Driver API functions without linking libcuda: the runtime hands out their addresses, so the
 * binary still starts on a machine with no driver (cupti/ and bench/worker/tensor_maps.c use it). */
#ifndef BENCHTOP_DRIVER_H
#define BENCHTOP_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

/* Stores the address of driver function `sym` (CUDA 12.0 ABI) in *fn_out, a function pointer
 * of the caller's type; false with one line in err when the driver does not have it. */
bool Driver_fn(const char *sym, void *fn_out, char *err, size_t errsize);

#endif
