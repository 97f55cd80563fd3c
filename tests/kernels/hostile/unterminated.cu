// expect: 2: no closing
/* benchtop
name unterminated
head_dims 64

#include "attn_params.h"
extern "C" __global__ void attn_fwd(const AttnParams p) {}
