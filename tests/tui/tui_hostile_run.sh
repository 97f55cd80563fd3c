#!/bin/bash
# Live runs in the TUI against a hostile worker (tests/unit/hostile_worker.py as BENCHTOP_WORKER):
# a worker that sends 999 progress lines and its record in one write loses no record, and one
# that floods output and ignores cancellation is stopped by x: the status line leaves
# "cancelling", the finished record and a cancelled one are kept, and the session loads; a
# session that cannot be autosaved (a full disk) makes quitting say so and exit 1.
#   tui_hostile_run.sh BENCHTOP
BT=$1
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")/../unit" && pwd)/hostile_worker.py" BENCHTOP_EXAMPLES=/nonexistent
count() { "$BT" show "$1" --format json | grep -c '"variant"'; }
# Opens session $2 with the worker misbehaving as $1 (shell commands $3 first), checks 2
# variants and 2 shapes.
open_with() {
  tui_start 160 45 "${3:-} HOSTILE_MODE=$1 TERM=screen-256color '$BT' '$2' 2>&1; echo EXIT=\$?; sleep 600"
  wait_for 'Variants 0/'
  keys 1 g Space j j j j j Space 2 g Space j Space
  wait_for "Shapes 2/"
}

S="$TUI_TMP/burst.json"
open_with burst "$S"
keys r; wait_for 'run finished: 4 records' 30
keys r; wait_for 'Results 8' 30
step "1,000 lines per write: every record arrives (8 of 8)"
keys q; wait_for '^EXIT=0'
n=$(count "$S")
[ "$n" -eq 8 ] || fail "the autosaved session holds $n records, not 8"
no_sanitizer_report
step "the autosaved session holds the 8 records"

tui_fresh
S="$TUI_TMP/flood.json"
open_with flood-forever "$S"
keys r; wait_for 'Results 1' 30
sleep 0.5
keys x; wait_for 'cancelling'
wait_gone 'cancelling' 30
wait_for 'Results 2' 10
step "x stops a worker that floods and ignores cancellation: no longer cancelling"
keys q; wait_for '^EXIT=0'
"$BT" show "$S" --format json > "$TUI_TMP/flood.out" || fail "the session does not load"
grep -q '"cancelled"' "$TUI_TMP/flood.out" || fail "no cancelled record saved"
[ "$(grep -c '"variant"' "$TUI_TMP/flood.out")" -eq 2 ] || fail "want 2 records saved"
no_sanitizer_report
step "the finished record and the cancelled one are saved"

# A disk that fills up (a file-size limit of 2 KiB; SIGXFSZ is ignored, the write fails): the
# records that cannot be autosaved are said, and quitting asks; discarding says so and does not
# exit 0.
tui_fresh
S="$TUI_TMP/full.json"
open_with good "$S" "ulimit -f 2;"
keys r; wait_for 'AUTOSAVE FAILED' 30
step "a full disk: the failed autosave is on the status line"
# The first failed autosave is said while the run goes on; quit once it is done (q during a
# run asks about the run first).
wait_for 'idle \(4/4 done\)' 30
keys q; wait_for 'not saved \(autosave failed\)' 10   # asks: save as / discard / stay
keys d; wait_for '^EXIT=' 10
screen | grep -q '^EXIT=1$' || fail "quit with unsaved records: $(screen | grep EXIT=), want EXIT=1"
screen | grep -q 'could not save' || fail "quit does not say the session could not be saved"
[ ! -e "$S" ] || "$BT" show "$S" >/dev/null || fail "a half-written session was left"
no_sanitizer_report
step "quit with records that could not be saved: said, exit 1"
echo PASS
