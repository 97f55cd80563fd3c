#!/bin/bash
# Terminal environments: TERM=linux (ASCII borders), NCURSES_NO_UTF8_ACS, NO_COLOR on an
# 8-colour terminal, no session at all, a new file name, and a malformed session file.
#   tui_env.sh BENCHTOP MAKE_SESSION
BT=$1 FIX=$2
. "$(dirname "$0")/lib.sh"
SESSION="$TUI_TMP/fixture.json"
make_fixture "$FIX" "$SESSION"
run() { tui_fresh; tui_start 80 24 "$1; echo EXIT=\$?; sleep 600"; }

run "TERM=linux '$BT' '$SESSION'"
wait_for 'Results [0-9]+'
screen | grep -Eq '^\+-+\[?Results' || fail "TERM=linux should draw ASCII borders"
keys q; wait_for '^EXIT=0'
step "TERM=linux: ASCII borders"

run "TERM=screen-256color NCURSES_NO_UTF8_ACS=1 '$BT' '$SESSION'"
wait_for 'Results [0-9]+'
screen | grep -Eq '^\+-+ Variants' || fail "NCURSES_NO_UTF8_ACS should draw ASCII borders"
keys q; wait_for '^EXIT=0'
step "NCURSES_NO_UTF8_ACS: ASCII borders"

run "TERM=screen NO_COLOR=1 '$BT' '$SESSION'"
wait_for 'Results [0-9]+'
keys t; wait_for 'attributes only'
keys g Space Space c; wait_for 'Compare 2 records'
keys Escape q; wait_for '^EXIT=0'
step "NO_COLOR on an 8-colour terminal"

run "TERM=screen '$BT' '$SESSION'"
wait_for 'Results [0-9]+'
keys t t t; wait_for 'theme: '
keys q; wait_for '^EXIT=0'
step "8-colour terminal, themes mapped"

run "TERM=screen-256color BENCHTOP_EXAMPLES=/nonexistent '$BT'"
wait_for 'no session yet|opened .*examples'
keys q; wait_for '^EXIT=0'
step "no session given: empty session or the bundled example"

run "TERM=screen-256color '$BT' '$TUI_TMP/new.json'"
wait_for 'new session: records will be saved to'
keys q; wait_for '^EXIT=0'
step "a new file name opens an empty session"

printf '{"schema": "benchtop.session/1", "records": [ {' >"$TUI_TMP/bad.json"
run "TERM=screen-256color '$BT' '$TUI_TMP/bad.json'"
wait_for '^EXIT=1'
screen | grep -q 'bad.json' || fail "no error line naming the file"
no_sanitizer_report
step "malformed session: one error line, exit 1"
echo PASS
