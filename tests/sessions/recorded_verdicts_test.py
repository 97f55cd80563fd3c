#!/usr/bin/env python3
"""Verdicts on recorded H100 data (tests/sessions/data/h100-pauses, 2026-11-27, fa3 at
4x16x2048x128, fixed knobs, every record its own process):
- b2b-*: timed back to back (--span 0): the p50 moved 214-233 us between processes, and diff
  calls same-code pairs slower or faster (what replays saw before the pauses);
- paused-*: timed in blocks after pauses (the default for such records): no pair may be called
  different;
- changeA/B-*: a real change of about 3.6 % (sched=exp, exp_poly 0 -> 8), paused: every pair
  must be called slower.
Prints 'N checks, N failed'; exit 1 on a failure."""
import itertools
import json
import os
import subprocess
import sys

bt, data = sys.argv[1], sys.argv[2]
checks = failed = 0


def check(cond, what):
    global checks, failed
    checks += 1
    if not cond:
        failed += 1
        print("FAIL: " + what)


def verdict(a, b, match=None):
    cmd = [bt, "diff", "--format", "json", os.path.join(data, a), os.path.join(data, b)]
    if match:
        cmd += ["--match", match]
    out = subprocess.run(cmd, capture_output=True, text=True)
    m = json.loads(out.stdout)["matched"]
    return m[0]["verdict"] if m else "unmatched"


def called(prefix):
    pairs = list(itertools.combinations(["%s-%d.json" % (prefix, i) for i in range(1, 7)], 2))
    return sum(verdict(a, b) != "tied" for a, b in pairs), len(pairs)


n, total = called("b2b")
print("back to back: %d of %d same-code pairs called different" % (n, total))
check(n >= 3, "the back-to-back data shows the false verdicts the pauses remove (%d of %d)" % (n, total))
n, total = called("paused")
print("after pauses: %d of %d same-code pairs called different" % (n, total))
check(n == 0, "no same-code pair called different after pauses (%d of %d)" % (n, total))
match = "fa3 exp_poly=0 vs fa3 exp_poly=8"
vs = [verdict("changeA-%d.json" % i, "changeB-%d.json" % j, match) for i in (1, 2, 3) for j in (1, 2, 3)]
print("a 3.6 %% change: %s" % " ".join(vs))
check(all(v == "slower" for v in vs), "every pair of the 3.6 %% change called slower: %s" % vs)
print("recorded-verdicts: %d checks, %d failed" % (checks, failed))
sys.exit(1 if failed else 0)
