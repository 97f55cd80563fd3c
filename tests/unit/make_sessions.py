#!/usr/bin/env python3
"""Synthetic sessions for the leaderboard tests (tests/unit/test_best.sh):

    make_sessions.py DIR SCENARIO

20 sessions under DIR (some in sub-folders), one a day, each measuring configurations whose
p50s follow a script: mma on an H100 getting faster, the same on an H200 (kept apart), a tie
between two sessions, a configuration that fails once. The newest session (day 20) is made
by SCENARIO: "improve" (every configuration 5 % faster than its best before), "regress" (one
10 % slower), "noise" (one 0.3 % slower with 3 % noise: tied), "fail" (one no longer passes)."""
import json, os, random, sys

out, scenario = sys.argv[1], sys.argv[2]
rng = random.Random(7)

def device(name):
    return {"name": name, "cc_major": 9, "cc_minor": 0, "sm_count": 132, "l2_bytes": 52428800,
            "mem_bytes": 80000000000, "driver_version": 13000, "runtime_version": 13000,
            "nvrtc_major": 13, "nvrtc_minor": 0, "cupti_version": 130001, "peak_tflops": 650.0,
            "peak_gbs": 4000.0, "launch_us": 2.0}

def record(variant, knobs, shape, gpu, p50, day, status="pass", noise=0.002, cold=True):
    samples = sorted(p50 * (1 + rng.uniform(-noise, noise)) for _ in range(101))
    mid = samples[50]
    samples = [s * p50 / mid for s in samples]  # the median is exactly p50
    rng.shuffle(samples)
    s = sorted(samples)
    return {"variant": variant, "knobs": knobs, "shape": shape, "status": status,
            "reason": "" if status == "pass" else "verification failed: rel L2 0.5 (synthetic)",
            "created": "2026-10-%02dT12:00:00Z" % day,
            "options": {"reps": 101, "warmup": 10, "cold_l2": cold, "graph": False, "seed": "1", "watchdog_s": 10},
            "device": device(gpu),
            "timing": {"p50": p50, "p90": s[90], "p99": s[99], "min": s[0], "mean": sum(s) / 101,
                       "stddev": 0.01, "tflops": 100.0, "peak_frac": 0.15, "nsamples": 101,
                       "samples": samples, "source": "kernel"},
            "error": {"checked": True, "max_abs": 1e-3, "rel_l2": 3e-4, "tolerance": 2e-3,
                      "nan_count": 0, "inf_count": 0, "unwritten": 0},
            "build": {"regs": 128, "smem_static": 0, "smem_dynamic": 49152, "stack_bytes": 0,
                      "spill_stores": 0, "spill_loads": 0, "compile_ms": 800, "cache_hit": False,
                      "source_hash": "%016x" % (0xabc000 + day), "arch": "sm_90"},
            "metrics": [], "metric_passes": -1, "occupancy_theoretical": 50}

def session(day, recs, sub):
    s = {"schema": "benchtop.session/2", "created": "2026-10-%02dT12:00:00Z" % day, "host": "box%d" % (day % 3),
         "version": "0.1.0", "revision": "rev%02d" % day,
         "plan": {"variants": [{"name": "mma", "knobs": []}], "shapes": ["2x8x512x64"], "metrics": "none",
                  "options": {"reps": 101, "warmup": 10, "cold_l2": True, "graph": False, "seed": "1", "watchdog_s": 10}},
         "records": recs}
    d = os.path.join(out, sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "day%02d.json" % day), "w") as f:
        json.dump(s, f)

H100, H200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
A = ("mma", "bm=64", "2x8x512x64")
B = ("fa3", "bm=128", "4x16x2048x128")
best = {}
for day in range(1, 20):
    recs = []
    a = 10.0 - 0.2 * day if day < 15 else 7.4 + 0.1 * (day - 15)   # best 7.2 on day 14
    recs.append(record(*A, H100, round(a, 3), day))
    recs.append(record(*A, H200, round(a * 0.9, 3), day))           # another GPU: its own row
    b = 200.0 if day in (5, 9) else 210.0 + day                       # a tie: days 5 and 9
    recs.append(record(*B, H100, b, day))
    if day == 12:
        recs.append(record(*B, H100, 150.0, day, status="fail"))      # a failed record is never best
    session(day, recs, "week%d" % (day // 7))
last = []
if scenario == "improve":
    last = [record(*A, H100, 7.2 * 0.95, 20), record(*A, H200, 7.2 * 0.9 * 0.95, 20), record(*B, H100, 190.0, 20)]
elif scenario == "regress":
    last = [record(*A, H100, 7.2 * 0.95, 20), record(*B, H100, 220.0, 20)]
elif scenario == "noise":
    last = [record(*A, H100, 7.2 * 1.003, 20, noise=0.03), record(*B, H100, 200.0, 20)]
elif scenario == "fail":
    last = [record(*A, H100, 7.2, 20, status="fail"), record(*B, H100, 199.0, 20)]
session(20, last, "latest")
