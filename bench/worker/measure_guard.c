/* The GPU side of the integrity checks (bench/worker/integrity.h): guard bands set around every
 * buffer a kernel is handed and read back after it ran, and checksums of its inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/buffers.h"
#include "bench/worker/integrity.h"
#include "bench/worker/measure_private.h"
#include "common/util.h"

bool Guard_arm(Gpu *g, const BufferNeeds *n, char *err, size_t errsize) {
  BufferRegion r[BUFFERS_REGIONS_MAX];
  int count = Buffers_regions(&g->buf, n, r);
  for (int i = 0; i < count; i++) {
    char *p = r[i].ptr;
    if (!Gpu_ok(cudaMemsetAsync(p - INTEGRITY_GUARD_BYTES, INTEGRITY_GUARD_BYTE,
                                INTEGRITY_GUARD_BYTES, g->stream), "setting guard bands", err, errsize) ||
        !Gpu_ok(cudaMemsetAsync(p + r[i].used, INTEGRITY_GUARD_BYTE, INTEGRITY_GUARD_BYTES,
                                g->stream), "setting guard bands", err, errsize))
      return false;
  }
  return true;
}

bool Guard_check(Gpu *g, const BufferNeeds *n, const char *when, char *reason, size_t rsize,
                 char *err, size_t errsize) {
  BufferRegion r[BUFFERS_REGIONS_MAX];
  int count = Buffers_regions(&g->buf, n, r);
  unsigned char *bands = Util_xmalloc((size_t)count * 2 * INTEGRITY_GUARD_BYTES + 1);
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < count && e == cudaSuccess; i++) {
    char *p = r[i].ptr;
    unsigned char *before = bands + (size_t)i * 2 * INTEGRITY_GUARD_BYTES;
    e = cudaMemcpyAsync(before, p - INTEGRITY_GUARD_BYTES, INTEGRITY_GUARD_BYTES,
                        cudaMemcpyDeviceToHost, g->stream);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(before + INTEGRITY_GUARD_BYTES, p + r[i].used, INTEGRITY_GUARD_BYTES,
                          cudaMemcpyDeviceToHost, g->stream);
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(g->stream);
  if (e != cudaSuccess) {
    free(bands);
    Gpu_errorText(e, "reading guard bands back", err, errsize);
    return false;
  }
  for (int i = 0; i < count; i++) {
    const unsigned char *before = bands + (size_t)i * 2 * INTEGRITY_GUARD_BYTES;
    Integrity_describeBands(r[i].name, before, before + INTEGRITY_GUARD_BYTES,
                            INTEGRITY_GUARD_BYTES, when, reason, rsize);
  }
  free(bands);
  return true;
}

bool Guard_inputSums(Gpu *g, const BufferNeeds *n, uint64_t sums[3], char *err, size_t errsize) {
  GpuBuffers *b = &g->buf;
  if (!b->sums && !Gpu_ok(cudaMalloc((void **)&b->sums, 3 * sizeof *b->sums),
                          "allocating input checksums", err, errsize))
    return false;
  if (!Gpu_ok(cudaMemsetAsync(b->sums, 0, 3 * sizeof *b->sums, g->stream),
              "clearing input checksums", err, errsize))
    return false;
  const void *in[3] = {b->q, b->k, b->v};
  for (int i = 0; i < 3; i++) {
    unsigned long long words = i ? n->kv_elems : n->elems; /* fp16 or bf16: 16-bit words */
    unsigned blocks = (unsigned)((words + 255) / 256 > 4096 ? 4096 : (words + 255) / 256);
    unsigned long long *out = b->sums + i;
    void *args[] = {(void *)&in[i], &words, &out};
    if (!Gpu_ok(cudaLaunchKernel((const void *)g->util.kernels[3], (dim3){blocks, 1, 1},
                                 (dim3){256, 1, 1}, args, 0, g->stream),
                "checksumming the inputs", err, errsize))
      return false;
  }
  unsigned long long host[3];
  cudaError_t e = cudaMemcpyAsync(host, b->sums, sizeof host, cudaMemcpyDeviceToHost, g->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(g->stream);
  if (e != cudaSuccess) {
    Gpu_errorText(e, "reading input checksums back", err, errsize);
    return false;
  }
  for (int i = 0; i < 3; i++) sums[i] = host[i];
  return true;
}

void Guard_compareInputs(const uint64_t was[3], const uint64_t now[3], const char *when,
                         char *reason, size_t size) {
  static const char *const names[3] = {"Q", "K", "V"};
  for (int i = 0; i < 3; i++) Integrity_describeInput(names[i], was[i], now[i], when, reason, size);
}
