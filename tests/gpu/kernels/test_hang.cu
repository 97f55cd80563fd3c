// Deliberately broken (engine fault test): never finishes; the parent's watchdog must fire.
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {
  volatile int spin = 1;
  while (spin) {
    if (p.S < 0) spin = 0; // never true: the loop is not provably infinite, so it is not removed
  }
}
