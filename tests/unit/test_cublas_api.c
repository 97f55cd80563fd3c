/* cuBLAS through dlopen (bench/worker/cublas_api.h): the library of the headers' major version
 * loads and has every function the worker calls, with no GPU; a failed status reads as one
 * line with cuBLAS's own name for it. */
#include <stdio.h>
#include <string.h>

#include "bench/worker/cublas_api.h"

int main(void) {
  int fail = 0;
  char why[256] = "";
  const CublasApi *a = CublasApi_load(why, sizeof why);
  if (!a || !a->create || !a->set_stream || !a->gemm_ex || !a->gemm_strided_batched_ex || !a->status_string) {
    printf("FAIL cuBLAS not loaded: %s\n", why);
    return 1;
  }
  printf("ok   libcublas.so.%d loaded with its five functions\n", CUBLAS_VER_MAJOR);
  if (CublasApi_load(why, sizeof why) != a) { printf("FAIL a second load gave another table\n"); fail = 1; }
  char err[256] = "";
  if (!CublasApi_check(a, CUBLAS_STATUS_SUCCESS, "x", err, sizeof err) || err[0]) {
    printf("FAIL success reads as a failure\n");
    fail = 1;
  }
  if (CublasApi_check(a, CUBLAS_STATUS_NOT_INITIALIZED, "creating the cuBLAS handle", err, sizeof err) ||
      !strstr(err, "creating the cuBLAS handle: cuBLAS status 1") || !strstr(err, "not initialized") ||
      strchr(err, '\n')) {
    printf("FAIL a failed status reads '%s'\n", err);
    fail = 1;
  } else {
    printf("ok   a failed status: %s\n", err);
  }
  return fail;
}
