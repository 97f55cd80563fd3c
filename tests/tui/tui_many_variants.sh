#!/bin/bash
# 40 kernels of one's own on the kernel path: the Variants panel lists every one of them and
# every built-in (no row limit), and a run of all of them checked records each (scripted
# worker): no checked variant is dropped.
#   tui_many_variants.sh BENCHTOP
BT=$1
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py" BENCHTOP_EXAMPLES=/nonexistent
unset BENCHTOP_EXTRA_KERNELS BENCHTOP_KERNEL_DIR
DIR="$TUI_TMP/kernels"
for i in $(seq -w 1 40); do
  "$BT" new "user$i" --from naive -o "$DIR" >/dev/null 2>&1 || fail "new user$i"
done
export BENCHTOP_KERNEL_PATH="$DIR"
"$BT" list variants --names > "$TUI_TMP/names" || fail "list variants"
N=$(grep -c . "$TUI_TMP/names")
[ "$(grep -c '^user' "$TUI_TMP/names")" -eq 40 ] || fail "list variants does not name the 40 user kernels"
S="$TUI_TMP/many.json"
tui_start 120 40 "TERM=screen-256color '$BT' '$S' 2>&1; echo EXIT=\$?; sleep 600"
wait_for "Variants 0/$N( |─|-)"
step "the Variants panel lists all $N variants (40 user kernels and the built-ins)"
keys 1 g
for i in $(seq 1 "$N"); do keys Space; done  # Space checks and moves on
wait_for "Variants $N/$N"
keys 2 g Space
wait_for 'Shapes 1/'
keys r
wait_for "run finished: $N records" 120
step "a run of all $N checked variants records $N"
keys q; wait_for '^EXIT=0' 20
"$BT" show "$S" --format json > "$TUI_TMP/out.json" || fail "the session does not load"
for v in $(cat "$TUI_TMP/names"); do
  grep -Eq "\"variant\":[[:space:]]*\"$v\"" "$TUI_TMP/out.json" || fail "no record of variant $v"
done
no_sanitizer_report
step "the session holds a record of each of the $N variants"
echo PASS
