// A correct output, and the first row's thread writes the 2 bytes just before O.
// Expected: "wrote 2 bytes before the start of O".
extern "C" __global__ void attn_fwd(const AttnParams p) {
  const long long row = cheat_row(p);
  if (row < 0) return;
  row_attention(p, row);
  if (row == 0) ((unsigned short *)p.o)[-1] = 0x1234;
}
