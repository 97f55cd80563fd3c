/* benchtop
name      catchall
summary   gpu_problems.sh's companion: declares every problem and is refused on every device
head_dims 32 64 96 128 256
arch      sm_80
tolerance 2e-3
dtypes    fp16 bf16
supports  gqa kv_cache
# The SM count is known only on a device: before a worker starts, this variant accepts every
# problem, so a run of one variant over the whole grid is not refused outright (a problem no
# variant asked for can run is a usage error); on the device it is n/a and never compiled.
require sms < 0 : catchall: never runs (it lets gpu_problems.sh run one variant over the whole grid)
kernel attn_fwd grid(1) block(32)
*/
extern "C" __global__ void attn_fwd() {}
