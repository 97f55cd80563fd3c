#!/usr/bin/env bash
# A viewer build (no CUDA) in a terminal: with nothing saved it opens the bundled example, and
# r (run) says in the status line that running needs a GPU build, as on a machine without a
# GPU; q quits cleanly.
. "$(dirname "$0")/lib.sh"
BT=${1:?usage: tui_viewer.sh BENCHTOP}
"$BT" --version | grep -q "viewer build" || fail "not a viewer build: $("$BT" --version)"
tui_start 120 30 "$BT"
wait_for "example, read-only"
step "the bundled example opened"
keys r
wait_for "viewer build"
step "r says: $(screen | grep -o 'no GPU: .*' | head -n 1)"
keys q
for _ in $(seq 1 $((TUI_WAIT_S * 50))); do [ "$(pane_dead)" = 1 ] && break; sleep 0.02; done
[ "$(pane_dead)" = 1 ] || fail "still running after q"
step "q quit"
