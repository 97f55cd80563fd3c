#!/usr/bin/env bash
# Verdicts that hold from one process to the next. (1) Six separate processes of fa3 at
# 4x16x2048x128 with fixed knobs: the spread of their p50s and replicate medians, and the diff
# verdict of every pair (none may be "slower"/"faster"). (2) Three replays of each bundled
# example: at least 95 % of records tied. (3) A real change (two fa3 knob settings, measured
# against each other in interleaved rounds first) is still called slower when it is >= 2.5 %.
# About 5 minutes on an H100 (GPU_SPREAD_QUICK=1: (1) and (3) only, about 2 minutes).
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
EX="$HERE/../../sessions/examples"
SHAPE=${GPU_SPREAD_SHAPE:-4x16x2048x128}
KA=${GPU_SPREAD_KNOBS_A:-block_n=128}   # two settings that differ by a few percent at SHAPE
KB=${GPU_SPREAD_KNOBS_B:-block_n=64}
bad=0
for i in 1 2 3 4 5 6; do
  "$BT" run -v fa3 -s "$SHAPE" --reps 100 --metrics none --format json --force -o "$OUTDIR/proc$i.json" \
    > /dev/null 2> "$OUTDIR/proc$i.err" || echo "process $i: exit $?"
done
python3 - "$OUTDIR" <<'PY' || bad=$((bad + 1))
import json, sys, statistics
recs = [json.load(open("%s/proc%d.json" % (sys.argv[1], i)))["records"][0] for i in range(1, 7)]
p50 = [r["timing"]["p50"] for r in recs]
print("six processes, p50 us:", " ".join("%.1f" % x for x in p50),
      " spread %.1f %%" % (100 * (max(p50) / min(p50) - 1)))
for i, r in enumerate(recs):
    print("  process %d: knobs %s replicates %s" % (i + 1, r["knobs"], r["timing"].get("replicate_p50")))
PY
pairs=0; called=0
for i in 1 2 3 4 5 6; do for j in 1 2 3 4 5 6; do
  [ $i -lt $j ] || continue
  "$BT" diff --format json "$OUTDIR/proc$i.json" "$OUTDIR/proc$j.json" > "$OUTDIR/d$i$j.json" 2> /dev/null
  v=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["matched"][0]; print(m["verdict"], m["dp50_pct"], m["dp50_ci_pct"])' "$OUTDIR/d$i$j.json")
  pairs=$((pairs + 1)); case $v in tied*) ;; *) called=$((called + 1));; esac
  echo "  diff proc$i proc$j: $v"
done; done
echo "same configuration, separate processes: $called of $pairs pairs not tied"
[ $called -eq 0 ] || bad=$((bad + 1))

if [ "${GPU_SPREAD_QUICK:-0}" != 1 ]; then
  for ex in "$EX"/*.json; do
    for k in 1 2 3; do
      "$BT" replay "$ex" --force -o "$OUTDIR/replay-$(basename "$ex" .json)-$k.json" > /dev/null 2>&1
      "$BT" diff --format json "$ex" "$OUTDIR/replay-$(basename "$ex" .json)-$k.json" \
        > "$OUTDIR/rdiff-$(basename "$ex" .json)-$k.json" 2> /dev/null
    done
  done
  python3 - "$OUTDIR" <<'PY' || bad=$((bad + 1))
import glob, json, sys
tied = total = 0
for f in sorted(glob.glob(sys.argv[1] + "/rdiff-*.json")):
    v = json.load(open(f))["verdicts"]
    n = sum(v.values()) - v["n/a"]
    print("  %s: %s" % (f.split("/")[-1], v))
    tied += v["tied"]; total += n
print("replays: %d of %d records tied (%.1f %%)" % (tied, total, 100.0 * tied / max(total, 1)))
sys.exit(0 if total and tied >= 0.95 * total else 1)
PY
fi

# A real change: interleaved rounds of the two settings, then the verdict of one pair.
for k in 1 2 3; do
  for kn in "$KA" "$KB"; do
    "$BT" run -v fa3 --knob "$kn" -s "$SHAPE" --reps 100 --metrics none --format json --force \
      -o "$OUTDIR/ab-${kn//=/_}-$k.json" > /dev/null 2>&1
  done
done
python3 - "$OUTDIR" "${KA//=/_}" "${KB//=/_}" <<'PY'
import json, statistics, sys
d, a, b = sys.argv[1:]
def p50(knob, k):
    r = json.load(open("%s/ab-%s-%d.json" % (d, knob, k)))["records"][0]
    if r["status"] != "pass":
        sys.exit("FAIL %s: %s %s" % (knob, r["status"], r.get("reason", "")))
    return r["timing"]["p50"]
pa = [p50(a, k) for k in (1, 2, 3)]
pb = [p50(b, k) for k in (1, 2, 3)]
r = statistics.median(pb) / statistics.median(pa)
print("interleaved rounds: A %s  B %s  B/A %+.1f %%" % (pa, pb, 100 * (r - 1)))
open(d + "/ab-ratio", "w").write("%f\n" % r)
PY
r=$(cat "$OUTDIR/ab-ratio" 2> /dev/null || echo 1)
"$BT" diff --format json "$OUTDIR/ab-${KA//=/_}-1.json" "$OUTDIR/ab-${KB//=/_}-1.json" --match variant \
  > "$OUTDIR/ab-diff.json" 2> /dev/null
v=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["matched"][0]; print(m["verdict"], m["dp50_pct"], m["dp50_ci_pct"])' "$OUTDIR/ab-diff.json")
echo "real change $KA -> $KB: verdict $v (interleaved ratio $r)"
python3 -c 'import sys; r=float(sys.argv[1]); v=sys.argv[2]; sys.exit(0 if abs(r-1) < 0.025 or v == ("slower" if r > 1 else "faster") else 1)' "$r" "${v%% *}" \
  || { echo "FAIL a change of $r not called"; bad=$((bad + 1)); }
[ $bad -eq 0 ] && echo "spread: as expected" || echo "spread: $bad problem(s)"
[ $bad -eq 0 ]
