/* benchtop
name      test_trap
summary   Deliberately broken (engine fault test): every thread traps.
head_dims 64 128
arch      sm_80
tolerance 2e-3
kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)
*/
// Deliberately broken (engine fault test): every thread traps.
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {
  if (p.S > 0) __trap();
}
