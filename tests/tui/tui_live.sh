#!/bin/bash
# Live runs without a GPU, through the real runner and a scripted worker speaking the worker
# protocol (tests/tui/fake_worker.py): a knob change compiles in the background (its message
# shows), a run of 2 variants x 2 shapes brings 4 records with metrics, a second run on the
# warm worker 4 more, compare opens, quit is clean, and the autosave holds all 8 records.
#   tui_live.sh BENCHTOP
BT=$1
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py" BENCHTOP_EXAMPLES=/nonexistent
S="$TUI_TMP/live.json" # a new file: an empty session that autosaves there
tui_start 160 45 "TERM=screen-256color '$BT' '$S'; echo EXIT=\$?; sleep 600"
wait_for 'Variants 0/'
keys 1 j Enter; wait_for 'Knobs: smem'
keys Right; wait_for 'compiled in 50 ms'
step "knob change compiled in the background"
keys Escape; wait_gone 'Knobs: smem'
keys g Space j j j j j Space 2 j j Space Space
wait_for 'Variants 2/'
keys r; wait_for 'run finished: 4 records'
step "live run: 4 records arrived"
keys r; wait_for 'Results 8'
step "a second run on the warm worker: 8 records"
keys 3 g Space j Space c; wait_for 'Compare 2 records'
step "compare of two live records"
keys Escape q; wait_for 'EXIT=0'
n=$("$BT" show "$S" --format json | grep -c '"variant"')
[ "$n" -eq 8 ] || fail "autosaved session holds $n records, not 8"
step "autosaved session holds the 8 records"
echo "PASS tui_live"
