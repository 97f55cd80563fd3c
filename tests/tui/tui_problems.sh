#!/bin/bash
# The wider problem in the TUI, with a scripted worker (no GPU): a GQA decode problem typed in the
# shape editor is added and checked; a malformed edit of it says why in one line and the row
# keeps its last good value; mma runs it, and the results show its whole shape, its GB/s
# (bytes / p50, the same figure show's CSV gives) and the bound "memory"; the detail view puts
# the GB/s against the measured copy ceiling.
#   tui_problems.sh BENCHTOP
BT=$1
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py" BENCHTOP_EXAMPLES=/nonexistent
S="$TUI_TMP/problems.json"
P='4x32/8x1/4096x128:bf16'
tui_start 160 45 "TERM=screen-256color '$BT' '$S'; echo EXIT=\$?; sleep 600"
wait_for 'Variants 0/'
# The presets include a GQA, a decode and a chunked-prefill problem.
wait_for 'Shapes 0/'
keys 2 G; wait_for '2x32/8x512/4096x128:causal:bf16'
screen | grep -q '8x32/8x1/8192x128:bf16 .*MB decode' || fail "no decode preset with its bytes"
screen | grep -q '4x32/8x2048x128:causal:bf16' || fail "no GQA preset"
step "presets: GQA, decode (with its bytes) and chunked prefill"

keys a; wait_for 'add shape BxHq\[/Hkv\]xSq\[/Skv\]xD'
keys -l "$P"; keys Enter; wait_for "shape $P added and checked"
wait_for "\[x\] $P "
step "typed GQA decode problem added and checked"

keys e; wait_for 'edit shape: '
keys C-u; keys -l '4x32/5x1/4096x128:bf16'; keys Enter
wait_for "Hq \(32\) must be a multiple of Hkv \(5\) \(Esc cancels\)"
keys Escape; wait_gone 'edit shape: '
screen | grep -q "\[x\] $P " || fail "the malformed edit changed the row"
screen | grep -q '4x32/5x1' && fail "the malformed problem is in the list"
step "malformed edit: one-line reason, last good value kept"

# Check mma only (found by name: the list's order is the registry's).
keys 1 g
top=$(screen | grep -nE '\[ \] naive ' | cut -d: -f1)
at=$(screen | grep -nE '\[ \] mma ' | cut -d: -f1)
[ -n "$top" ] && [ -n "$at" ] || fail "variant rows not found"
for _ in $(seq 1 $((at - top))); do keys j; done
keys Space; wait_for '\[x\] mma '
wait_for 'Variants 1/'
keys r; wait_for 'run finished: 1 records'
head=$(screen | grep -E '^│  variant ')
row=$(screen | grep -E "^│  mma .* $P ")
[ -n "$row" ] || fail "no result row with the whole problem $P"
echo "$head" | grep -q 'GB/s bound' || fail "no GB/s and bound columns: $head"
echo "$row" | grep -q ' memory ' || fail "the decode problem is not memory-bound: $row"
keys 3 Enter; wait_for 'Detail\]'
D='decode \(Sq <= 16 against a longer cache\): [0-9]+ GB/s = [0-9]+ % of the measured copy ceiling'
for _ in $(seq 1 80); do screen | grep -Eq -- "$D" && break; keys j; done # Floors: below Kernels
wait_for "$D"
keys Escape
keys q; wait_for 'EXIT=0'
# The figure on screen is show's achieved_gbs, rounded.
want=$("$BT" show "$S" --format csv | python3 -c '
import csv, sys
r = next(csv.DictReader(sys.stdin))
assert r["shape"] == sys.argv[1] and r["floor_bound"] == "memory", r
print("%.0f" % float(r["achieved_gbs"]))' "$P") || fail "show --format csv: no decode record"
echo "$row" | grep -q " $want memory " || fail "GB/s on screen is not $want: $row"
step "run: $P with GB/s $want and bound memory"
echo "PASS tui_problems"
