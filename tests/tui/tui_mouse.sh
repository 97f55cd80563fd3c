#!/bin/bash
# The mouse at 100x30: a click focuses a panel and selects the row, a second click on it is
# Enter, a click on a column title sorts (again: reverse), the wheel scrolls, a click on the key
# bar presses that key; M switches the mouse off and tui.conf keeps that across a restart.
#   tui_mouse.sh BENCHTOP MAKE_SESSION
BT=$1 FIX=$2
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py"
SESSION="$TUI_TMP/fixture.json"
make_fixture "$FIX" "$SESSION"
CONF="$XDG_CONFIG_HOME/benchtop/tui.conf"
run() { tui_fresh; tui_start 100 30 "ESCDELAY=300 TERM=screen-256color '$BT' '$SESSION'; echo EXIT=\$?; sleep 600"; }
# At 100x30: Variants rows from y=2, Results' titles at y=11 and rows from y=12, key bar y=29.
run
wait_for 'Results 33'
mouse_click 5 4; wait_for '\[Variants'
keys Space; wait_for '\[x\] swizzle'
step "a click focuses Variants and selects swizzle"
mouse_double 5 3; wait_for 'Knobs: smem'
keys Escape; wait_gone 'Knobs: smem'
step "a double click (four reports at once) on the row opens the knob editor (Enter)"
mouse_click 40 12; wait_for '\[Results'; wait_for ' 1/33 '
mouse_wheel down 40 14; wait_for ' 4/33 '
mouse_wheel up 40 14; wait_for ' 1/33 '
step "wheel scrolls the results"
mouse_click 60 11; wait_for 'by p90 us asc'
mouse_click 60 11; wait_for 'by p90 us desc'
step "a click on a column title sorts by it, again reverses"
# A report the TUI does not use (a right click, a release on its own) must not leave it waiting
# for more input: the run started here has to finish on screen with no key pressed after them.
keys 2 g Space 3; wait_for 'Shapes 1/'
keys r; mouse_send 2 40 14; sleep 0.2; mouse_send 3 40 14
wait_for 'run finished: 1 records'
step "right press and release on their own: live records still arrive"
keys M; wait_for 'mouse off'
grep -qx 'mouse = off' "$CONF" || fail "mouse = off not saved: $(cat "$CONF")"
mouse_click 5 4; sleep 0.3
screen | grep -q '\[Variants' && fail "a click while the mouse is off"
mouse_click 92 29; sleep 0.3
screen | grep -q '^EXIT=' && fail "a key bar click while the mouse is off"
keys F10; wait_for '^EXIT=0'
step "M: mouse off, clicks ignored, saved"
run
# The fixture was recorded on another GPU than the scripted worker's: the run's record went to a
# new session, so the fixture reopens as it was.
wait_for 'Results 33'
mouse_click 5 4; sleep 0.3
screen | grep -q '\[Variants' && fail "mouse back on after a restart"
keys M; wait_for 'mouse on'
mouse_click 92 29; wait_for 'EXIT=0'  # the release may echo before it
step "restart keeps the mouse off; M on again; a click on F10 quit quits"
no_sanitizer_report
echo PASS
