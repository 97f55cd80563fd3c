/* cuDNN's backend (graph) API, reached through dlopen so that a machine without libcudnn.so.9
 * still runs every other variant. Only bench/cudnn*.c include this (it needs cudnn_graph.h). */
#ifndef BENCHTOP_CUDNN_API_H
#define BENCHTOP_CUDNN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cudnn_graph.h>

typedef struct CudnnApi {
  void *lib;
  size_t version; /* cudnnGetVersion(): 91400 for 9.14.0 */
  cudnnStatus_t (*create)(cudnnHandle_t *);
  cudnnStatus_t (*destroy)(cudnnHandle_t);
  cudnnStatus_t (*set_stream)(cudnnHandle_t, cudaStream_t);
  size_t (*get_version)(void);
  const char *(*error_string)(cudnnStatus_t);
  void (*last_error)(char *, size_t);
  cudnnStatus_t (*make)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *);
  cudnnStatus_t (*unmake)(cudnnBackendDescriptor_t);
  cudnnStatus_t (*set)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                       cudnnBackendAttributeType_t, int64_t, const void *);
  cudnnStatus_t (*get)(cudnnBackendDescriptor_t const, cudnnBackendAttributeName_t,
                       cudnnBackendAttributeType_t, int64_t, int64_t *, void *);
  cudnnStatus_t (*finalize)(cudnnBackendDescriptor_t);
  cudnnStatus_t (*execute)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t);
} CudnnApi;

/* The loaded library (loaded once per process), or NULL with one line in why. */
const CudnnApi *CudnnApi_load(char *why, size_t whysize);

/* A failed call as one line: what failed, cuDNN's status name and its last error message. */
bool CudnnApi_check(const CudnnApi *a, cudnnStatus_t st, const char *what, char *err, size_t errsize);

/* The fused attention forward graph of one problem (fp16 [B, H, S, D] Q, K, V, O, contiguous;
 * causal: query i sees keys 0 .. i), finalized, with the engine configurations cuDNN's
 * heuristics (mode A) offer for it, best first. */
typedef struct CudnnGraph {
  int B, H, S, D;
  bool causal;
  /* cuDNN <= 9.15 computes wrong results for keys not a multiple of 128 without a padding mask
   * (the cuDNN frontend works around it the same way): the graph then reads the sequence
   * lengths from seq_lens, B int32 copies of S on the device. */
  bool padded;
  int *seq_lens;
  cudnnBackendDescriptor_t graph;
  cudnnBackendDescriptor_t *configs;
  int nconfigs;
  cudnnBackendDescriptor_t *owned; /* every descriptor made for the graph, destroyed with it */
  int nowned, capowned;
} CudnnGraph;

/* The unique ids of the graph's non-virtual tensors (the variant pack's order). */
enum { CUDNN_UID_Q = 1, CUDNN_UID_K, CUDNN_UID_V, CUDNN_UID_O, CUDNN_UID_SCALE, CUDNN_UID_NEG,
       CUDNN_UID_SEQ, CUDNN_UIDS = 7 };

bool CudnnGraph_build(const CudnnApi *a, cudnnHandle_t h, CudnnGraph *g, char *err, size_t errsize);
void CudnnGraph_free(const CudnnApi *a, CudnnGraph *g);

#endif
