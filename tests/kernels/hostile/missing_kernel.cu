/* benchtop
name missing_kernel
head_dims 64
arch sm_80
tolerance 2e-3
kernel attn_fwdd grid(1) block(128)
*/
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
// expect: 6: kernel attn_fwdd: no such function
