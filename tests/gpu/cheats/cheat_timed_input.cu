// Honest while verified; from its second launch on it also adds 1 to K's first element, so every
// timed launch after it runs on other data. Expected: "modified its input K during the timed
// launches".
__device__ unsigned long long cheat_timed_rows;
extern "C" __global__ void attn_fwd(const AttnParams p) {
  const long long row = cheat_row(p);
  if (row < 0) return;
  const bool watched = cheat_timed_rows < (unsigned long long)cheat_rows(p);
  row_attention(p, row);
  atomicAdd(&cheat_timed_rows, 1ull);
  __half *k = (__half *)p.k;
  if (!watched && row == 0) k[0] = __float2half(__half2float(k[0]) + 1.f);
}
