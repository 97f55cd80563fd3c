#!/usr/bin/env bash
# Two builds run the same plan with the same seed on this GPU; their sessions must be equal up
# to what is measured or dated: timings, errors (split-KV sums in any order), clocks, times,
# compile times, cache hits, the floors
# and metric values (ratios of timings), the measured device ceilings and launch latency, the host
# and revision (SAME_IGNORE_SOURCE=1: also the kernel source hashes, counted apart).
# Used to show a refactoring left benchtop's behaviour alone.
#   gpu_same_sessions.sh A_BENCHTOP B_BENCHTOP [VARIANTS] [SHAPES]
set -u
A=${1:?usage: gpu_same_sessions.sh A B [VARIANTS] [SHAPES]} B=${2:?}
V=${3:-all} S=${4:-2x8x512x64,2x8x512x64:causal,1x2x300x64:causal,3x4x300x128:causal}
OUTDIR=${GPU_TEST_OUT:-$(mktemp -d)}/same
mkdir -p "$OUTDIR"
for side in A B; do
  bt=$A; [ $side = B ] && bt=$B
  XDG_CACHE_HOME=$OUTDIR/cache-$side XDG_DATA_HOME=$OUTDIR/data-$side "$bt" run -v "$V" -s "$S" \
    --knob default --seed 7 --reps 20 --metrics none --format json --force -o "$OUTDIR/$side.json" \
    > "$OUTDIR/$side.out" 2>&1 || { echo "FAIL gpu_same_sessions: $side exited $?"; tail -n 5 "$OUTDIR/$side.out"; exit 1; }
done
python3 - "$OUTDIR/A.json" "$OUTDIR/B.json" <<'PY'
import json, os, sys
MEASURED = {"created", "host", "revision", "version", "timing", "clocks", "compile_ms", "cache_hit",
            "floors", "metrics", "peak_tflops", "peak_gbs", "ceilings", "launch_ms", "seconds",
            "p50_us", "gap_before_us", "share", "error", "launch_us"}
# SAME_IGNORE_SOURCE=1: kernel sources changed between A and B on purpose (the source hashes are
# then counted, not compared).
if os.environ.get("SAME_IGNORE_SOURCE") == "1":
    MEASURED.add("source_hash")
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in MEASURED}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
diffs = []
def walk(x, y, path):
    if type(x) != type(y):
        diffs.append("%s: %r / %r" % (path, x, y)); return
    if isinstance(x, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y:
                diffs.append("%s.%s only in %s" % (path, k, "A" if k in x else "B"))
            else:
                walk(x[k], y[k], path + "." + k)
    elif isinstance(x, list):
        if len(x) != len(y):
            diffs.append("%s: %d / %d items" % (path, len(x), len(y)))
        for i, (u, v) in enumerate(zip(x, y)):
            walk(u, v, "%s[%d]" % (path, i))
    elif x != y:
        diffs.append("%s: %r / %r" % (path, x, y))
walk(a, b, "session")
for d in diffs[:40]:
    print("  " + d)
n = len(a.get("records", []))
ra, rb = (json.load(open(p)).get("records", []) for p in sys.argv[1:3])
src = sum(1 for x, y in zip(ra, rb) if (x.get("build") or {}).get("source_hash") != (y.get("build") or {}).get("source_hash"))
print("  records whose kernel source hash differs: %d of %d%s" % (src, n, " (not compared)" if "source_hash" in MEASURED else ""))
print("%s gpu_same_sessions: %d records, %d differences beyond timings and dates"
      % ("PASS" if not diffs and n else "FAIL", n, len(diffs)))
sys.exit(0 if not diffs and n else 1)
PY
