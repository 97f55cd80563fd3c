#!/usr/bin/env python3
"""Calls one PyTorch SDPA backend N times on one shape, an L2 flush before each call, for an
outside instrument to time (e.g. `ncu --metrics gpu__time_duration.sum`), so the SDPA side of
BENCHMARKS.md can be checked the way benchtop's p50 is (tests/gpu/gpu_timing.sh).

  python3 research/sdpa_calls.py cudnn 2x8x512x64 30
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sdpa_problems  # noqa: E402


def main():
    if len(sys.argv) != 4:
        raise SystemExit("usage: sdpa_calls.py cudnn|flash|efficient PROBLEM N (benchtop's shape grammar)")
    backend = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
               "efficient": SDPBackend.EFFICIENT_ATTENTION}[sys.argv[1]]
    p = sdpa_problems.parse(sys.argv[2])
    n = int(sys.argv[3])
    gen = torch.Generator(device="cuda").manual_seed(1)
    q, k, v = sdpa_problems.inputs(p, torch, gen)
    kw = sdpa_problems.sdpa_kwargs(p)
    flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, dtype=torch.uint8,
                        device="cuda")
    with sdpa_kernel(backend):
        for _ in range(n):
            flush.fill_(1)
            F.scaled_dot_product_attention(q, k, v, **kw)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
