// The control: row_attention and nothing else. Must pass (the others' failures are their cheats).
extern "C" __global__ void attn_fwd(const AttnParams p) {
  const long long row = cheat_row(p);
  if (row >= 0) row_attention(p, row);
}
