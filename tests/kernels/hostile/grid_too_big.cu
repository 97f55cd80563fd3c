/* benchtop
name grid_too_big
head_dims 64
arch sm_80
tolerance 2e-3
kernel attn_fwd grid(1, 100000) block(128)
*/
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
// expect: 6: grid y 100000 exceeds
