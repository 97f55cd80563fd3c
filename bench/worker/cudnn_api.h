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

/* The fused attention forward graph of one problem (fp16 or bf16 Q, O [B, H, S, D] and K, V
 * [B, Hkv, Skv, D], contiguous; H a multiple of Hkv, the query heads of one key/value head
 * sharing it; causal: query i sees keys 0 .. i + Skv - S, bottom-right aligned), finalized, with
 * the engine configurations cuDNN's heuristics (mode A) offer for it, best first. */
typedef struct CudnnGraph {
  int B, H, S, D;
  int Hkv, Skv;
  bool bf16;
  bool causal;
  /* cuDNN <= 9.15 computes wrong results for lengths not a multiple of 128 without a padding
   * mask (the cuDNN frontend works around it the same way): the graph then reads the sequence
   * lengths from seq_q and seq_kv, B int32 copies of S and of Skv on the device. */
  bool padded;
  int *seq_q, *seq_kv;
  cudnnBackendDescriptor_t graph;
  cudnnBackendDescriptor_t *configs;
  int nconfigs;
  cudnnBackendDescriptor_t *owned; /* every descriptor made for the graph, destroyed with it */
  int nowned, capowned;
} CudnnGraph;

/* Whether the causal mask moves its diagonal to the bottom right (fewer queries than keys):
 * row + Skv - S >= col, as the cuDNN frontend builds it (an add and a subtract of the lengths). */
static inline bool CudnnGraph_shifted(const CudnnGraph *g) { return g->causal && g->S != g->Skv; }

/* The unique ids of the graph's non-virtual tensors (the variant pack's order): the by-value
 * lengths SKV and SQ shift an unpadded causal diagonal; SEQ_Q and SEQ_KV are a padded graph's. */
enum { CUDNN_UID_Q = 1, CUDNN_UID_K, CUDNN_UID_V, CUDNN_UID_O, CUDNN_UID_SCALE, CUDNN_UID_NEG,
       CUDNN_UID_SEQ_Q, CUDNN_UID_SEQ_KV, CUDNN_UID_SKV, CUDNN_UID_SQ, CUDNN_UIDS = 10 };

bool CudnnGraph_build(const CudnnApi *a, cudnnHandle_t h, CudnnGraph *g, char *err, size_t errsize);
void CudnnGraph_free(const CudnnApi *a, CudnnGraph *g);

#endif
