/* benchtop
name      test_oob
summary   Deliberately broken (engine fault test): writes far past the end of O -> illegal address.
head_dims 64 128
arch      sm_80
tolerance 2e-3
kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)
*/
// Deliberately broken (engine fault test): writes far past the end of O -> illegal address.
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {
  unsigned short *o = (unsigned short *)p.o;
  long long far = (long long)p.B * p.H * p.S * p.D + (1ll << 36);
  o[far + threadIdx.x] = 1;
}
