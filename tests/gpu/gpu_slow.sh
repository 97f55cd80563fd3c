#!/usr/bin/env bash
# A slow kernel is not a hang: correct kernels taking 0.5 s and 15 s a launch (cheats/slow.cuh)
# give passing records, their reps cut with a "slow: reps reduced to N" note where they would
# take long, never "hang", under the default watchdog; the hang test kernel is still caught,
# after its first-launch limit (6 x --watchdog), and said to be the first launch.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
K="$OUTDIR/slow-kernels"
mkdir -p "$K"
for ms in 500 15000; do
  { cat "$HERE/cheats/row_attention.cuh"; echo "#define SLOW_MS $ms"; cat "$HERE/cheats/slow.cuh"; } > "$K/slow_$ms.cu"
done
cp "$HERE/kernels/test_hang.cu" "$K/"
export BENCHTOP_EXTRA_KERNELS="$K"
t0=$(date +%s)
"$BT" run -v slow_500,naive,slow_15000 -s 1x2x256x64 --metrics none --format json \
  -o "$OUTDIR/slow.json" > /dev/null 2> "$OUTDIR/slow.err"
rc=$?
t1=$(date +%s)
"$BT" run -v test_hang,naive -s 1x2x256x64 --metrics none --watchdog 3 --format json \
  -o "$OUTDIR/hang.json" > /dev/null 2> "$OUTDIR/hang.err"
rc2=$?
t2=$(date +%s)
echo "slow run: exit $rc in $((t1 - t0)) s; hang run: exit $rc2 in $((t2 - t1)) s"
R="$HERE/../records.py"
python3 "$R" expect "$OUTDIR/slow.json" $rc 0 slow_500=pass naive=pass "slow_15000=pass:slow: reps reduced to 3" || { cat "$OUTDIR/slow.err"; exit 1; }
python3 - "$OUTDIR/slow.json" <<'PY' || exit 1
import json, sys
for r in json.load(open(sys.argv[1]))["records"]:
    t = r.get("timing") or {}
    print("%-11s p50 %.6g us, %s samples, reason: %s" % (r["variant"], t.get("p50", float("nan")), t.get("nsamples", len(t.get("samples", []))), r.get("reason", "")))
PY
python3 "$R" expect "$OUTDIR/hang.json" $rc2 1 "test_hang=error:the first launch did not finish within 18 s" naive=pass || { cat "$OUTDIR/hang.err"; exit 1; }
[ $((t2 - t1)) -le 60 ] || { echo "FAIL: the hang took $((t2 - t1)) s to catch"; exit 1; }
echo "PASS slow kernels pass, the hang is caught"
