#!/usr/bin/env python3
"""The "faster than SDPA" verdicts of gpu_problems_perf.sh, from interleaved rounds: each round
runs benchtop's kernel (OUTDIR/round-R-VARIANT.json, a benchtop session) and then SDPA's kernels
(OUTDIR/round-R-sdpa.json, written by --sdpa) one after the other, so that clock and machine
drift fall on both sides. SDPA's cuDNN decode read 74.6 and 75.3 us in two device calls on one
H200: one measurement of each side cannot call a 0.5 % difference.

  perf_rounds.py --problems [VARIANT]                      (the targets' problems, comma-separated)
  perf_rounds.py --sdpa > OUTDIR/round-R-sdpa.json          (needs PyTorch; research/ on PYTHONPATH)
  perf_rounds.py OUTDIR                                     (the verdicts; exit 1 when one failed)

A verdict compares the medians over rounds of both sides' kernel p50s, and says in how many
rounds benchtop's side was the faster."""
import glob
import json
import os
import re
import statistics
import sys

# (variant, problem, SDPA backend, what passes: "no slower" or "faster")
TARGETS = [
    ("fa3", "4x32/8x2048x128:causal:bf16", "cudnn", "no slower"),
    ("fa3", "1x32/8x8192x128:causal:bf16", "cudnn", "no slower"),
    ("decode", "8x32/8x1/8192x128:bf16", "cudnn", "faster"),
    ("decode", "8x32/8x1/8192x128:bf16", "flash", "faster"),
]


def load_rounds(outdir):
    """{(variant, problem): [p50 per round]} and {(backend, problem): [kernel p50 per round]},
    over the rounds that have both sides (a round missing one side is left out of both)."""
    ours, theirs = {}, {}
    rounds = sorted({int(m.group(1)) for f in glob.glob(os.path.join(outdir, "round-*-*.json"))
                     for m in [re.match(r"round-(\d+)-", os.path.basename(f))] if m})
    for r in rounds:
        mine, sdpa = {}, {}
        for f in glob.glob(os.path.join(outdir, "round-%d-*.json" % r)):
            try:
                data = json.load(open(f))
            except (OSError, ValueError):
                continue
            if f.endswith("-sdpa.json"):
                for key, us in data.items():
                    backend, _, problem = key.partition("|")
                    if isinstance(us, (int, float)):
                        sdpa[(backend, problem)] = us
            else:
                for rec in data.get("records", []):
                    if rec.get("status") == "pass":
                        mine[(rec["variant"], rec["shape"])] = rec["timing"]["p50"]
        if not mine or not sdpa:
            continue
        for k, v in mine.items():
            ours.setdefault(k, []).append((r, v))
        for k, v in sdpa.items():
            theirs.setdefault(k, []).append((r, v))
    return ours, theirs


def verdicts(outdir):
    """One (ok, line) per target: ok None when a side has no round."""
    ours, theirs = load_rounds(outdir)
    out = []
    for variant, problem, backend, rule in TARGETS:
        a = dict(ours.get((variant, problem), []))
        b = dict(theirs.get((backend, problem), []))
        both = sorted(set(a) & set(b))
        what = "%s %s SDPA's %s at %s" % (variant, "no slower than" if rule == "no slower" else "faster than",
                                          backend, problem)
        if not both:
            out.append((None, "%s: no round with both sides" % what))
            continue
        ma, mb = statistics.median(a[r] for r in both), statistics.median(b[r] for r in both)
        won = sum(a[r] < b[r] for r in both)
        ok = ma <= mb if rule == "no slower" else ma < mb
        out.append((ok, "%s, %d interleaved rounds: median %.2f vs %.2f us (%+.1f %%), faster in %d of %d" % (
            what, len(both), ma, mb, 100 * (ma / mb - 1), won, len(both))))
    return out


def problems(variant=None):
    """The targets' problems (of one variant), in TARGETS' order, each once."""
    return list(dict.fromkeys(p for v, p, _, _ in TARGETS if variant in (None, v)))


def time_sdpa(shapes):
    """SDPA's cuDNN and flash kernels at shapes (research/compare_sdpa.py), as {backend|problem: us}."""
    import compare_sdpa as cs
    cs.BACKENDS = ["cudnn", "flash"]
    got = cs.time_sdpa(shapes)
    return {"%s|%s" % k: (v or {}).get("kernel_p50_us") for k, v in got.items()}


def main(argv):
    if len(argv) in (2, 3) and argv[1] == "--problems":
        print(",".join(problems(argv[2] if len(argv) == 3 else None)))
        return 0
    if len(argv) == 2 and argv[1] == "--sdpa":
        json.dump(time_sdpa(problems()), sys.stdout)
        return 0
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    bad = 0
    for ok, line in verdicts(argv[1]):
        bad += ok is False
        print("%s %s" % ("PASS" if ok else ("FAIL" if ok is False else "MISSING"), line))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
