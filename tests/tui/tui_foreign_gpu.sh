#!/bin/bash
# Records measured on another GPU than the open session's never join it (as run -o refuses):
# they go to a new session, named on the status line, whose device is the one that measured
# them; the opened session is left as it was. The same from the bundled example (read-only,
# recorded on an H100): the new session holds only the new records, and says the worker's GPU.
#   tui_foreign_gpu.sh BENCHTOP MAKE_SESSION EXAMPLE.json
BT=$1 FIX=$2 EXAMPLE=$3
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py" BENCHTOP_EXAMPLES=/nonexistent
WORKER_GPU="scripted test worker"
SESSIONS="$XDG_DATA_HOME/benchtop/sessions"
count() { "$BT" show "$1" --format json | grep -c '"variant"'; }
device_of() { "$BT" show "$1" --format json | grep -m1 -A1 '"device"' | sed -n 's/.*"name":[[:space:]]*"\(.*\)",*/\1/p'; }

# run_one SESSION [check]: opens it (check: checks the first variant and shape; else what its
# plan checks), runs, quits; NEW: the new session's file, DONE: how many records the run made.
run_one() {
  tui_fresh
  rm -rf "$SESSIONS"
  tui_start 160 40 "TERM=screen-256color '$BT' '$1' 2>&1; echo EXIT=\$?; sleep 600"
  wait_for 'Results [0-9]+'
  if [ "${2:-}" = check ]; then keys 1 g Space 2 g Space; wait_for 'Shapes 1/'; fi
  keys r; wait_for 'run finished' 60
  DONE=$(screen | sed -n 's/.*run finished: \([0-9]*\) records.*/\1/p' | head -1)
  screen | grep -q 'in a new session (another GPU' || fail "$1: no word of a new session"
  screen | head -1 | grep -q 'session-.*json' || fail "$1: the status line does not name the new session"
  screen | head -1 | grep -q "$WORKER_GPU" || fail "$1: the status line does not say the worker's GPU"
  keys q; wait_for '^EXIT=0' 20
  no_sanitizer_report
  NEW=$(ls "$SESSIONS"/session-*.json 2>/dev/null | head -1)
  [ -n "$NEW" ] || fail "$1: no new session file under $SESSIONS"
}

S="$TUI_TMP/h200.json"
make_fixture "$FIX" "$S"
N0=$(count "$S")
cp "$S" "$TUI_TMP/before.json"
run_one "$S" check
cmp -s "$S" "$TUI_TMP/before.json" || fail "the H200 session was changed (now $(count "$S") records)"
[ "$DONE" -eq 1 ] && [ "$(count "$NEW")" -eq 1 ] || fail "the new session holds $(count "$NEW") records, want 1"
device_of "$NEW" | grep -q "$WORKER_GPU" || fail "the new session says device $(device_of "$NEW")"
step "a record of another GPU goes to a new session of that GPU; the opened one is unchanged ($N0 records)"

run_one "$EXAMPLE"
[ "$(count "$NEW")" -eq "$DONE" ] || fail "the session from the example holds $(count "$NEW") records, want the run's $DONE"
device_of "$NEW" | grep -q "$WORKER_GPU" || fail "the session from the example says device $(device_of "$NEW")"
step "from the bundled example: a new session with the new record only, of the worker's GPU"
echo PASS
