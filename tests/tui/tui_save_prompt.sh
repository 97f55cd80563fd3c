#!/bin/bash
# The save-as prompt's prefilled path is selected: a typed path replaces it (it used to land
# after the default file name), an editing key (Backspace) edits the prefill instead.
#   tui_save_prompt.sh BENCHTOP MAKE_SESSION
BT=$1 FIX=$2
. "$(dirname "$0")/lib.sh"
export BENCHTOP_EXAMPLES=/nonexistent
SESSION="$TUI_TMP/fixture.json"
make_fixture "$FIX" "$SESSION"
mkdir -p "$TUI_TMP/out"
tui_start 160 40 "TERM=screen-256color '$BT' '$SESSION' 2>&1; echo EXIT=\$?; sleep 600"
wait_for 'Results [0-9]+'
keys S; wait_for 'save as'
keys -l "$TUI_TMP/out/typed.csv"; keys Enter
wait_for 'exported'
[ -f "$TUI_TMP/out/typed.csv" ] || fail "a typed absolute path did not replace the prefill"
screen | grep -q "fixture.json$TUI_TMP" && fail "the typed path was appended to the prefill"
step "a typed path replaces the selected prefill"
keys S; wait_for 'save as'
keys BSpace BSpace BSpace BSpace BSpace; keys -l '.md'; keys Enter
wait_for 'as Markdown'
[ -f "$TUI_TMP/fixture.md" ] || fail "Backspace then .md did not edit the prefill into fixture.md"
step "Backspace edits the prefill (fixture.json -> fixture.md)"
keys q; wait_for '^EXIT=0'
no_sanitizer_report
echo PASS
