/* The operation graph cuDNN's fused flash-attention engine recognises (what the cuDNN
 * frontend's sdpa node lowers to for inference):
 *   S = Q K^T (matmul; K given as a [B, Hkv, D, Skv] view by its strides: with fewer key/value
 *   heads than query heads the engine shares each among its group), S = S * scale (a by-value
 *   scalar), causal: S = (row [+ Skv - S] >= col) ? S : lowest (GEN_INDEX on axes 2 and 3, the
 *   bottom-right shift as an add and a subtract of the lengths, CMP_GE, BINARY_SELECT),
 *   softmax as max / sub / exp / sum / div with the log-sum-exp stats as a virtual output,
 *   O = P V (matmul). Every intermediate is a virtual fp32 tensor but P (bmm2's A operand takes
 *   the I/O type, fp16 or bf16). Padded (see CudnnGraph): the GEMMs read the sequence lengths
 *   from device tensors and a padding mask precedes the causal one. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/cudnn_api.h"
#include "common/util.h"

typedef struct Builder {
  const CudnnApi *a;
  CudnnGraph *g;
  int64_t next_uid; /* virtual tensors' ids */
  char *err;
  size_t errsize;
} Builder;

static bool B_keep(Builder *b, cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *out,
                   const char *what) {
  CudnnGraph *g = b->g;
  if (g->nowned == g->capowned) {
    g->capowned = g->capowned ? 2 * g->capowned : 64;
    g->owned = Util_xrealloc(g->owned, sizeof *g->owned * (size_t)g->capowned);
  }
  if (!CudnnApi_check(b->a, b->a->make(type, out), what, b->err, b->errsize)) return false;
  g->owned[g->nowned++] = *out;
  return true;
}

static bool B_set(Builder *b, cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                  cudnnBackendAttributeType_t type, int64_t n, const void *value, const char *what) {
  return CudnnApi_check(b->a, b->a->set(d, name, type, n, value), what, b->err, b->errsize);
}

static bool B_final(Builder *b, cudnnBackendDescriptor_t d, const char *what) {
  return CudnnApi_check(b->a, b->a->finalize(d), what, b->err, b->errsize);
}

/* A 4-D tensor; uid 0: a new virtual one. */
static bool B_tensor(Builder *b, int64_t uid, cudnnDataType_t type, const int64_t dims[4],
                     const int64_t strides[4], bool by_value, cudnnBackendDescriptor_t *out) {
  const char *what = "describing a tensor of the attention graph";
  bool virt = uid == 0;
  if (virt) uid = b->next_uid++;
  int64_t align = 16;
  return B_keep(b, CUDNN_BACKEND_TENSOR_DESCRIPTOR, out, what) &&
         B_set(b, *out, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type, what) &&
         B_set(b, *out, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims, what) &&
         B_set(b, *out, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides, what) &&
         B_set(b, *out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, what) &&
         B_set(b, *out, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align, what) &&
         B_set(b, *out, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt, what) &&
         (!by_value ||
          B_set(b, *out, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value, what)) &&
         B_final(b, *out, what);
}

/* A virtual tensor of the scores' shape [B, H, Sq, Skv], contiguous. */
static bool B_scoreTensor(Builder *b, cudnnDataType_t type, cudnnBackendDescriptor_t *out) {
  const CudnnGraph *g = b->g;
  const int64_t H = g->H, S = g->S, K = g->Skv;
  const int64_t dims[4] = {g->B, H, S, K}, str[4] = {H * S * K, S * K, K, 1};
  return B_tensor(b, 0, type, dims, str, false, out);
}

/* y = mode(x[, b[, t]]) computed in prec; axis >= 0 for GEN_INDEX. */
static bool B_pointwise(Builder *b, cudnnPointwiseMode_t mode, cudnnDataType_t prec, int64_t axis,
                        cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t in_b,
                        cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y,
                        cudnnBackendDescriptor_t *op) {
  const char *what = "describing a pointwise node of the attention graph";
  cudnnBackendDescriptor_t pw;
  if (!B_keep(b, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw, what) ||
      !B_set(b, pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode, what) ||
      !B_set(b, pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec, what) ||
      (axis >= 0 && !B_set(b, pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis, what)) ||
      !B_final(b, pw, what) ||
      !B_keep(b, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, op, what) ||
      !B_set(b, *op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw, what) ||
      !B_set(b, *op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, what) ||
      (in_b && !B_set(b, *op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &in_b, what)) ||
      (t && !B_set(b, *op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t, what)) ||
      !B_set(b, *op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, what))
    return false;
  return B_final(b, *op, what);
}

static bool B_reduce(Builder *b, cudnnReduceTensorOp_t mode, cudnnBackendDescriptor_t x,
                     cudnnBackendDescriptor_t y, cudnnBackendDescriptor_t *op) {
  const char *what = "describing a reduction node of the attention graph";
  cudnnDataType_t prec = CUDNN_DATA_FLOAT;
  cudnnBackendDescriptor_t r;
  return B_keep(b, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &r, what) &&
         B_set(b, r, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode, what) &&
         B_set(b, r, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &prec, what) &&
         B_final(b, r, what) &&
         B_keep(b, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, op, what) &&
         B_set(b, *op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r, what) &&
         B_set(b, *op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, what) &&
         B_set(b, *op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, what) &&
         B_final(b, *op, what);
}

/* C = A B; with seq (padded problems: the query and key length tensors) the GEMM's M and N
 * (bmm1) or M and K (bmm2) read the sequence lengths, and bmm1 pads with zeros past them. */
static bool B_matmul(Builder *b, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t bm,
                     cudnnBackendDescriptor_t c, const cudnnBackendDescriptor_t seq[2], bool second,
                     cudnnBackendDescriptor_t *op) {
  const char *what = "describing a matmul node of the attention graph";
  cudnnDataType_t prec = CUDNN_DATA_FLOAT;
  double zero = 0.0;
  cudnnBackendDescriptor_t m;
  cudnnBackendAttributeName_t other = second ? CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC
                                             : CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC;
  const bool padded = seq[0] != NULL;
  return B_keep(b, CUDNN_BACKEND_MATMUL_DESCRIPTOR, &m, what) &&
         B_set(b, m, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &prec, what) &&
         (!padded || second || B_set(b, m, CUDNN_ATTR_MATMUL_PADDING_VALUE, CUDNN_TYPE_DOUBLE, 1, &zero, what)) &&
         B_final(b, m, what) &&
         B_keep(b, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, op, what) &&
         B_set(b, *op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a, what) &&
         B_set(b, *op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &bm, what) &&
         B_set(b, *op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c, what) &&
         B_set(b, *op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &m, what) &&
         (!padded || (B_set(b, *op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                            1, &seq[0], what) &&
                      B_set(b, *op, other, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &seq[1], what))) &&
         B_final(b, *op, what);
}

/* The padding mask cuDNN <= 9.15 needs when the lengths are not a multiple of 128 (the cuDNN
 * frontend applies the same workaround): row < Sq and col < Skv, both read from the length
 * tensors, else the lowest score. */
static bool B_padding(Builder *b, cudnnBackendDescriptor_t s, const cudnnBackendDescriptor_t seq[2],
                      cudnnBackendDescriptor_t neg, cudnnBackendDescriptor_t *ops, int *nops,
                      cudnnBackendDescriptor_t *out) {
  cudnnBackendDescriptor_t row, col, rmask, cmask, mask, y;
  return B_scoreTensor(b, CUDNN_DATA_INT32, &row) &&
         B_pointwise(b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, 2, s, NULL, NULL, row, &ops[(*nops)++]) &&
         B_scoreTensor(b, CUDNN_DATA_INT32, &col) &&
         B_pointwise(b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, 3, s, NULL, NULL, col, &ops[(*nops)++]) &&
         B_scoreTensor(b, CUDNN_DATA_BOOLEAN, &rmask) &&
         B_pointwise(b, CUDNN_POINTWISE_CMP_LT, CUDNN_DATA_BOOLEAN, -1, row, seq[0], NULL, rmask, &ops[(*nops)++]) &&
         B_scoreTensor(b, CUDNN_DATA_BOOLEAN, &cmask) &&
         B_pointwise(b, CUDNN_POINTWISE_CMP_LT, CUDNN_DATA_BOOLEAN, -1, col, seq[1], NULL, cmask, &ops[(*nops)++]) &&
         B_scoreTensor(b, CUDNN_DATA_BOOLEAN, &mask) &&
         B_pointwise(b, CUDNN_POINTWISE_LOGICAL_AND, CUDNN_DATA_BOOLEAN, -1, rmask, cmask, NULL, mask, &ops[(*nops)++]) &&
         B_scoreTensor(b, CUDNN_DATA_FLOAT, &y) &&
         B_pointwise(b, CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, -1, s, neg, mask, y, &ops[(*nops)++]) &&
         (*out = y, true);
}

/* The causal mask on s: keep (row [+ Skv - Sq] >= col), else the lowest score. The shift is
 * added as the frontend does, Skv then minus Sq, from the length tensors when padded and from
 * by-value int32 scalars otherwise. */
static bool B_causal(Builder *b, cudnnBackendDescriptor_t s, const cudnnBackendDescriptor_t seq[2],
                     cudnnBackendDescriptor_t neg, cudnnBackendDescriptor_t *ops, int *nops,
                     cudnnBackendDescriptor_t *out) {
  const CudnnGraph *g = b->g;
  const int64_t one[4] = {1, 1, 1, 1};
  cudnnBackendDescriptor_t row, col, mask, y;
  if (!B_scoreTensor(b, CUDNN_DATA_INT32, &row) ||
      !B_pointwise(b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, 2, s, NULL, NULL, row, &ops[(*nops)++]))
    return false;
  if (CudnnGraph_shifted(g)) {
    cudnnBackendDescriptor_t skv = seq[1], sq = seq[0], plus, shifted;
    if ((!g->padded && (!B_tensor(b, CUDNN_UID_SKV, CUDNN_DATA_INT32, one, one, true, &skv) ||
                        !B_tensor(b, CUDNN_UID_SQ, CUDNN_DATA_INT32, one, one, true, &sq))) ||
        !B_scoreTensor(b, CUDNN_DATA_INT32, &plus) ||
        !B_pointwise(b, CUDNN_POINTWISE_ADD, CUDNN_DATA_INT32, -1, row, skv, NULL, plus, &ops[(*nops)++]) ||
        !B_scoreTensor(b, CUDNN_DATA_INT32, &shifted) ||
        !B_pointwise(b, CUDNN_POINTWISE_SUB, CUDNN_DATA_INT32, -1, plus, sq, NULL, shifted, &ops[(*nops)++]))
      return false;
    row = shifted;
  }
  return B_scoreTensor(b, CUDNN_DATA_INT32, &col) &&
         B_pointwise(b, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, 3, s, NULL, NULL, col, &ops[(*nops)++]) &&
         B_scoreTensor(b, CUDNN_DATA_BOOLEAN, &mask) &&
         B_pointwise(b, CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, -1, row, col, NULL, mask, &ops[(*nops)++]) &&
         B_scoreTensor(b, CUDNN_DATA_FLOAT, &y) &&
         B_pointwise(b, CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, -1, s, neg, mask, y, &ops[(*nops)++]) &&
         (*out = y, true);
}

static cudnnDataType_t B_ioType(const CudnnGraph *g) {
  return g->bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
}

/* S (fp32, virtual) = Q K^T * scale, masked when causal; the last node's output in *s. */
static bool B_scores(Builder *b, const cudnnBackendDescriptor_t seq[2], cudnnBackendDescriptor_t *ops,
                     int *nops, cudnnBackendDescriptor_t *s) {
  const CudnnGraph *g = b->g;
  const int64_t B = g->B, H = g->H, S = g->S, D = g->D, Hk = g->Hkv, K = g->Skv;
  const int64_t q_dims[4] = {B, H, S, D}, q_str[4] = {H * S * D, S * D, D, 1};
  const int64_t kt_dims[4] = {B, Hk, D, K}, kt_str[4] = {Hk * K * D, K * D, 1, D};
  const int64_t one[4] = {1, 1, 1, 1};
  cudnnBackendDescriptor_t q, kt, s0, scale, s1, neg = NULL;
  if (!B_tensor(b, CUDNN_UID_Q, B_ioType(g), q_dims, q_str, false, &q) ||
      !B_tensor(b, CUDNN_UID_K, B_ioType(g), kt_dims, kt_str, false, &kt) ||
      !B_scoreTensor(b, CUDNN_DATA_FLOAT, &s0) ||
      !B_matmul(b, q, kt, s0, seq, false, &ops[(*nops)++]) ||
      !B_tensor(b, CUDNN_UID_SCALE, CUDNN_DATA_FLOAT, one, one, true, &scale) ||
      !B_scoreTensor(b, CUDNN_DATA_FLOAT, &s1) ||
      !B_pointwise(b, CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, -1, s0, scale, NULL, s1, &ops[(*nops)++]) ||
      ((g->padded || g->causal) && !B_tensor(b, CUDNN_UID_NEG, CUDNN_DATA_FLOAT, one, one, true, &neg)))
    return false;
  if (g->padded && !B_padding(b, s1, seq, neg, ops, nops, &s1)) return false;
  if (g->causal && !B_causal(b, s1, seq, neg, ops, nops, &s1)) return false;
  *s = s1;
  return true;
}

/* P = softmax(S) along the keys, then O = P V. */
static bool B_softmaxPv(Builder *b, cudnnBackendDescriptor_t s, const cudnnBackendDescriptor_t seq[2],
                        cudnnBackendDescriptor_t *ops, int *nops) {
  const CudnnGraph *g = b->g;
  const int64_t B = g->B, H = g->H, S = g->S, D = g->D, Hk = g->Hkv, K = g->Skv;
  const int64_t o_dims[4] = {B, H, S, D}, o_str[4] = {H * S * D, S * D, D, 1};
  const int64_t v_dims[4] = {B, Hk, K, D}, v_str[4] = {Hk * K * D, K * D, D, 1};
  const int64_t row_dims[4] = {B, H, S, 1}, row_str[4] = {H * S, S, 1, 1};
  cudnnBackendDescriptor_t mx, sub, ex, sum, lg, stats, p, v, o;
  return B_tensor(b, 0, CUDNN_DATA_FLOAT, row_dims, row_str, false, &mx) &&
         B_reduce(b, CUDNN_REDUCE_TENSOR_MAX, s, mx, &ops[(*nops)++]) &&
         B_scoreTensor(b, CUDNN_DATA_FLOAT, &sub) &&
         B_pointwise(b, CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, -1, s, mx, NULL, sub, &ops[(*nops)++]) &&
         B_scoreTensor(b, CUDNN_DATA_FLOAT, &ex) &&
         B_pointwise(b, CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, -1, sub, NULL, NULL, ex, &ops[(*nops)++]) &&
         B_tensor(b, 0, CUDNN_DATA_FLOAT, row_dims, row_str, false, &sum) &&
         B_reduce(b, CUDNN_REDUCE_TENSOR_ADD, ex, sum, &ops[(*nops)++]) &&
         /* the log-sum-exp stats, virtual (inference): cuDNN's pattern matcher recognises the
          * softmax only with them, as the cuDNN frontend always builds it */
         B_tensor(b, 0, CUDNN_DATA_FLOAT, row_dims, row_str, false, &lg) &&
         B_pointwise(b, CUDNN_POINTWISE_LOG, CUDNN_DATA_FLOAT, -1, sum, NULL, NULL, lg, &ops[(*nops)++]) &&
         B_tensor(b, 0, CUDNN_DATA_FLOAT, row_dims, row_str, false, &stats) &&
         B_pointwise(b, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, -1, mx, lg, NULL, stats, &ops[(*nops)++]) &&
         /* P in the I/O type: the fused engine takes bmm2's A operand as fp16 or bf16 */
         B_scoreTensor(b, B_ioType(g), &p) &&
         B_pointwise(b, CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, -1, ex, sum, NULL, p, &ops[(*nops)++]) &&
         B_tensor(b, CUDNN_UID_V, B_ioType(g), v_dims, v_str, false, &v) &&
         B_tensor(b, CUDNN_UID_O, B_ioType(g), o_dims, o_str, false, &o) &&
         B_matmul(b, p, v, o, seq, true, &ops[(*nops)++]);
}

/* The heuristics' engine configurations for the finalized graph, best first. */
static bool B_configs(Builder *b, cudnnHandle_t h) {
  const char *what = "asking cuDNN's heuristics for engine configurations";
  CudnnGraph *g = b->g;
  cudnnBackendDescriptor_t heur;
  cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  (void)h;
  if (!B_keep(b, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur, what) ||
      !B_set(b, heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->graph, what) ||
      !B_set(b, heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, what) ||
      !B_final(b, heur, what))
    return false;
  int64_t count = 0;
  if (!CudnnApi_check(b->a, b->a->get(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                      &count, NULL), what, b->err, b->errsize))
    return false;
  if (count <= 0) {
    snprintf(b->err, b->errsize, "cuDNN's heuristics offer no engine for this attention graph "
             "(B=%d Hq=%d Hkv=%d Sq=%d Skv=%d D=%d %s%s): cuDNN %zu.%zu does not support this problem",
             g->B, g->H, g->Hkv, g->S, g->Skv, g->D, g->bf16 ? "bf16" : "fp16", g->causal ? " causal" : "",
             b->a->version / 10000, b->a->version / 100 % 100);
    return false;
  }
  g->configs = Util_xcalloc((size_t)count, sizeof *g->configs);
  for (int64_t i = 0; i < count; i++)
    if (!B_keep(b, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &g->configs[i], what)) return false;
  int64_t got = 0;
  if (!CudnnApi_check(b->a, b->a->get(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      count, &got, g->configs), what, b->err, b->errsize))
    return false;
  g->nconfigs = (int)(got < count ? got : count);
  if (g->nconfigs > 0) return true;
  snprintf(b->err, b->errsize, "cuDNN's heuristics returned none of the %lld engine configurations "
           "they counted for this attention graph", (long long)count);
  return false;
}

bool CudnnGraph_build(const CudnnApi *a, cudnnHandle_t h, CudnnGraph *g, char *err, size_t errsize) {
  Builder b = {.a = a, .g = g, .next_uid = 100, .err = err, .errsize = errsize};
  cudnnBackendDescriptor_t ops[32], s, seq[2] = {NULL, NULL};
  int nops = 0;
  const char *what = "finalizing the attention operation graph";
  const int64_t seq_dims[4] = {g->B, 1, 1, 1}, seq_str[4] = {1, 1, 1, 1};
  if (g->padded && (!B_tensor(&b, CUDNN_UID_SEQ_Q, CUDNN_DATA_INT32, seq_dims, seq_str, false, &seq[0]) ||
                    !B_tensor(&b, CUDNN_UID_SEQ_KV, CUDNN_DATA_INT32, seq_dims, seq_str, false, &seq[1])))
    return false;
  if (!B_scores(&b, seq, ops, &nops, &s) || !B_softmaxPv(&b, s, seq, ops, &nops) ||
      !B_keep(&b, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g->graph, what) ||
      !B_set(&b, g->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, nops, ops, what) ||
      !B_set(&b, g->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h, what) ||
      !B_final(&b, g->graph, what))
    return false;
  return B_configs(&b, h);
}

void CudnnGraph_free(const CudnnApi *a, CudnnGraph *g) {
  for (int i = g->nowned - 1; i >= 0; i--) a->unmake(g->owned[i]);
  free(g->owned);
  free(g->configs);
  g->owned = NULL;
  g->configs = NULL;
  g->nowned = g->capowned = g->nconfigs = 0;
  g->graph = NULL;
}
