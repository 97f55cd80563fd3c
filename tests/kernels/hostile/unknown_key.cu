/* benchtop
name unknown_key
head_dims 64
arch sm_80
tolerance 2e-3
colour blue
kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)
*/
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
// expect: 6: unknown key 'colour'
