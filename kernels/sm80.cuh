// Ampere-family (sm_80 and newer: sm_86, sm_89, sm_90) primitives as inline PTX: cp.async
// global -> shared copies, ldmatrix, and the fp16 mma.sync tensor-core instruction. NVRTC
// in-memory header, next to common.cuh (plain CUDA) and hopper.cuh (sm_90a, which builds on
// this one). The teaching rungs spell their steps out in their own files; the kernels that only
// use these instructions (mma, fp8, cp_async ...) share this one copy.
//
// Clobbers: every instruction that reads or writes memory carries "memory", so that the compiler
// never moves an ordinary load or store of shared memory across it (a cp.async wait followed by
// a plain read of the landed tile, a plain store followed by an ldmatrix of it). mma.sync touches
// registers only and has none, so the scheduler may interleave it freely.
#pragma once

#include "attn_params.h"

// Shared-memory address (the 32-bit form PTX shared-state-space instructions take).
__device__ __forceinline__ unsigned bt_smem_u32(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

// ---- cp.async: 16 bytes global -> shared, bypassing L1 (.cg) --------------------------------
// valid = false copies nothing and zero-fills the 16 bytes (src-size 0): rows past S become zeros
// (src must still be a valid address; it is not read).
__device__ __forceinline__ void bt_cp_async16(unsigned smem_dst, const void *gmem_src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_dst), "l"(gmem_src),
               "r"(valid ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void bt_cp_async16(void *smem_dst, const void *gmem_src, bool valid) {
  bt_cp_async16(bt_smem_u32(smem_dst), gmem_src, valid);
}
// Closes the group of copies issued since the last commit.
__device__ __forceinline__ void bt_cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
// Waits until at most N groups of this thread are still in flight (its own copies only: a
// __syncthreads() after it makes every thread's copies visible).
template <int N> __device__ __forceinline__ void bt_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// ---- ldmatrix: four 8x8 b16 matrices from shared memory into mma fragments -----------------
// Lanes 8i..8i+7 give the row addresses of matrix i; r[i] receives this lane's part of it.
__device__ __forceinline__ void bt_ldsm_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}
// The same, each matrix transposed (the B operand of P V from a row-major V tile).
__device__ __forceinline__ void bt_ldsm_x4_trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

// ---- mma.sync: D += A(16x16, row) * B(16x8, col), fp16 in, fp32 accumulate -----------------
// (bf16 in for a kernel's bf16 build, -DBT_BF16=1: the fragment layouts are the same)
#if BT_BF16
#define BT_MMA_AB "bf16"
#else
#define BT_MMA_AB "f16"
#endif
__device__ __forceinline__ void bt_mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                             unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." BT_MMA_AB "." BT_MMA_AB ".f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// The two n8 halves of the B operand one ldmatrix.x4 fetches: D0 += A * (b0, b1), D1 += A *
// (b2, b3).
__device__ __forceinline__ void bt_mma_16816_x2(float (&d0)[4], float (&d1)[4], const unsigned (&a)[4],
                                                const unsigned (&b)[4]) {
  bt_mma_16816(d0, a, b[0], b[1]);
  bt_mma_16816(d1, a, b[2], b[3]);
}
