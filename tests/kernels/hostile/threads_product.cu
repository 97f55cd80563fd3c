/* benchtop
name threads_product
head_dims 64
arch sm_80
tolerance 2e-3
kernel attn_fwd grid(cdiv(S, 128), B * H) block(64, 32)
*/
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
// expect: 6: 2048 threads
