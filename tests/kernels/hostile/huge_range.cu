/* benchtop
name huge_range
head_dims 64
arch sm_80
tolerance 2e-3
knob tile TILE 1..100000 : rows
kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)
*/
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
// expect: 6: more than 256 values
