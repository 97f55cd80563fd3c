#!/usr/bin/env bash
# The transfer rules replayed on a real grid: tests/tune/data/h100-grid.json is the session of
# `tune -v fa3,mma --grid default` (its own budget, 30) on H100s (2622 records; samples,
# counters and build details left out to keep it small). Each grid point is held out in turn and each rule
# picks knobs for it from the others (`tune --transfer-eval`). Checks: every rule scores the 45
# points of both variants; the numbers the choice of the default rule rests on (docs/tuning.md)
# come out as recorded; and the default rule (bench/tune/tune_transfer.h) is within one point of
# the best rule by problems served within 5 % of their best, summed over fa3 and mma.
#   test_transfer_h100.sh BENCHTOP DATA.json TRANSFER_HEADER
set -u
BT=${1:?usage: test_transfer_h100.sh BENCHTOP DATA.json TRANSFER_HEADER} DATA=${2:?} HDR=${3:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$BT" tune --transfer-eval "$DATA" > "$T/out" 2> "$T/err" || { echo "FAIL --transfer-eval exit $?"; cat "$T/err"; exit 1; }
python3 - "$T/out" "$HDR" <<'PY'
import re, sys
out, hdr = open(sys.argv[1]).read(), open(sys.argv[2]).read()
default = {"TRANSFER_NEAREST": "nearest", "TRANSFER_FEATURE": "feature", "TRANSFER_BEST_OF_K": "best-of-3"}[
    re.search(r"#define TRANSFER_RULE_DEFAULT (\w+)", hdr).group(1)]
rows = {}
for m in re.finditer(r"^(fa3|mma) +(nearest|feature|best-of-3) +(\d+) points: +(\d+) scored, mean loss +([\d.]+) %, "
                     r"worst +([\d.]+) %, within 2/5/10 %: (\d+)/(\d+)/(\d+)", out, re.M):
    v, rule, pts, scored, mean, worst, w2, w5, w10 = m.groups()
    rows[(v, rule)] = dict(points=int(pts), scored=int(scored), mean=float(mean), w5=int(w5))
failed = 0
def check(ok, what):
    global failed
    failed += not ok
    print("%s %s" % ("ok  " if ok else "FAIL", what))
check(len(rows) == 6 and all(r["points"] == 45 for r in rows.values()),
      "every rule scores the 45 grid points of fa3 and mma (%d summaries)" % len(rows))
# What docs/tuning.md reports from this data (the mean loss of each rule, within 0.05 %).
want = {("fa3", "nearest"): 5.8, ("fa3", "feature"): 4.2, ("fa3", "best-of-3"): 5.4,
        ("mma", "nearest"): 7.3, ("mma", "feature"): 5.9, ("mma", "best-of-3"): 11.1}
for k, w in want.items():
    got = rows.get(k, {}).get("mean")
    check(got is not None and abs(got - w) <= 0.05, "%s %s: mean loss %s %%, recorded %.1f %%" % (k[0], k[1], got, w))
total = {rule: sum(rows.get((v, rule), {}).get("w5", 0) for v in ("fa3", "mma")) for rule in ("nearest", "feature", "best-of-3")}
best = max(total.values())
check(total[default] >= best - 1, "the default rule (%s) serves %d problems within 5 %%, the best rule %d (%s)"
      % (default, total[default], best, ", ".join("%s %d" % kv for kv in total.items())))
print("transfer rules on the H100 grid: %d failed" % failed)
sys.exit(1 if failed else 0)
PY
