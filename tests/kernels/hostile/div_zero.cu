/* benchtop
name div_zero
head_dims 64
arch sm_80
tolerance 2e-3
let t = 64 / (D - D)
kernel attn_fwd grid(cdiv(S, t), B * H) block(128)
*/
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
// expect: 6: division by zero
