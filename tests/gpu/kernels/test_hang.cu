// Deliberately broken (engine fault test): never finishes; the parent's watchdog must fire.
// It spins on a global the kernel never changes (O, poisoned by the engine before the launch):
// a volatile load each turn, so the compiler can neither hoist nor drop the loop.
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {
  volatile unsigned short *o = (volatile unsigned short *)p.o;
  while (o[0] != 0x1234u) {
  }
}
