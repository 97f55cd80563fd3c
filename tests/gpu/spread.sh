#!/usr/bin/env bash
# The between-process spread of one configuration: N separate `benchtop run` processes of each
# given binary, interleaved (A B, B A, ...), each its own session; prints every p50 and the
# spread per binary.   spread.sh N VARIANT SHAPE KNOBS BENCHTOP...
set -u
N=${1:?usage: spread.sh N VARIANT SHAPE KNOBS BENCHTOP...} V=${2:?} S=${3:?} KN=${4:?}
shift 4
OUT=${GPU_TEST_OUT:-$(mktemp -d)}/spread
mkdir -p "$OUT"
for i in $(seq 1 "$N"); do
  bins=("$@"); [ $((i % 2)) -eq 0 ] && bins=($(printf '%s\n' "$@" | tac))
  for bt in "${bins[@]}"; do
    tag=$(echo "$bt" | md5sum | cut -c1-6)
    kargs=(); [ "$KN" != - ] && kargs=(--knob "$KN")
    "$bt" run -v "$V" -s "$S" "${kargs[@]}" --metrics none --format json -o "$OUT/$tag-$i.json" > /dev/null 2>&1
  done
done
python3 - "$OUT" "$@" <<'PY'
import json, glob, hashlib, os, statistics, sys
out = sys.argv[1]
for bt in sys.argv[2:]:
    tag = hashlib.md5((bt + "\n").encode()).hexdigest()[:6]
    p = []
    for f in sorted(glob.glob(os.path.join(out, tag + "-*.json")), key=lambda f: int(f.rsplit("-", 1)[1][:-5])):
        for r in json.load(open(f))["records"]:
            p.append((r["timing"]["p50"], r["timing"]["min"], r["status"]))
    ps = [x[0] for x in p]
    if ps:
        print("%s: p50 %s; min %s; spread (max/min of p50) %.1f %%, median %.2f" % (bt, " ".join("%.1f" % x for x in ps), " ".join("%.1f" % x[1] for x in p), 100 * (max(ps) / min(ps) - 1), statistics.median(ps)))
PY
