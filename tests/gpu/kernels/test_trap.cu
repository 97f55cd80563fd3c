// Deliberately broken (engine fault test): every thread traps.
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {
  if (p.S > 0) __trap();
}
