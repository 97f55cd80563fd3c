#!/bin/bash
# The results table's vs cudnn column: in a session with cudnn records (run --baseline cudnn,
# scripted worker) every record shows its p50 over the cudnn record's of its shape, the same
# ratio show prints (sessions/baseline.h, one computation); the filter and sort reach it by its
# key (vs_cudnn); a session without a cudnn record has no such column.
#   tui_vs_cudnn.sh BENCHTOP
BT=$1
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py" BENCHTOP_TUNED_TABLE="$TUI_TMP/tuned.json"
B="$TUI_TMP/b.json" N="$TUI_TMP/n.json"
"$BT" run -v naive,mma -s 2x8x512x64,1x2x128x64:causal --baseline cudnn --metrics none -o "$B" \
  >/dev/null 2>&1 || fail "run --baseline cudnn"
"$BT" run -v naive -s 2x8x512x64 --metrics none -o "$N" >/dev/null 2>&1 || fail "run without a baseline"
# What show says, one line per record: variant, shape as the table writes it, ratio, and 1 for
# a record the filter below keeps.
"$BT" show "$B" -f csv | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    shape = r["shape"].replace(":c", ":causal") if r["shape"].endswith(":c") else r["shape"]
    v = float(r["vs_cudnn"])
    print(r["variant"], shape, "%.2fx" % v, int(v < 1.0 and r["variant"] != "cudnn"))' \
  > "$TUI_TMP/want" || fail "show -f csv"
[ "$(wc -l < "$TUI_TMP/want")" -eq 6 ] || fail "show lists $(wc -l < "$TUI_TMP/want") records, not 6"
tui_start 200 30 "TERM=screen-256color '$BT' '$B' 2>&1; echo EXIT=\$?; sleep 600"
wait_for 'Results 6'
wait_for 'vs cudnn'
while read -r variant shape ratio _; do
  screen | grep -Eq "^│ +$variant +.* $shape +pass .* ${ratio//./\\.} " ||
    fail "no row $variant $shape with vs cudnn $ratio"
done < "$TUI_TMP/want"
step "each record shows show's ratio to the cudnn record of its shape"
keys 3 '\'; keys -l 'vs_cudnn<1.0 !variant:cudnn'; keys Enter
wait_for 'Results [0-9]+ of 6'
n=$(awk '{ n += $4 } END { print n }' "$TUI_TMP/want")
wait_for "Results $n of 6"
step "the filter reaches the column by its key ($n records faster than cuDNN)"
keys F10; wait_for '^EXIT=0'
tui_fresh
tui_start 200 30 "TERM=screen-256color '$BT' '$N' 2>&1; echo EXIT=\$?; sleep 600"
wait_for 'Results 1'
screen | grep -q 'vs cudnn' && fail "a vs cudnn column without a cudnn record"
keys F10; wait_for '^EXIT=0'
no_sanitizer_report
step "no column in a session without a cudnn record"
echo PASS
