#!/bin/bash
# A view added as one file and one table line (the view test build: tests/tui/view_hello.c and
# add_view.py's line in tui/views.c): z opens it from the main screen, its Esc closes it (the key
# bar offers it there), and the help lists its opening key and its own keys. The ordinary build, without
# the line, has none of it (so the test build's line is what made the difference).
#   tui_add_view.sh BENCHTOP BENCHTOP_EXTRA_VIEW FIXTURE
BT=$1 EXTRA=$2 FIXTURE=$3
. "$(dirname "$0")/lib.sh"
S="$TUI_TMP/fixture.json"
make_fixture "$FIXTURE" "$S"
tui_start 120 50 "TERM=screen-256color '$EXTRA' '$S' 2>&1; echo EXIT=\$?; sleep 600"
wait_for '\[Results'
keys z; wait_for 'hello from a view added as one file and one table line'
wait_for 'Esc back'
step "z opens the added view"
keys Escape; wait_for '\[Results'
wait_gone 'hello from a view added'
step "its Esc goes back to the main screen"
keys '?'; wait_for 'z +main +open the hello view'
for i in 1 2 3 4 5 6 7 8 9 10; do keys PageDown; done; wait_for 'Esc / q +Hello +back to the main screen'
keys Escape; wait_gone 'Keys'
step "the help lists its opening key and its own keys"
keys F10; wait_for '^EXIT=0'
no_sanitizer_report
tui_fresh
tui_start 120 50 "TERM=screen-256color '$BT' '$S' 2>&1; echo EXIT=\$?; sleep 600"
wait_for '\[Results'
keys z '?'; wait_for 'Keys'
screen | grep -q 'hello' && fail "the ordinary build knows the hello view"
keys Escape F10; wait_for '^EXIT=0'
step "the ordinary build has no hello view"
echo PASS
