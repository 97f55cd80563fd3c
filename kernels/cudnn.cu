/* benchtop
name      cudnn
summary   cuDNN's fused flash attention (backend graph API): the vendor kernel to beat
rung      10
head_dims 32 64 96 128 256
arch      sm_80
# fp16 or bf16 in and out, fp32 softmax and accumulation, as the fused rungs
tolerance 2e-3 bf16 1e-2
dtypes    fp16 bf16
supports  gqa kv_cache
knob engine CUDNN_ENGINE 0..7 : rank among the engine configurations cuDNN's heuristics offer (0: its first choice; ranks past the last are refused)
refuse Sq == 1 && Skv == 1 : cudnn: cuDNN's fused attention does not take one query and one key (the cuDNN frontend refuses it too)
hook   cudnn_sdpa
*/
// Rung 10: cuDNN's fused attention forward, what PyTorch's SDPA picks first on Hopper. The
// worker builds cuDNN's operation graph (Q K^T, scale, causal mask aligned bottom-right when
// there are fewer queries than keys, softmax, P V; grouped K/V heads given by their own
// shapes) once per problem, finalizes the execution plan of the heuristic's engine
// configuration named by the `engine` knob, and launches it on benchtop's buffers
// (bench/worker/cudnn.c). Nothing here is
// compiled into the launch: this file holds the declaration only. Expect in the metrics
// cuDNN's own kernel names in the breakdown, and high tensor-pipe activity.
