#!/bin/bash
# The compare view's stated limit: at most 16 records side by side. With 17 marked it shows the
# first 16 and says so; with 16 it shows all of them and says nothing of a limit.
#   tui_compare_limit.sh BENCHTOP FIXTURE
BT=$1 FIXTURE=$2
. "$(dirname "$0")/lib.sh"
S="$TUI_TMP/fixture.json"
make_fixture "$FIXTURE" "$S"
tui_start 120 40 "TERM=screen-256color '$BT' '$S' 2>&1; echo EXIT=\$?; sleep 600"
wait_for 'Results 33'
keys 3 g
for i in $(seq 1 16); do keys Space; done
wait_for '16 marked'
keys c; wait_for 'Compare 16 records'
screen | grep -q 'compare shows the first' && fail "a limit said with 16 marked"
step "16 marked: all 16 compared, no limit said"
keys Escape; wait_for '\[Results'
keys Space; wait_for '17 marked'
keys c; wait_for 'Compare 16 records'
wait_for 'compare shows the first 16 of the 17 records marked \(at most 16'
step "17 marked: the first 16 compared, and the limit said"
keys Escape F10; wait_for '^EXIT=0'
no_sanitizer_report
echo PASS
