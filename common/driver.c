#include "common/driver.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

bool Driver_fn(const char *sym, void *fn_out, char *err, size_t errsize) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  cudaError_t e = cudaGetDriverEntryPointByVersion(sym, &fn, 12000, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
    snprintf(err, errsize, "driver entry point %s not found (%s)", sym,
             e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
    return false;
  }
  memcpy(fn_out, &fn, sizeof fn); /* object to function pointer, without a cast ISO C forbids */
  return true;
}
