/* benchtop
name overflow
head_dims 64
arch sm_80
tolerance 2e-3
kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)
scratch workspace B * H * S * S * D * 9223372036854775807
*/
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
// expect: 7: integer overflow
