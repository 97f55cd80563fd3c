// A correct output, and the last row's thread writes 2 bytes at bytes 6..7 past the end of O.
// Expected: "wrote 8 bytes past the end of O" (never blamed on the output's accuracy).
extern "C" __global__ void attn_fwd(const AttnParams p) {
  const long long row = cheat_row(p);
  if (row < 0) return;
  row_attention(p, row);
  if (row == cheat_rows(p) - 1) ((unsigned short *)p.o)[cheat_rows(p) * p.D + 3] = 0x1234;
}
