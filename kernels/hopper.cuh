// Hopper (sm_90a) primitives for the fa3 variant, as inline PTX: mbarriers, TMA tensor copies
// (cp.async.bulk.tensor with a CUtensorMap the engine builds on the host, see
// bench/worker/tensor_maps.c), warpgroup MMA (wgmma) with shared-memory descriptors, named barriers and
// setmaxnreg. NVRTC in-memory header, next to attn_params.h; only arch-specific variants
// include it. It builds on sm80.cuh (bt_smem_u32 and the sm_80 instructions Hopper keeps).
#pragma once

#include "attn_params.h"
#include "sm80.cuh"

// ---- mbarriers (transaction-counting barriers in shared memory) ---------------------------
__device__ __forceinline__ void bt_mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Makes the initialisations visible to the async proxy (TMA) before any copy signals them.
__device__ __forceinline__ void bt_mbar_fence_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void bt_mbar_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bt_mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Returns once the phase with this parity has completed.
__device__ __forceinline__ void bt_mbar_wait(unsigned bar, unsigned parity) {
  asm volatile("{\n.reg .pred done;\n"
               "WAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT;\n}\n" ::"r"(bar), "r"(parity)
               : "memory");
}

// ---- TMA: tensor copies through a CUtensorMap (param space, __grid_constant__) -------------
__device__ __forceinline__ void bt_tmap_prefetch(const BtTensorMap *m) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(m))
               : "memory");
}
// Box at (c0 column, c1 row, c2 head) of a 3-D [heads][rows][cols] map -> shared memory,
// completing its bytes on the mbarrier. Out-of-range rows arrive as zeros (and still count).
__device__ __forceinline__ void bt_tma_load_3d(unsigned dst, const BtTensorMap *m, int c0, int c1,
                                               int c2, unsigned bar) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
               "l"(reinterpret_cast<unsigned long long>(m)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
               : "memory");
}
// Shared memory -> box of a 3-D map; rows past the tensor's end are not written.
__device__ __forceinline__ void bt_tma_store_3d(const BtTensorMap *m, unsigned src, int c0, int c1,
                                                int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n"
               ::"l"(reinterpret_cast<unsigned long long>(m)), "r"(src), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}
__device__ __forceinline__ void bt_tma_store_commit_and_wait() {
  // Wait until the copy engine has read the source: shared memory may not go away before.
  asm volatile("cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
// Ordinary shared-memory writes made visible to the async proxy (TMA store, wgmma).
__device__ __forceinline__ void bt_fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---- named barriers (id 0 is __syncthreads) -------------------------------------------------
__device__ __forceinline__ void bt_bar_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void bt_bar_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- register reallocation between warpgroups (needs a register cap at entry) -------------
template <int N> __device__ __forceinline__ void bt_setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N) : "memory");
}
template <int N> __device__ __forceinline__ void bt_setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N) : "memory");
}

// ---- wgmma -----------------------------------------------------------------------------------
// Shared-memory matrix descriptor, 128-byte swizzle (layout type 1 in bits 62-63); the tile must
// sit on a 1024-byte boundary, as TMA's 128B-swizzle writes it.
__device__ __forceinline__ unsigned long long bt_wgmma_desc(unsigned addr, unsigned lbo,
                                                            unsigned sbo) {
  return (unsigned long long)((addr & 0x3FFFF) >> 4) |
         ((unsigned long long)((lbo >> 4) & 0x3FFF) << 16) |
         ((unsigned long long)((sbo >> 4) & 0x3FFF) << 32) | (1ull << 62);
}
__device__ __forceinline__ void bt_wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void bt_wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> __device__ __forceinline__ void bt_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving reads/writes of wgmma registers across issue and wait: after
// a wait, the registers are re-defined here and every later use depends on this point.
template <int N> __device__ __forceinline__ void bt_pin(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; i++) asm volatile("" : "+f"(d[i])::"memory");
}

// The wgmma wrappers. The PTX instruction names every accumulator register, so each wrapper
// lists N/2 accumulators per thread as "+f" operands and "%0,%1,..." in its text; these macros
// write the lists once, in blocks of eight.
#define BT_ACC8(d, i)                                                                          \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),   \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define BT_ACC32(d) BT_ACC8(d, 0), BT_ACC8(d, 8), BT_ACC8(d, 16), BT_ACC8(d, 24)
#define BT_ACC64(d) BT_ACC32(d), BT_ACC8(d, 32), BT_ACC8(d, 40), BT_ACC8(d, 48), BT_ACC8(d, 56)
#define BT_ACC88(d) BT_ACC64(d), BT_ACC8(d, 64), BT_ACC8(d, 72), BT_ACC8(d, 80)
#define BT_REGS32                                                                              \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"      \
  "%24,%25,%26,%27,%28,%29,%30,%31"
#define BT_REGS64                                                                              \
  BT_REGS32 ",%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"                         \
            "%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define BT_REGS88                                                                              \
  BT_REGS64 ",%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83," \
            "%84,%85,%86,%87"

// bt_wgmma_ss_nN: D[64 x N] (scale_d ? D : 0) + A[64 x 16] * B[16 x N]; A and B from shared
// memory (K-major descriptors), fp16 (bf16 in a bf16 build: BT_MMA_AB, sm80.cuh) in, fp32 accumulate. NACC = N/2 accumulators per thread;
// IA, IB, IS: the operand numbers of the two descriptors and of scale_d.
#define BT_WGMMA_SS(N, NACC, IA, IB, IS)                                                       \
  __device__ __forceinline__ void bt_wgmma_ss_n##N(float(&d)[NACC], unsigned long long da,      \
                                                   unsigned long long db, int scale_d) {       \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #IS ", 0;\n"                             \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." BT_MMA_AB "." BT_MMA_AB " {" BT_REGS##NACC      \
                 "}, %" #IA ", %" #IB ", p, 1, 1, 0, 0;\n}\n"                                  \
                 : BT_ACC##NACC(d)                                                             \
                 : "l"(da), "l"(db), "r"(scale_d));                                            \
  }
BT_WGMMA_SS(64, 32, 32, 33, 34)
BT_WGMMA_SS(128, 64, 64, 65, 66)
BT_WGMMA_SS(176, 88, 88, 89, 90)

// bt_wgmma_rs_nN: D[64 x N] += A[64 x 16] * B[16 x N]; A from registers (4 x f16x2 per thread),
// B from shared memory MN-major (imm-trans-b 1). IA..IA+3: the A registers, IB: B's descriptor,
// IS: the scale-d operand (always 1: accumulate).
#define BT_WGMMA_RS(N, NACC, IA0, IA1, IA2, IA3, IB, IS)                                       \
  __device__ __forceinline__ void bt_wgmma_rs_n##N(float(&d)[NACC], const unsigned(&a)[4],      \
                                                   unsigned long long db) {                    \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #IS ", 0;\n"                             \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." BT_MMA_AB "." BT_MMA_AB " {" BT_REGS##NACC      \
                 "}, {%" #IA0 ",%" #IA1 ",%" #IA2 ",%" #IA3 "}, %" #IB ", p, 1, 1, 1;\n}\n"    \
                 : BT_ACC##NACC(d)                                                             \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1));               \
  }
BT_WGMMA_RS(64, 32, 32, 33, 34, 35, 36, 37)
BT_WGMMA_RS(128, 64, 64, 65, 66, 67, 68, 69)
