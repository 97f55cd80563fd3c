#!/bin/bash
# The chart view (p) on the example plus sweep and tune records (tests/sessions/chart_fixture.py):
# roofline, sweep and tune open by their keys, the legend counts and the cursor's coordinates are
# the session's numbers, the highlighted point follows the cursor, a/A change the sweep's axis,
# a resize to 60x20 and back, then NO_COLOR with the ASCII mode (no braille, no colour); last,
# 3,300 records: each move of the cursor redraws the chart within 4x the TUI's latency limit.
#   tui_chart.sh BENCHTOP CHART_FIXTURE.py EXAMPLE.json MAKE_SESSION
BT=$1 FIXPY=$2 EXAMPLE=$3 MAKE=$4
. "$(dirname "$0")/lib.sh"
SESSION="$TUI_TMP/charts.json"
python3 "$FIXPY" "$EXAMPLE" "$SESSION" || fail "chart fixture"

# What the session says: per record (arrival order) the roofline's x and y as %.4g, and the
# passing records per variant.
expect() { python3 - "$SESSION" "$@" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
what = sys.argv[2]
def xy(r):
    b, h, rest = r["shape"].split("x", 2)
    sq, d = (int(v) for v in rest.split(":")[0].split("x"))
    flops = 4.0 * int(b) * int(h) * sq * sq * d / (2 if r["shape"].endswith(":causal") else 1)
    return flops / (8.0 * int(b) * int(h) * sq * d), flops / (r["timing"]["p50"] * 1e-6) / 1e12
if what == "cursor":
    x, y = xy(s["records"][int(sys.argv[3])])
    print("x %s  y %s" % (format(x, ".4g"), format(y, ".4g")))
elif what == "count":
    print(sum(1 for r in s["records"] if r["variant"] == sys.argv[3] and r["status"] == "pass"))
elif what == "device":
    print("%s, %s" % (s["device"]["name"], s["created"][:10]))
PY
}
DEV=$(expect device)

tui_start 100 32 "TERM=screen-256color LANG=C.UTF-8 '$BT' '$SESSION'; echo EXIT=\$?; sleep 600"
wait_for 'Results [0-9]+'
keys p; wait_for "^roofline - $DEV"
for v in naive mma fa3; do
  n=$(expect count $v)
  wait_for "[^a-z_]$v \($n\)"
done
c0=$(expect cursor 0)
wait_for "^@ naive .*$c0"
# The ceilings the records were measured with (the session's device carries none).
PEAK=$(python3 -c 'import json, sys; print("%.0f" % next(r["device"]["peak_tflops"] for r in json.load(open(sys.argv[1]))["records"] if (r.get("device") or {}).get("peak_tflops")))' "$SESSION")
screen | grep -q "fp16 tensor $PEAK TFLOP/s" || fail "the measured tensor ceiling ($PEAK TFLOP/s)"
screen | grep -q '(datasheet)' && fail "the datasheet's ceilings where the records carry measured ones"
screen | python3 -c 'import sys; t = sys.stdin.read(); sys.exit(0 if any(0x2800 <= ord(ch) <= 0x28ff for ch in t) else 1)' \
  || fail "no braille lines in the UTF-8 terminal"
step "roofline: opened by p, legend counts, the cursor's record at ($c0), braille"

keys j; c1=$(expect cursor 1); wait_for "^@ naive .*2x8x512x64:causal +$c1"
keys j j; c3=$(expect cursor 3); wait_for "^@ smem .*$c3"
screen | grep -q '@ smem' || fail "the highlighted point is not labelled"
step "follows the cursor ($c1, $c3)"

keys 2; wait_for '^p50 sweep of S - '
wait_for 'mma block_m=[^ ]+ 2x8x\*x64 \(4\)'
keys a; wait_for '^p50 sweep of [a-z_]+ - '
keys A; wait_for '^p50 sweep of S - '
step "sweep: opened by 2, the mma line over 4 values of S, a/A change the axis"

keys 3; wait_for "^tune - $DEV"
wait_for 'fa3 2x8x512x64 \(6\)'
screen | grep -Eq '[^a-zA-Z]W' || fail "no winner marked"
screen | grep -Eq '[^a-zA-Z]T' || fail "no tied measurement marked"
step "tune: opened by 3, six measurements, winner and tied marked"

tmx resize-window -x 60 -y 20
wait_for "^tune - "
wait_for '^ *x: measurements'
no_sanitizer_report
tmx resize-window -x 100 -y 32
wait_for 'fa3 2x8x512x64 \(6\)'
keys Tab; wait_for "^roofline - $DEV"
step "resize to 60x20 and back"

keys Enter; wait_for 'latency|p50'
keys Escape; wait_for "^roofline - "
keys Escape; wait_for 'Results [0-9]+'
keys q; wait_for '^EXIT=0'
step "detail from the chart and back; Esc to the main view; quit"

tui_fresh
tui_start 100 32 "TERM=screen-256color LANG=C.UTF-8 NO_COLOR=1 BENCHTOP_ASCII=1 '$BT' '$SESSION'; echo EXIT=\$?; sleep 600"
wait_for 'Results [0-9]+'
keys p; wait_for "^roofline - $DEV"
wait_for '^ +\+-+\+'
screen | python3 -c 'import sys; t = sys.stdin.read(); sys.exit(1 if any(ord(ch) > 127 for ch in t) else 0)' \
  || fail "non-ASCII on screen in the ASCII mode"
tmx capture-pane -e -p | grep -Eq $'\e\\[[0-9;]*(3[0-7]|38;5;[0-9]+|4[0-7])[;m]' && fail "colour under NO_COLOR"
wait_for "^@ naive .*$c0"
keys 2; wait_for '^p50 sweep of S - '
keys 3; wait_for 'fa3 2x8x512x64 \(6\)'
keys Escape q; wait_for '^EXIT=0'
step "NO_COLOR and the ASCII mode: plain ASCII, no colour, the same numbers"

tui_fresh
make_fixture "$MAKE" "$TUI_TMP/big.json" 100
tui_start 120 40 "TERM=screen-256color LANG=C.UTF-8 '$BT' '$TUI_TMP/big.json'; echo EXIT=\$?; sleep 600"
wait_for 'Results [0-9]+'
keys p; wait_for '^roofline - '
wait_for 'naive \(200\)'
cursor_line() { screen | grep '^@ '; }
samples=""
for i in $(seq 1 12); do
  before=$(cursor_line); start=$(date +%s%N)
  keys j
  while [ "$(cursor_line)" = "$before" ]; do
    [ $(( ($(date +%s%N) - start) / 1000000 )) -gt 5000 ] && fail "the chart did not follow j within 5 s"
    sleep 0.005
  done
  samples="$samples $(( ($(date +%s%N) - start) / 1000000 ))"
done
median=$(echo $samples | tr ' ' '\n' | sort -n | sed -n 6p)
limit=$(( ${TUI_LATENCY_MS:-50} * 4 ))
[ "$median" -le "$limit" ] || fail "chart redraw median ${median} ms over ${limit} ms ($samples)"
keys Escape q; wait_for '^EXIT=0'
step "3,300 records: chart redraw median ${median} ms ($samples)"
