#!/bin/bash
# Live run without a GPU (the status line must say "no GPU", nothing crashes; on a GPU machine
# the record arrives and is autosaved), then SIGTERM, SIGHUP and Ctrl-C (SIGINT): each must
# leave the terminal restored, the session saved and loadable, and exit 130 (as run does).
#   tui_signals.sh BENCHTOP MAKE_SESSION
BT=$1 FIX=$2
. "$(dirname "$0")/lib.sh"
SESSION="$TUI_TMP/fixture.json"
make_fixture "$FIX" "$SESSION"
N0=$("$BT" show "$SESSION" --format json | grep -c '"variant"')

start() {
  tui_fresh
  tui_start 80 24 "printf 'BEFORE-MARK\n'; TERM=screen-256color '$BT' '$SESSION'; echo EXIT=\$?; \
stty -a | tr ' ;' '\n\n' | grep -Ex -- '-?(icanon|echo)' | tr '\n' ' '; echo; sleep 600"
  wait_for 'Results [0-9]+'
}

restored() {
  wait_for '^EXIT='
  wait_for '(^| )-?icanon( |$)'
  local out
  out=$(screen)
  echo "$out" | grep -q 'BEFORE-MARK' || fail "$1: alternate screen not left"
  echo "$out" | grep -Eq '(^| )-(icanon|echo)' && fail "$1: terminal left in raw mode"
  echo "$out" | grep -q '^EXIT=130' || fail "$1: exit status $(echo "$out" | grep EXIT=), want 130"
  no_sanitizer_report
  "$BT" show "$SESSION" >/dev/null || fail "$1: session no longer loads"
  step "$1: terminal restored, session loads"
}

start
keys r; wait_for 'check at least one variant'
keys Tab g Space Tab g Space; wait_for 'Shapes 1/'
keys r
wait_for "no GPU|Results $((N0 + 1))" 60
if screen | grep -q 'no GPU'; then
  step "run without a GPU: status line says no GPU"
  wait_for 'idle' 30
else
  step "run on a GPU: record arrived"
  wait_for 'idle' 60
fi
pid=$(benchtop_pid)
kill -TERM "$pid"
restored SIGTERM
screen | grep -q 'stopped by signal 15' || fail "no signal note"
N1=$("$BT" show "$SESSION" --format json | grep -c '"variant"')
[ "$N1" -ge "$N0" ] || fail "records lost: $N0 -> $N1"

start
kill -HUP "$(benchtop_pid)"
restored SIGHUP

start
keys C-c
restored SIGINT
echo PASS
