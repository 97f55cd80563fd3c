#!/usr/bin/env bash
# Charts from a session recorded on this GPU: mma and fa3 at S = 512, 1024 and 2048 (B=2, H=8,
# D=64). The roofline's ceilings are the ones the device measured (no "(datasheet)"), no point
# sits above the fp16 tensor ceiling or the copy roof (5 % slack), the sweep has one line per
# variant over the three S, and every SVG passes xmllint.
# One PASS/FAIL line per check, then "gpu_plot: PASS" (exit 0) or "gpu_plot: FAIL" (exit 1).
# Skips (77) without a GPU. Alone: bash tests/gpu/extra/gpu_plot.sh build-gpu/benchtop
set -u
. "$(dirname "$0")/../lib.sh"
require_gpu
fail=0
S="$OUTDIR/plot.json"
rm -f "$S"
"$BT" run -v mma,fa3 -s 2x8x512x64,2x8x1024x64,2x8x2048x64 --metrics none --reps 50 -o "$S" \
  > /dev/null 2> "$OUTDIR/plot.err" || { echo "FAIL run: exit $?"; tail -n 5 "$OUTDIR/plot.err"; echo "gpu_plot: FAIL"; exit 1; }
for kind in roofline sweep; do
  "$BT" plot "$S" --kind $kind -o "$OUTDIR/plot-$kind.svg" 2>> "$OUTDIR/plot.err" ||
    { echo "FAIL plot --kind $kind"; fail=1; }
  if command -v xmllint > /dev/null; then
    xmllint --noout "$OUTDIR/plot-$kind.svg" && echo "PASS xmllint plot-$kind.svg" || { echo "FAIL xmllint plot-$kind.svg"; fail=1; }
  else
    echo "SKIP xmllint (not installed)"
  fi
done
"$BT" plot "$S" --kind roofline -o - --ascii --width 100 --height 30 > "$OUTDIR/plot-roofline.txt"
if grep -q 'ceilings: measured on the device' "$OUTDIR/plot-roofline.txt" && ! grep -q '(datasheet)' "$OUTDIR/plot-roofline.txt"; then
  echo "PASS roofline: the measured ceilings"
else
  echo "FAIL roofline: not the measured ceilings"; sed -n '/ceilings/,$p' "$OUTDIR/plot-roofline.txt"; fail=1
fi
python3 - "$OUTDIR/plot-roofline.svg" "$S" <<'PY' || fail=1
import json, re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
dev = json.load(open(sys.argv[2]))["records"][0]["device"]
tflops, gbs = dev.get("peak_tflops") or 0, dev.get("peak_gbs") or 0
bad = 0
for c in root.iter("{http://www.w3.org/2000/svg}circle"):
    t = c.find("{http://www.w3.org/2000/svg}title")
    if t is None:
        continue
    name, xy = t.text.rsplit(": ", 1)
    x, y = (float(v) for v in xy.split(", "))
    roof = min(tflops, x * gbs / 1e3) if tflops > 0 and gbs > 0 else float("inf")
    ok = y <= roof * 1.05
    bad += not ok
    print("%s %-6s AI %7.1f  %7.1f TFLOP/s  roof %7.1f" % ("PASS" if ok else "FAIL", name, x, y, roof))
sys.exit(1 if bad else 0)
PY
"$BT" plot "$S" --kind sweep --x S -o - --ascii > "$OUTDIR/plot-sweep.txt"
for v in mma fa3; do
  if grep -Eq "^. $v .*2x8x\*x64 \(3\)" "$OUTDIR/plot-sweep.txt"; then echo "PASS sweep: $v over 3 values of S"
  else echo "FAIL sweep: no $v line of 3 points"; fail=1; fi
done
[ $fail -eq 0 ] && { echo "gpu_plot: PASS"; exit 0; }
echo "gpu_plot: FAIL"; exit 1
