/* benchtop
name      test_hang
summary   Deliberately broken (engine fault test): never finishes; the parent's watchdog must fire.
head_dims 64 128
arch      sm_80
tolerance 2e-3
kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)
*/
// Deliberately broken (engine fault test): never finishes; the parent's watchdog must fire.
// It spins on a global the kernel never changes (O, poisoned by the engine before the launch):
// a volatile load each turn, so the compiler can neither hoist nor drop the loop.
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {
  volatile unsigned short *o = (volatile unsigned short *)p.o;
  while (o[0] != 0x1234u) {
  }
}
