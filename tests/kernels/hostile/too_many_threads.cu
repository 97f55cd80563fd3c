/* benchtop
name too_many_threads
head_dims 64
arch sm_80
tolerance 2e-3
kernel attn_fwd grid(cdiv(S, 128), B * H) block(2048)
*/
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
// expect: 6: block x is 2048
