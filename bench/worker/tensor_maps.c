/* Q and O are [B, H, S, D], K and V [B, Hkv, Skv, D], fp16 or bf16; each map sees its tensor as
 * 3-D [heads][rows][D] so that a box never crosses into the next head: rows past the end read as
 * zeros and are not written by a store. Boxes
 * are 64 columns (128 bytes, the widest a 128-byte swizzle allows) by the rows the variant asks
 * for; the swizzle gives the shared-memory layout wgmma reads without bank conflicts.
 * cuTensorMapEncodeTiled is a driver function: reached through common/driver.c, because
 * libcuda is never linked. */
#include "bench/worker/tensor_maps.h"

#include <cuda.h>
#include <stdio.h>
#include <string.h>

#include "common/driver.h"

_Static_assert(sizeof(BtTensorMap) == sizeof(CUtensorMap), "BtTensorMap must be a CUtensorMap");
_Static_assert(_Alignof(BtTensorMap) == 64, "tensor maps are 64-byte aligned");

typedef CUresult (*EncodeTiledFn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                  const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                  const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                  CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static EncodeTiledFn TensorMaps_encoder(char *err, size_t errsize) {
  static EncodeTiledFn fn;
  char why[200];
  if (!fn && !Driver_fn("cuTensorMapEncodeTiled", &fn, why, sizeof why)) {
    snprintf(err, errsize, "tensor maps: %s; a CUDA 12+ driver is needed", why);
    return NULL;
  }
  return fn;
}

static bool TensorMaps_one(EncodeTiledFn enc, BtTensorMap *out, const void *ptr, const Shape *s,
                           bool kv, int rows, const char *what, char *err, size_t errsize) {
  memset(out, 0, sizeof *out);
  if (rows <= 0) return true;
  cuuint64_t heads = (cuuint64_t)(kv ? Shape_hkv(s) : s->H), len = (cuuint64_t)(kv ? Shape_skv(s) : s->S);
  cuuint64_t dims[3] = {(cuuint64_t)s->D, len, (cuuint64_t)s->B * heads};
  cuuint64_t strides[2] = {(cuuint64_t)s->D * 2, len * (cuuint64_t)s->D * 2};
  CUtensorMapDataType type =
      s->dtype == SHAPE_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  cuuint32_t box[3] = {64, (cuuint32_t)rows, 1};
  cuuint32_t elem[3] = {1, 1, 1};
  CUresult r = enc((CUtensorMap *)out, type, 3, (void *)ptr, dims, strides,
                   box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    snprintf(err, errsize,
             "tensor maps: cuTensorMapEncodeTiled refused %s (CUresult %d) for %dx%dx%dx%d with "
             "%d-row boxes; D must be a multiple of 64",
             what, (int)r, s->B, (int)heads, (int)len, s->D, rows);
    return false;
  }
  return true;
}

bool TensorMaps_fill(const LaunchPlan *plan, const Shape *s, AttnParams *p, char *err,
                     size_t errsize) {
  const int *rows = plan->tma_rows;
  if (!rows[0] && !rows[1] && !rows[2] && !rows[3]) return true;
  EncodeTiledFn enc = TensorMaps_encoder(err, errsize);
  if (!enc) return false;
  return TensorMaps_one(enc, &p->tmap_q, p->q, s, false, rows[0], "Q", err, errsize) &&
         TensorMaps_one(enc, &p->tmap_k, p->k, s, true, rows[1], "K", err, errsize) &&
         TensorMaps_one(enc, &p->tmap_v, p->v, s, true, rows[2], "V", err, errsize) &&
         TensorMaps_one(enc, &p->tmap_o, p->o, s, false, rows[3], "O", err, errsize);
}
