#!/usr/bin/env python3
"""Unit checks of tests/gpu/perf_rounds.py (no GPU, no torch): the interleaved rounds' verdicts
from fabricated round files. Prints 'N checks, N failed'; exits 1 on a failure."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
import perf_rounds  # noqa: E402

checks = failed = 0


def check(ok, what):
    global checks, failed
    checks += 1
    failed += not ok
    print("%s %s" % ("ok  " if ok else "FAIL", what))


def session(path, recs):
    json.dump({"records": [{"variant": v, "shape": s, "status": st, "timing": {"p50": p}} for v, s, p, st in recs]},
              open(path, "w"))


D = "8x32/8x1/8192x128:bf16"
F1, F2 = "4x32/8x2048x128:causal:bf16", "1x32/8x8192x128:causal:bf16"
with tempfile.TemporaryDirectory() as t:
    # round 1: decode faster than cuDNN; round 2 and 3: slower (so the median is slower); round 4
    # has no SDPA side and round 5 an unreadable one: both left out.
    ours = {1: 75.0, 2: 75.6, 3: 75.7, 4: 10.0, 5: 10.0}
    cud = {1: 75.3, 2: 75.2, 3: 75.3}
    for r, us in ours.items():
        session(os.path.join(t, "round-%d-decode.json" % r), [("decode", D, us, "pass")])
        session(os.path.join(t, "round-%d-fa3.json" % r),
                [("fa3", F1, 250.0 + r, "pass"), ("fa3", F2, 900.0, "fail")])
    for r, us in cud.items():
        json.dump({"cudnn|" + D: us, "flash|" + D: 78.0, "cudnn|" + F1: 260.0, "cudnn|" + F2: 890.0},
                  open(os.path.join(t, "round-%d-sdpa.json" % r), "w"))
    open(os.path.join(t, "round-5-sdpa.json"), "w").write("{not json")
    v = perf_rounds.verdicts(t)
    check(len(v) == len(perf_rounds.TARGETS), "one verdict per target (%d)" % len(v))
    ok, line = v[0]
    check(ok is True and "3 interleaved rounds" in line and "median 252.00 vs 260.00" in line
          and "faster in 3 of 3" in line, "fa3 no slower than cuDNN over 3 rounds: %s" % line)
    ok, line = v[1]
    check(ok is None and "no round with both sides" in line,
          "a target whose records failed has no verdict: %s" % line)
    ok, line = v[2]
    check(ok is False and "median 75.60 vs 75.30" in line and "faster in 1 of 3" in line,
          "decode slower than cuDNN by the median although faster in one round: %s" % line)
    ok, line = v[3]
    check(ok is True and "faster in 3 of 3" in line, "decode faster than flash: %s" % line)
    check(perf_rounds.main(["perf_rounds.py", t]) == 1, "a failed verdict: exit 1")
with tempfile.TemporaryDirectory() as t:
    v = perf_rounds.verdicts(t)
    check(all(ok is None for ok, _ in v) and perf_rounds.main(["perf_rounds.py", t]) == 0,
          "no rounds: every verdict missing, none failed")
check(perf_rounds.main(["perf_rounds.py"]) == 2, "no folder: usage, exit 2")
check(perf_rounds.problems("fa3") == [F1, F2] and perf_rounds.problems("decode") == [D]
      and perf_rounds.problems() == [F1, F2, D], "the rounds run each target's problem once, by variant")
print("%d checks, %d failed" % (checks, failed))
sys.exit(1 if failed else 0)
