#!/usr/bin/env bash
# Two builds of benchtop A/B on the same GPU, interleaved over rounds, every run its own process
# and session file: per variant and shape the median over rounds of each side's p50 and their
# ratio. Used to show a measurement change leaves the p50 where it was.
#   ab_binaries.sh A_BENCHTOP B_BENCHTOP ROUNDS VARIANTS SHAPES [run options...]
# With AB_CONTROL=1 a third side C runs A's binary again (rotating A B C, B C A, C A B): C/A is
# the A/A control, so B/A can be read against what the same build does from process to process.
# Each ratio comes with a 95 % bootstrap interval over rounds (paired by round).
set -u
A=${1:?usage: ab_binaries.sh A B ROUNDS VARIANTS SHAPES [options]} B=${2:?} ROUNDS=${3:?} V=${4:?} S=${5:?}
shift 5
OPTS=("$@")
OUT=${GPU_TEST_OUT:-$(mktemp -d)}/ab
mkdir -p "$OUT"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$OUT/cache} XDG_DATA_HOME=${XDG_DATA_HOME:-$OUT/data}
SIDES="A B"; [ "${AB_CONTROL:-0}" = 1 ] && SIDES="A B C"
for r in $(seq 1 "$ROUNDS"); do
  if [ "$SIDES" = "A B C" ]; then
    case $((r % 3)) in 1) order="A B C" ;; 2) order="B C A" ;; 0) order="C A B" ;; esac
  else
    order="A B"; [ $((r % 2)) -eq 0 ] && order="B A"
  fi
  for side in $order; do
    bt=$A; [ $side = B ] && bt=$B
    "$bt" run -v "$V" -s "$S" --metrics none "${OPTS[@]}" --format json -o "$OUT/$side-$r.json" > /dev/null 2> "$OUT/$side-$r.err" || true
  done
done
python3 - "$OUT" "$ROUNDS" "$SIDES" <<'PY'
import json, random, statistics, sys, os
out, rounds, sides = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
p50, status = {}, {}
for side in sides:
    for r in range(1, rounds + 1):
        try:
            recs = json.load(open(os.path.join(out, "%s-%d.json" % (side, r))))["records"]
        except (OSError, ValueError, KeyError):
            continue
        for rec in recs:
            shape = rec["shape"] if isinstance(rec["shape"], str) else json.dumps(rec["shape"], sort_keys=True)
            key = (rec["variant"], shape)
            p50.setdefault(key, {}).setdefault(side, {})[r] = rec["timing"]["p50"]
            status.setdefault(key, set()).add((side, rec["status"]))

def ratio_ci(x, y):
    """Median over rounds of y/x (paired by round) and a 95 % bootstrap interval."""
    both = sorted(set(x) & set(y))
    rs = [y[r] / x[r] for r in both]
    if not rs:
        return None
    rng = random.Random(1)
    boots = sorted(statistics.median(rng.choice(rs) for _ in rs) for _ in range(2000))
    return statistics.median(rs), boots[50], boots[1949], len(rs)

worst = 0.0
hdr = "%-10s %-28s" % ("variant", "shape") + "".join(" %9s" % (s + " p50") for s in sides)
print(hdr + "   B/A [95 %]" + ("              C/A [95 %] (A/A control)" if "C" in sides else ""))
for key in sorted(p50):
    d = p50[key]
    if "A" not in d or "B" not in d:
        continue
    row = "%-10s %-28s" % (key[0], key[1][:28]) + "".join(" %9.3f" % statistics.median(d[s].values()) for s in sides if s in d)
    m, lo, hi, n = ratio_ci(d["A"], d["B"])
    worst = max(worst, abs(m - 1))
    row += "   %+6.2f%% [%+.2f, %+.2f]" % (100 * (m - 1), 100 * (lo - 1), 100 * (hi - 1))
    if "C" in d:
        m, lo, hi, n = ratio_ci(d["A"], d["C"])
        row += "   %+6.2f%% [%+.2f, %+.2f]" % (100 * (m - 1), 100 * (lo - 1), 100 * (hi - 1))
    print(row + "  " + ",".join(sorted("%s:%s" % s for s in status[key])))
    for s in sides:
        if s in d:
            print("    %s per process: %s" % (s, " ".join("%.3f" % d[s][r] for r in sorted(d[s]))))
print("largest |B/A - 1|: %.2f %% over %d configurations, %d rounds" % (100 * worst, len(p50), rounds))
PY
