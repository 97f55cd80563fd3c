/* benchtop
name bad_preset
head_dims 64
arch sm_80
tolerance 2e-3
knob tile TILE {32, 64} : rows
preset tile=48
kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)
*/
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
// expect: 7: knob tile of bad_preset cannot be '48'
