// A correct attention that takes SLOW_MS milliseconds a launch: it computes its row, then waits
// on the global timer. gpu_slow.sh builds slow_N.cu from this with SLOW_MS defined. Expected: a
// passing record (its reps cut, with a note, when they would take long), never "hang".
__device__ __forceinline__ unsigned long long slow_now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
extern "C" __global__ void attn_fwd(const AttnParams p) {
  const unsigned long long t0 = slow_now_ns();
  const long long row = cheat_row(p);
  if (row >= 0) row_attention(p, row);
  while (slow_now_ns() - t0 < (unsigned long long)SLOW_MS * 1000000ull) {
  }
}
