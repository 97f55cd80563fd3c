// A correct output, then it overwrites its input: each row's first element of Q (read by this
// thread only, so the output stays right). Expected: "modified its input Q".
extern "C" __global__ void attn_fwd(const AttnParams p) {
  const long long row = cheat_row(p);
  if (row < 0) return;
  row_attention(p, row);
  ((__half *)p.q)[row * p.D] = __float2half(0.f);
}
