// Timeline of fa3 launches (the small shapes): where the microseconds of one launch go,
// from in-kernel timestamps at fa3.cu's TRACE() hooks (defined only here).
// Built and run on the GPU machine with its nvcc; knobs are fa3.cu's macros:
//   nvcc -std=c++17 -O2 -gencode arch=compute_90a,code=sm_90a -Ikernels \
//        -DHEAD_DIM=64 -DBLOCK_M=64 -DKV_SPLIT=2 -DSCHED=1 research/fa3_trace.cu -lcuda -o fa3_trace
//   ./fa3_trace B H S [causal]
// Prints, per hook, the median over blocks of (hook time - earliest block start), median over
// reps with L2 flushed before each launch, and the spread over blocks. Not a benchtop clock:
// the numbers say where time goes inside one kernel, benchtop and ncu say how long it takes.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// The hooks fa3.cu calls at its phases: globaltimer and clock64 per (block, slot).
__device__ unsigned long long fa3_trace[4096][32][2];
#define TRACE(slot)                                                                          \
  do {                                                                                       \
    unsigned long long gt_;                                                                  \
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt_));                                  \
    fa3_trace[blockIdx.x + gridDim.x * blockIdx.y][slot][0] = gt_;                           \
    fa3_trace[blockIdx.x + gridDim.x * blockIdx.y][slot][1] = clock64();                     \
  } while (0)
#include "../kernels/fa3.cu"
#include "cuda_check.cuh"

__global__ void fill_half(half *p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned x = (unsigned)i * 2654435761u ^ seed;
    x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
    p[i] = __float2half(((x & 0xffff) / 65535.0f - 0.5f) * 4.0f); // never zero-heavy
  }
}
__global__ void flush_l2(unsigned *p, size_t n, unsigned v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = v;
}

static void encode(CUtensorMap *m, void *ptr, int B, int H, int S, int D, int rows) {
  cuuint64_t dims[3] = {(cuuint64_t)D, (cuuint64_t)S, (cuuint64_t)B * H};
  cuuint64_t strides[2] = {(cuuint64_t)D * 2, (cuuint64_t)S * D * 2};
  cuuint32_t box[3] = {64, (cuuint32_t)rows, 1}, elem[3] = {1, 1, 1};
  CUresult r = cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, ptr, dims, strides, box,
                                      elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "fa3_trace: cuTensorMapEncodeTiled failed (%d)\n", (int)r);
    exit(1);
  }
}

static double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: fa3_trace B H S [causal]\n");
    return 2;
  }
  const int B = atoi(argv[1]), H = atoi(argv[2]), S = atoi(argv[3]), D = HEAD_DIM;
  const int causal = argc > 4 && argv[4][0] == 'c';
  const size_t n = (size_t)B * H * S * D;
  half *q, *k, *v, *o;
  CK(cudaMalloc(&q, n * 2)); CK(cudaMalloc(&k, n * 2)); CK(cudaMalloc(&v, n * 2)); CK(cudaMalloc(&o, n * 2));
  fill_half<<<512, 256>>>(q, n, 1); fill_half<<<512, 256>>>(k, n, 2); fill_half<<<512, 256>>>(v, n, 3);
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  unsigned *flush;
  const size_t flush_n = (size_t)l2 * 2 / 4;
  CK(cudaMalloc(&flush, flush_n * 4));

  AttnParams p = {};
  p.q = q; p.k = k; p.v = v; p.o = o;
  p.B = B; p.H = H; p.S = S; p.D = D; p.causal = causal; p.num_splits = 1;
  p.scale = 1.0f / sqrtf((float)D);
  encode((CUtensorMap *)&p.tmap_q, q, B, H, S, D, 64);
  encode((CUtensorMap *)&p.tmap_k, k, B, H, S, D, BLOCK_N);
  encode((CUtensorMap *)&p.tmap_v, v, B, H, S, D, BLOCK_N);
  encode((CUtensorMap *)&p.tmap_o, o, B, H, S, D, 64);

  const int tiles_m = (S + BLOCK_M - 1) / BLOCK_M, blocks = tiles_m * B * H;
  if (PERSIST || blocks > 4096) {
    fprintf(stderr, "fa3_trace: traces non-persistent launches of at most 4096 blocks\n");
    return 2;
  }
  const size_t smem = (size_t)QG * QG_BYTES + (size_t)KV_SPLIT * STAGES * 2 * TILE_BYTES +
                      8 * (2 + 4 * KV_SPLIT * STAGES) + 1024;
  CK(cudaFuncSetAttribute(attn_fwd, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  dim3 grid(tiles_m, B * H);
  for (int i = 0; i < 20; i++) attn_fwd<<<grid, NTHREADS, smem>>>(p);
  CK(cudaDeviceSynchronize());

  const int reps = 30, slots = 32;
  std::vector<std::vector<double>> at(slots), spread(slots), cyc(slots);
  std::vector<double> event_us, span_us;
  std::vector<unsigned long long> host((size_t)blocks * slots * 2);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (int r = 0; r < reps; r++) {
    std::vector<unsigned long long> zero(host.size(), 0ull);
    CK(cudaMemcpyToSymbol(fa3_trace, zero.data(), zero.size() * 8));
    flush_l2<<<528, 512>>>(flush, flush_n, (unsigned)r + 7u);
    CK(cudaEventRecord(e0));
    attn_fwd<<<grid, NTHREADS, smem>>>(p);
    CK(cudaEventRecord(e1));
    CK(cudaDeviceSynchronize());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    event_us.push_back(ms * 1000.0);
    CK(cudaMemcpyFromSymbol(host.data(), fa3_trace, host.size() * 8));
    auto T = [&](int b, int s, int w) { return host[((size_t)b * slots + s) * 2 + w]; };
    unsigned long long t0 = ~0ull, tend = 0;
    for (int b = 0; b < blocks; b++) {
      t0 = std::min(t0, T(b, 0, 0));
      for (int s = 0; s < slots; s++) tend = std::max(tend, T(b, s, 0));
    }
    span_us.push_back((tend - t0) / 1000.0);
    for (int s = 0; s < slots; s++) {
      std::vector<double> xs, cs;
      for (int b = 0; b < blocks; b++)
        if (T(b, s, 0)) {
          xs.push_back((T(b, s, 0) - t0) / 1000.0);
          cs.push_back((double)(T(b, s, 1) - T(b, 0, 1))); // cycles since this block's entry
        }
      if (xs.empty()) continue;
      at[s].push_back(median(xs));
      spread[s].push_back(*std::max_element(xs.begin(), xs.end()) - *std::min_element(xs.begin(), xs.end()));
      cyc[s].push_back(median(cs));
    }
  }
  static const char *names[32] = {"block entry (tid 0)", "producer: barriers ready", "producer: all loads issued", 0};
  static const char *cn[8] = {"start", "Q arrived", "K tile 0 arrived", "tile 0 softmax done",
                              "loop done (last PV next)", "last PV done", "O staged (store next)", "O stored"};
  printf("fa3_trace %dx%dx%dx%d%s BLOCK_M=%d BLOCK_N=%d STAGES=%d KV_SPLIT=%d SCHED=%d: %d blocks x %d threads, %zu B smem\n",
         B, H, S, D, causal ? ":causal" : "", BLOCK_M, BLOCK_N, STAGES, KV_SPLIT, SCHED, blocks, NTHREADS, smem);
  printf("events %.2f us, trace span (first entry to last hook) %.2f us, medians of %d reps\n",
         median(event_us), median(span_us), reps);
  printf("%-34s %10s %12s %14s\n", "hook", "median us", "spread us", "cycles (own)");
  for (int s = 0; s < slots; s++) {
    if (at[s].empty()) continue;
    char label[64];
    // With one consumer, slots 12-27 are fa3.cu's per-step hooks (STRACE): 4 per key tile.
    static const char *plain[4] = {"K_i here", "V_i-1 here", "S_i ready", "softmax done"};
    if (s < 4) snprintf(label, sizeof label, "%s", names[s] ? names[s] : "?");
    else if (NC == 1 && s >= 12 && s < 28)
      snprintf(label, sizeof label, "  tile %d: %s", (s - 12) / 4, plain[(s - 12) % 4]);
    else snprintf(label, sizeof label, "consumer %d: %s", (s - 4) / 8, cn[(s - 4) % 8]);
    printf("%-34s %10.2f %12.2f %14.0f\n", label, median(at[s]), median(spread[s]), median(cyc[s]));
  }
  return 0;
}
