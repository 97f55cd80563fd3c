/* cuBLAS through dlopen (bench/worker/cublas_api.h says why). The library's soname follows the
 * headers this was built with, so a build never loads a cuBLAS of another major version. */
#include <dlfcn.h>
#include <stdio.h>

#include "bench/worker/cublas_api.h"

#define CUBLAS_STR2(x) #x
#define CUBLAS_STR(x) CUBLAS_STR2(x)
#define CUBLAS_SONAME "libcublas.so." CUBLAS_STR(CUBLAS_VER_MAJOR)

static CublasApi api;
static char api_error[256];
static bool api_tried, api_ok;

static void *Api_sym(void *lib, const char *name, bool *ok) {
  void *f = dlsym(lib, name);
  if (!f && *ok) {
    snprintf(api_error, sizeof api_error, "%s lacks %s: reinstall the CUDA toolkit's cuBLAS",
             CUBLAS_SONAME, name);
    *ok = false;
  }
  return f;
}

/* The field gets the header's own prototype: a CublasApi field that disagrees with cublas_v2.h
 * fails to compile. POSIX allows converting dlsym's void * to a function pointer; ISO C does
 * not say. */
#define API_SYM(field, name)                                                                   \
  do {                                                                                         \
    __typeof__(&name) f_;                                                                      \
    *(void **)&f_ = Api_sym(lib, #name, &ok);                                                  \
    api.field = f_;                                                                            \
  } while (0)

const CublasApi *CublasApi_load(char *why, size_t whysize) {
  if (!api_tried) {
    api_tried = true;
    void *lib = dlopen(CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *e = dlerror();
      snprintf(api_error, sizeof api_error, "cannot load %s (%s): put the CUDA toolkit's lib64 "
               "folder on LD_LIBRARY_PATH", CUBLAS_SONAME, e ? e : "not found");
    } else {
      bool ok = true;
      API_SYM(create, cublasCreate_v2);
      API_SYM(set_stream, cublasSetStream_v2);
      API_SYM(gemm_ex, cublasGemmEx);
      API_SYM(gemm_strided_batched_ex, cublasGemmStridedBatchedEx);
      API_SYM(status_string, cublasGetStatusString);
      api_ok = ok;
      if (!ok) dlclose(lib);
    }
  }
  if (api_ok) return &api;
  snprintf(why, whysize, "%s", api_error);
  return NULL;
}

bool CublasApi_check(const CublasApi *a, cublasStatus_t st, const char *what, char *err, size_t errsize) {
  if (st == CUBLAS_STATUS_SUCCESS) return true;
  snprintf(err, errsize, "%s: cuBLAS status %d (%s)", what, (int)st,
           a && a->status_string ? a->status_string(st) : "?");
  return false;
}

const CublasApi *CublasApi_forGpu(Gpu *g, char *err, size_t errsize) {
  const CublasApi *a = CublasApi_load(err, errsize);
  if (!a) return NULL;
  if (!g->cublas) {
    cublasHandle_t h;
    if (!CublasApi_check(a, a->create(&h), "creating the cuBLAS handle", err, errsize)) return NULL;
    g->cublas = h;
  }
  if (!CublasApi_check(a, a->set_stream(g->cublas, g->stream), "setting the cuBLAS stream", err, errsize))
    return NULL;
  return a;
}
