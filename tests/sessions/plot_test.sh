#!/bin/bash
# benchtop plot on the bundled examples (and the chart fixture for sweep and tune): every SVG
# passes xmllint, renders to PNG with rsvg-convert, and the PNG holds a picture (pixel
# statistics, tests/sessions/png_stats.py); the points' coordinates are the session's numbers;
# -o - prints a text chart; -o refuses what is not a new or regular .svg file.
#   plot_test.sh BENCHTOP EXAMPLES_DIR WORK_DIR
set -u
BT=$1 EXAMPLES=$2 WORK=$3
HERE=$(dirname "$0")
for tool in xmllint rsvg-convert; do
  command -v $tool >/dev/null || { echo "$tool not installed (tools/dev.sh installs it)"; exit 77; }
done
rm -rf "$WORK"; mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }
check_svg() { # FILE: well-formed, renders, not blank
  xmllint --noout "$1" || fail "$1: xmllint"
  rsvg-convert -w 480 "$1" -o "${1%.svg}.png" || fail "$1: rsvg-convert" # half size: quicker to decode
  python3 "$HERE/png_stats.py" "${1%.svg}.png" 0.01 6 || fail "$1: blank PNG"
}

FIX="$WORK/charts.json"
python3 "$HERE/chart_fixture.py" "$EXAMPLES/ladder-2x8x512x64.json" "$FIX" || fail "fixture"
n=0
for ex in "$EXAMPLES"/*.json "$FIX"; do
  base=$(basename "$ex" .json)
  for kind in roofline sweep tune; do
    [ "$kind" = tune ] && [ "$ex" != "$FIX" ] && continue
    out="$WORK/$base-$kind.svg"
    "$BT" plot "$ex" --kind $kind -o "$out" || fail "plot $ex --kind $kind"
    check_svg "$out"
    n=$((n + 1))
  done
done
echo "ok: $n SVGs well-formed, rendered and not blank"

# The roofline's points are the session's: x = FLOPs / bytes, y = FLOPs / p50 (each circle's
# title says "SERIES: x, y"); the title names the device and the date.
python3 - "$EXAMPLES/ladder-2x8x512x64.json" "$WORK/ladder-2x8x512x64-roofline.svg" <<'PY' || fail "roofline points"
import json, sys, xml.etree.ElementTree as ET
s = json.load(open(sys.argv[1]))
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[2]).getroot()
want = {}
for r in s["records"]:
    if r["status"] != "pass" or r["timing"].get("p50") is None:  # refused (decode here): no point
        continue
    b, h, rest = r["shape"].split("x", 2)
    sq, d = rest.split(":")[0].split("x")
    b, h, sq, d = int(b), int(h), int(sq), int(d)
    flops = 4.0 * b * h * sq * sq * d / (2 if r["shape"].endswith(":causal") else 1)
    byts = 8.0 * b * h * sq * d
    want.setdefault(r["variant"], []).append((flops / byts, flops / (r["timing"]["p50"] * 1e-6) / 1e12))
got = {}
for c in root.iter("{http://www.w3.org/2000/svg}circle"):
    t = c.find("s:title", ns)
    if t is None:
        continue
    name, xy = t.text.rsplit(": ", 1)
    x, y = (float(v) for v in xy.split(", "))
    got.setdefault(name, []).append((x, y))
assert sorted(want) == sorted(got), (sorted(want), sorted(got))
for v in want:
    for (wx, wy), (gx, gy) in zip(sorted(want[v]), sorted(got[v])):
        assert abs(wx - gx) / wx < 1e-4 and abs(wy - gy) / wy < 1e-4, (v, wx, gx, wy, gy)
text = "".join(root.itertext())
assert s["device"]["name"] in text and s["created"][:10] in text, "title without device and date"
print("ok: %d roofline points match the session" % sum(len(p) for p in want.values()))
PY

# Text on stdout: the title, the legend; a filter keeps only what matches; ASCII only with --ascii.
"$BT" plot "$FIX" --kind sweep --x S -o - --width 90 --height 26 >"$WORK/sweep.txt" || fail "plot -o -"
TITLE=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print("p50 sweep of S - %s, %s" % (s["device"]["name"], s["created"][:10]))' "$FIX")
grep -qF "$TITLE" "$WORK/sweep.txt" && [ "$(grep -c "^p50 sweep of S - " "$WORK/sweep.txt")" -ge 1 ] || fail "text title (want: $TITLE)"
grep -Eq 'mma block_m=[^ ]+ 2x8x\*x64 \(4\)' "$WORK/sweep.txt" || fail "sweep line of 4"
"$BT" plot "$FIX" --kind tune -o - --filter variant:fa3 --ascii >"$WORK/tune.txt" || fail "tune text"
grep -q 'fa3 2x8x512x64 (6)' "$WORK/tune.txt" && grep -q W "$WORK/tune.txt" || fail "tune: 6 measurements, a winner"
LC_ALL=C grep -q -P '[^\x00-\x7f]' "$WORK/tune.txt" && fail "--ascii printed non-ASCII"
"$BT" plot "$FIX" -o - --filter variant:naive --ascii | grep -q 'smem' && fail "filter let smem through"
echo "ok: text charts (title, legend, filter, ASCII)"

# Refusals: not .svg, an unknown axis, a FIFO or a link in place of the file (left as they were).
"$BT" plot "$FIX" -o "$WORK/x.json" 2>/dev/null; [ $? -eq 2 ] || fail "-o x.json should be a usage error"
"$BT" plot "$FIX" --kind sweep --x nosuch -o - 2>/dev/null; [ $? -eq 2 ] || fail "--x nosuch should be a usage error"
mkfifo "$WORK/fifo.svg"
timeout 10 "$BT" plot "$FIX" -o "$WORK/fifo.svg" 2>"$WORK/err"; rc=$?
[ $rc -eq 1 ] && [ -p "$WORK/fifo.svg" ] || fail "FIFO: rc $rc, $(cat "$WORK/err")"
echo keep >"$WORK/target"; ln -s "$WORK/target" "$WORK/link.svg"
"$BT" plot "$FIX" -o "$WORK/link.svg" 2>/dev/null && fail "wrote through a link"
[ "$(cat "$WORK/target")" = keep ] && [ -L "$WORK/link.svg" ] || fail "the link or its target changed"
echo "ok: refusals"
