#!/usr/bin/env python3
"""Writes replicates-synthetic.json: SYNTHETIC records shaped like the between-process spread
measured on an H100 (fa3 at 4x16x2048x128, fixed knobs, six processes: p50 218.7, 235.9,
222.7, 217.6, 232.2, 232.9 us; bimodal, about 218 or 233; tight samples inside a process).
Not measured data: each record is one "process" of 8 replicates (4 at the small shape) (independently allocated
input sets, the timed launches rotating through them) whose replicate median is 218 or 233
with equal odds (the hypothesis that placement picks the mode), samples within 0.2 %. Beside
them, records at a small shape with no between-replicate mode (samples within 0.4 %). Config B is the same
kernel 3 % slower. Run: make_replicates_synthetic.py OUT.json"""
import json, random, statistics, sys

RECORDS = 6
rng = random.Random(31)


def record(knobs, shape, modes, within, sets, per_set):
    mode = [rng.choice(modes) for _ in range(sets)]
    samples = []
    for i in range(per_set * sets):  # launch i used input set i % sets
        samples.append(round(mode[i % sets] * (1 + within * rng.gauss(0, 1)), 3))
    reps = [statistics.median(samples[k::sets]) for k in range(sets)]
    p50 = statistics.median(samples)
    return {"variant": "fa3", "knobs": knobs, "shape": shape, "status": "pass", "reason": "",
            "created": "2026-11-27T20:00:00Z",
            "options": {"reps": len(samples), "warmup": 10, "cold_l2": False, "graph": False,
                        "seed": "42", "watchdog_s": 10},
            "timing": {"p50": p50, "p90": max(samples), "p99": max(samples),
                       "min": min(samples), "mean": statistics.fmean(samples),
                       "stddev": statistics.pstdev(samples), "nsamples": len(samples),
                       "samples": samples, "source": "kernel", "replicate_p50": reps}}


def main():
    records = []
    for knobs, scale in (("exp_poly=4", 1.0), ("exp_poly=8", 1.03)):
        for _ in range(RECORDS):
            records.append(record(knobs, "4x16x2048x128", [218.0 * scale, 233.0 * scale], 0.002, 8, 13))
        for _ in range(RECORDS):
            base = 6.5 * scale
            records.append(record(knobs, "2x8x512x64", [base], 0.004, 4, 25))
    session = {"schema": "benchtop.session/2", "created": "2026-11-27T20:00:00Z",
               "host": "synthetic", "version": "0.1.0", "revision": "synthetic",
               "plan": {"variants": [{"name": "fa3", "knobs": []}],
                        "shapes": ["4x16x2048x128", "2x8x512x64"], "metrics": "none",
                        "options": {"reps": 100, "warmup": 10, "cold_l2": False, "graph": False,
                                    "seed": "42", "watchdog_s": 10}},
               "records": records}
    with open(sys.argv[1], "w") as f:
        json.dump(session, f, indent=1)
        f.write("\n")


main()
