// Computes on one launch in CHEAT_EVERY (the first, verified one among them) and returns at once
// on the others: the output of a skipped launch is whatever was in O before it, which is right
// whenever nothing changed it since the last computing launch. gpu_cheats.sh builds
// cheat_every_N.cu from this with CHEAT_EVERY defined. Expected: "the timed launches did not
// all compute".
__device__ unsigned long long cheat_every_blocks; // blocks started so far, over every launch
extern "C" __global__ void attn_fwd(const AttnParams p) {
  __shared__ unsigned long long launch;
  if (threadIdx.x == 0)
    launch = atomicAdd(&cheat_every_blocks, 1ull) / ((unsigned long long)gridDim.x * gridDim.y);
  __syncthreads();
  if (launch % CHEAT_EVERY != 0) return;
  const long long row = cheat_row(p);
  if (row >= 0) row_attention(p, row);
}
