/* benchtop
name bad_word
head_dims 64
arch sm_80
tolerance 2e-3
knob mode MODE {fast=1, slow=0} : how
refuse mode == "fastest" : never
kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)
*/
#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
// expect: 7: not a value of that knob
