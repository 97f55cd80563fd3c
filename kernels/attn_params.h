/* The one argument every attention kernel takes, by value. Shared verbatim by the host (C)
 * and by NVRTC (embedded as a header), so the layout is plain C: no CUDA types. */
#ifndef BENCHTOP_ATTN_PARAMS_H
#define BENCHTOP_ATTN_PARAMS_H

typedef struct AttnParams {
  const void *q, *k, *v; /* fp16 [B, H, S, D], contiguous */
  void *o;               /* fp16 [B, H, S, D] */
  float *o_f32;          /* the reference's fp32 output; split-KV partial outputs */
  float *lse;            /* split-KV partial log-sum-exp, [splits, B, H, S] */
  void *q8, *k8, *v8;    /* fp8 (E4M3) copies made by the fp8 variant's quantize step */
  float *q_scale, *k_scale, *v_scale; /* per (b, h) dequantisation scales */
  void *workspace;       /* variant-owned scratch, Variant.workspace_bytes long */
  int B, H, S, D;
  int causal;            /* 1: query i sees keys 0..i */
  int num_splits;        /* split-KV: number of key ranges per (b, h, query tile) */
  float scale;           /* softmax scale, 1/sqrt(D) */
} AttnParams;

#endif
