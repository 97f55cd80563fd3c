#!/usr/bin/env bash
# Two builds of benchtop A/B on the same GPU, interleaved over rounds (A B, B A, ...), every run
# its own session file: per variant and shape the median over rounds of each side's p50 and
# their ratio. Used to show a measurement change leaves the p50 where it was.
#   ab_binaries.sh A_BENCHTOP B_BENCHTOP ROUNDS VARIANTS SHAPES [run options...]
set -u
A=${1:?usage: ab_binaries.sh A B ROUNDS VARIANTS SHAPES [options]} B=${2:?} ROUNDS=${3:?} V=${4:?} S=${5:?}
shift 5
OUT=${GPU_TEST_OUT:-$(mktemp -d)}/ab
mkdir -p "$OUT"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$OUT/cache} XDG_DATA_HOME=${XDG_DATA_HOME:-$OUT/data}
for r in $(seq 1 "$ROUNDS"); do
  order="A B"; [ $((r % 2)) -eq 0 ] && order="B A"
  for side in $order; do
    bt=$A; [ $side = B ] && bt=$B
    "$bt" run -v "$V" -s "$S" --metrics none "$@" --format json -o "$OUT/$side-$r.json" > /dev/null 2> "$OUT/$side-$r.err" || true
  done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys, os
out, rounds = sys.argv[1], int(sys.argv[2])
p50 = {}
status = {}
for side in "AB":
    for r in range(1, rounds + 1):
        path = os.path.join(out, "%s-%d.json" % (side, r))
        try:
            recs = json.load(open(path))["records"]
        except (OSError, ValueError, KeyError):
            continue
        for rec in recs:
            key = (rec["variant"], json.dumps(rec["shape"], sort_keys=True) if not isinstance(rec["shape"], str) else rec["shape"])
            p50.setdefault(key, {"A": [], "B": []})[side].append(rec["timing"]["p50"])
            status.setdefault(key, set()).add((side, rec["status"]))
worst = 0.0
print("%-10s %-48s %10s %10s %8s  %s" % ("variant", "shape", "A p50", "B p50", "B/A", "statuses"))
for key in sorted(p50):
    a, b = p50[key]["A"], p50[key]["B"]
    if not a or not b:
        continue
    ma, mb = statistics.median(a), statistics.median(b)
    ratio = mb / ma
    worst = max(worst, abs(ratio - 1))
    print("%-10s %-48s %10.3f %10.3f %+7.2f%%  %s" % (key[0], key[1][:48], ma, mb, 100 * (ratio - 1), ",".join(sorted("%s:%s" % s for s in status[key]))))
print("largest |B/A - 1|: %.2f %% over %d configurations, %d rounds" % (100 * worst, len(p50), rounds))
PY
