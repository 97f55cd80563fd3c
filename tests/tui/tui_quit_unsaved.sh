#!/bin/bash
# Quitting after a failed autosave (another process holds the session's lock): q asks (save as
# / discard / stay) instead of exiting and throwing the new records away; s saves them where
# the user says and quits; d discards them (said, exit 1); SIGTERM and SIGHUP write them to a
# recovery file and name it.
#   tui_quit_unsaved.sh BENCHTOP
BT=$1
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py" BENCHTOP_EXAMPLES=/nonexistent
count() { "$BT" show "$1" --format json | grep -c '"variant"'; }
LOCKPID=""
trap '[ -n "$LOCKPID" ] && kill "$LOCKPID" 2>/dev/null; tui_cleanup' EXIT

# A session of the scripted worker's device, held by another process (flock, as benchtop holds
# the files it writes); the TUI runs one record into it, and its autosave fails.
held_session() {
  S="$TUI_TMP/$1.json"
  "$BT" run -v naive -s 1x1x128x64 --metrics none -o "$S" >/dev/null 2>&1 || fail "run -o $S"
  [ -n "$LOCKPID" ] && kill "$LOCKPID" 2>/dev/null
  python3 -c 'import fcntl, sys, time
f = open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX); print("locked", flush=True); time.sleep(600)' \
    "$S" > "$TUI_TMP/lock.out" 2>&1 & LOCKPID=$!
  for _ in $(seq 100); do grep -q locked "$TUI_TMP/lock.out" 2>/dev/null && break; sleep 0.05; done
  tui_fresh
  tui_start 160 40 "TERM=screen-256color '$BT' '$S' 2>&1; echo EXIT=\$?; sleep 600"
  wait_for 'Variants 1/'   # the session's plan checks its variant and shape
  wait_for 'Shapes 1/'
  keys r; wait_for 'AUTOSAVE FAILED' 30
  wait_for 'run finished' 30
}

held_session save
keys q; wait_for 'not saved \(autosave failed\)'
screen | grep -q '^EXIT=' && fail "q quit at once with records not saved"
keys z; wait_for 'not quitting'
step "q after a failed autosave asks; another key stays"
keys q; wait_for 'not saved'; keys s; wait_for 'save as, then quit'
keys -l "$TUI_TMP/rescued.json"; keys Enter
wait_for '^EXIT=0' 20
[ "$(count "$TUI_TMP/rescued.json")" -eq 2 ] || fail "the rescued session does not hold both records"
[ "$(count "$S")" -eq 1 ] || fail "the held session was changed"
no_sanitizer_report
step "s: save as a path typed over the prefill, then quit; both records there"

held_session discard
keys q; wait_for 'not saved'; keys d
wait_for '^EXIT=' 20
screen | grep -q '^EXIT=1$' || fail "discard: $(screen | grep EXIT=), want EXIT=1"
screen | grep -q 'records were discarded at quit' || fail "discarding is not said"
no_sanitizer_report
step "d: the records are discarded, said, exit 1"

for sig in TERM HUP; do
  held_session "sig$sig"
  kill -"$sig" "$(benchtop_pid)"
  wait_for '^EXIT=' 20
  where=$(screen | sed -n 's/^benchtop: the session (2 records) was written to \(.*\) instead$/\1/p' | head -1)
  [ -n "$where" ] || fail "SIG$sig: no recovery file named"
  [ "$(count "$where")" -eq 2 ] || fail "SIG$sig: the recovery file $where does not hold both records"
  screen | grep -q '^EXIT=1$' || fail "SIG$sig: $(screen | grep EXIT=), want EXIT=1"
  no_sanitizer_report
  step "SIG$sig with unsaved records: written to a recovery file, named"
done
echo PASS
