/* The one argument every attention kernel takes, by value. Shared verbatim by the host (C)
 * and by NVRTC (embedded as a header), so the layout is plain C: no CUDA types. */
#ifndef BENCHTOP_ATTN_PARAMS_H
#define BENCHTOP_ATTN_PARAMS_H

#ifdef __cplusplus
#define BT_ALIGN64 alignas(64)
#else
#define BT_ALIGN64 _Alignas(64)
#endif

/* A CUtensorMap (cuda.h): 128 opaque bytes, 64-byte aligned, made by cuTensorMapEncodeTiled. */
typedef struct BtTensorMap {
  BT_ALIGN64 unsigned long long opaque[16];
} BtTensorMap;

typedef struct AttnParams {
  const void *q, *k, *v; /* q: [B, H, S, D]; k, v: [B, Hkv, Skv, D]; contiguous, of `dtype` */
  void *o;               /* [B, H, S, D], of `dtype` */
  float *o_f32;          /* the reference's fp32 output; split-KV partial outputs */
  float *lse;            /* split-KV partial log-sum-exp, [splits, B, H, S] */
  void *q8, *k8, *v8;    /* fp8 (E4M3) copies made by the fp8 variant's quantize step */
  float *q_scale, *k_scale, *v_scale; /* per (b, h) dequantisation scales */
  void *workspace;       /* variant-owned scratch, as long as its declaration's scratch line */
  int B, H, S, D;
  int causal;            /* 1: query i sees keys 0 .. i + Skv - S (bottom-right aligned) */
  int Hkv, Skv;          /* key/value heads (H is a multiple) and key length (>= S) */
  int dtype;             /* 0: fp16, 1: bf16 (ShapeDtype) */
  int num_splits;        /* split-KV: number of key ranges per (b, h, query tile) */
  float scale;           /* softmax scale, 1/sqrt(D) */
  /* TMA tensor maps of Q, K, V, O as 3-D [B*H][S][D] tensors, 128-byte swizzle, boxes of 64
   * columns by the rows of the declaration's `tma` line; zero for variants that ask for none.
   * A kernel that uses them takes `const __grid_constant__ AttnParams`, so they stay in
   * parameter space. */
  BtTensorMap tmap_q, tmap_k, tmap_v, tmap_o;
} AttnParams;

#endif
