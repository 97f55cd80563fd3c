// Computes on its first launch only (verification), then returns at once: fast, and wrong.
// Expected: "the timed launches left N of N output elements unwritten".
__device__ unsigned long long cheat_once_rows;
extern "C" __global__ void attn_fwd(const AttnParams p) {
  const long long row = cheat_row(p);
  if (row < 0 || cheat_once_rows >= (unsigned long long)cheat_rows(p)) return;
  row_attention(p, row);
  atomicAdd(&cheat_once_rows, 1ull);
}
