#!/usr/bin/env bash
# Timing truth (issue 4, acceptance 2): benchtop's p50 against Nsight Compute's
# gpu__time_duration.sum for the same kernels (ncu --clock-control none --cache-control none):
# within 5 % or 1 us, whichever is larger; and the same command twice agrees within 2 % for
# kernels over 50 us. Events around each launch include about 2 us of launch latency that
# ncu's kernel duration does not (H200, 2026-11-22), so the check is made on both timing modes
# and reported for both: per-launch events, and --graph (launches replayed back to back).
# Passing needs --graph within tolerance everywhere and events within it where 2 us is < 5 %.
# Skips (77) without a GPU or without ncu, and says which.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)
[ -n "$NCU" ] && [ -x "$NCU" ] || { echo "SKIP gpu_timing: ncu not found"; exit 77; }
echo "ncu: $NCU"
fail=0
for v in naive wmma mma; do
  # mma unsplit: one kernel, so ncu's duration of it is the whole launch benchtop times.
  k=""; [ $v = mma ] && k="--knob split=1"
  for s in 2x8x512x64 4x16x2048x128; do
    tag="$v-$s"
    for i in 1 2; do
      "$BT" run -v $v $k -s $s --reps 300 --warmup 50 --metrics none -o "$OUTDIR/t-$tag-$i.json" > /dev/null 2>&1
    done
    "$BT" run -v $v $k -s $s --reps 300 --warmup 50 --graph --metrics none -o "$OUTDIR/t-$tag-graph.json" > /dev/null 2>&1
    "$NCU" --target-processes all --metrics gpu__time_duration.sum --clock-control none \
      --cache-control none -k regex:attn_fwd --launch-skip 3 --launch-count 30 --csv \
      "$BT" run -v $v $k -s $s --reps 40 --warmup 3 --metrics none -o "$OUTDIR/t-$tag-ncu.json" \
      > "$OUTDIR/t-$tag-ncu.csv" 2> "$OUTDIR/t-$tag-ncu.err"
    python3 - "$OUTDIR" "$tag" <<'PY' || fail=1
import csv, json, statistics, sys
d, tag = sys.argv[1], sys.argv[2]
p = [json.load(open("%s/t-%s-%d.json" % (d, tag, i)))["records"][0]["timing"]["p50"] for i in (1, 2)]
g = json.load(open("%s/t-%s-graph.json" % (d, tag)))["records"][0]["timing"]["p50"]
scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
rows = [r for r in csv.reader(l for l in open("%s/t-%s-ncu.csv" % (d, tag)) if l.startswith('"'))]
hdr = rows[0]; mi, ui, vi = hdr.index("Metric Name"), hdr.index("Metric Unit"), hdr.index("Metric Value")
dur = [float(r[vi].replace(",", "")) * scale[r[ui]] for r in rows[1:] if r[mi] == "gpu__time_duration.sum"]
ncu = statistics.median(dur)
tol = max(0.05 * ncu, 1.0)
ok_events = abs(p[0] - ncu) <= tol
ok_graph = abs(g - ncu) <= tol
ok_truth = ok_graph and (ok_events or ncu < 40.0)
ok_repeat = p[0] < 50 or abs(p[0] - p[1]) <= 0.02 * max(p)
print("%s %-20s ncu %9.2f us (%d launches) | events p50 %9.2f (again %9.2f) diff %+6.2f%s | graph p50 %9.2f diff %+6.2f%s | tol %.2f%s" % (
    "ok  " if ok_truth and ok_repeat else "FAIL", tag, ncu, len(dur), p[0], p[1], p[0] - ncu,
    "" if ok_events else " OUT", g, g - ncu, "" if ok_graph else " OUT", tol,
    "" if ok_repeat else "  repeat differs > 2%"))
sys.exit(0 if ok_truth and ok_repeat else 1)
PY
  done
done
[ $fail -eq 0 ] && echo "PASS gpu_timing" || echo "FAIL gpu_timing"
exit $fail
