#!/usr/bin/env python3
"""Unit checks of research/compare_sdpa.py's pure parts (no GPU, no torch): which benchtop records
go under the ncu verdict. Prints 'N checks, N failed'; exits 1 on a failure."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "research"))
import compare_sdpa  # noqa: E402

checks = failed = 0


def check(cond, what):
    global checks, failed
    checks += 1
    if not cond:
        failed += 1
        print("FAIL: " + what)


def rec(knobs, p50, status="pass", source="kernel"):
    return {"variant": "fa3", "shape": "4x16x2048x128", "status": status, "knobs": knobs,
            "timing": {"source": source, "p50": p50}}


# Persistent grids read long by kernel timestamps: the fastest persistent record joins the
# candidates even when the k fastest are all non-persistent (a 0.99x verdict once came from that).
recs = [rec("block_m=128,persist=0", 225.3), rec("block_m=128,stages=3,persist=0", 226.0),
        rec("block_m=128,persist=1", 239.2), rec("block_m=192,persist=1", 241.0)]
got = [r["knobs"] for r in compare_sdpa.top_records(recs, "fa3", "4x16x2048x128", 2)]
check(got == ["block_m=128,persist=0", "block_m=128,stages=3,persist=0", "block_m=128,persist=1"],
      "top 2 plus the fastest persistent record: %s" % got)
# Already among the k fastest: not added twice.
got = [r["knobs"] for r in compare_sdpa.top_records(recs[2:] + recs[:1], "fa3", "4x16x2048x128", 2)]
check(got == ["block_m=128,persist=0", "block_m=128,persist=1"], "no duplicate: %s" % got)
# No persist knob (mma): just the k fastest; failed and non-kernel-clock records never count.
recs = [rec("split=1", 1.0), rec("split=2", 0.5, status="fail"), rec("split=4", 0.7, source="events"),
        rec("split=auto", 1.2)]
got = [r["knobs"] for r in compare_sdpa.top_records(recs, "fa3", "4x16x2048x128", 3)]
check(got == ["split=1", "split=auto"], "only passing kernel-clock records: %s" % got)
# persist=10 is not persist=1.
got = [r["knobs"] for r in compare_sdpa.top_records([rec("a=1", 1.0), rec("persist=10", 2.0)],
                                                    "fa3", "4x16x2048x128", 1)]
check(got == ["a=1"], "persist=10 is no persistent record: %s" % got)

# A call's GPU time: kernels and memsets summed per call, cut at each flush; kernels_only leaves
# PyTorch's memset out (benchtop's cudnn rung launches none, so that is what it is compared to).
acts = [(0, 5000, "flush"), (10, 600, "Memset (Device)"), (20, 8800, "cudnn_sdpa_fprop"),
        (30, 5000, "flush"), (40, 700, "Memset (Device)"), (50, 9000, "cudnn_sdpa_fprop")]
check(compare_sdpa.kernel_busy_us(acts) == [9.4, 9.7], "busy time sums kernels and memsets")
check(compare_sdpa.kernel_busy_us(acts, kernels_only=True) == [8.8, 9.0],
      "kernels_only leaves memsets out")

# The problem grammar on PyTorch's side agrees with benchtop's: today's shapes, GQA, decode,
# chunked prefill, dtype; malformed or inconsistent problems refused.
import sdpa_problems  # noqa: E402
p = sdpa_problems.parse("8x32/8x1/8192x128:bf16")
check(p == (8, 32, 8, 1, 8192, 128, False, "bf16"), "decode problem parsed: %r" % (p,))
p = sdpa_problems.parse("2x8x512x64:causal")
check(p == (2, 8, 8, 512, 512, 64, True, "fp16"), "today's shape parsed: %r" % (p,))
check(sdpa_problems.flops("2x8x512x64:causal") == 4.0 * 2 * 8 * 512 * 512 * 64 / 2,
      "causal Sq == Skv counts half, as today")
check(sdpa_problems.flops("1x1x2/4x8:causal") == 4.0 * 8 * (2 * 4 - 2 * 2 / 2),
      "causal Sq < Skv counts the bottom-right area")
check(sdpa_problems.bytes_moved("1x4/2x1/16x8") == 2.0 * 8 * (2 * 4 * 1 + 2 * 2 * 16),
      "K and V counted once per KV head")
for bad in ("8x32/5x1x64x128", "1x8x512/256x64:causal", "1x8x512x64:causal:causal", "1x8x512x64:fp32",
            "1x8x512"):
    try:
        sdpa_problems.parse(bad)
        check(False, "%s refused" % bad)
    except ValueError:
        check(True, "")

# SDPA is timed by benchtop's protocol: back to back under 2 ms of launches, else eight blocks
# after pauses (200 ms, then 30 ms), each opened by ~2 ms of untimed launches, all reps timed.
check(compare_sdpa.block_plan(100, 0.007) == [(0.0, 0, 100)], "a small problem runs back to back")
plan = compare_sdpa.block_plan(30, 0.14)
check(len(plan) == 8 and plan[0][0] == 0.2 and all(p[0] == 0.03 for p in plan[1:]) and
      sum(p[2] for p in plan) == 30 and all(p[1] == 14 for p in plan),
      "4.2 ms of launches: eight blocks after pauses (%r)" % (plan,))
check(compare_sdpa.block_plan(3, 20.0) == [(0.0, 0, 3)], "a slow kernel is not paused")

print("compare_sdpa: %d checks, %d failed" % (checks, failed))
sys.exit(1 if failed else 0)
