#!/bin/bash
# Regenerates docs/screens/*.txt at 100x30 from a session (default: the bundled ladder example):
# main (sorted by p50, mma and fa3 marked), compare, detail, filter and the run options.
#   tests/tui/capture_screens.sh BUILD_DIR [SESSION.json]
BUILD=${1:?usage: capture_screens.sh BUILD_DIR [SESSION.json]}
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SESSION=${2:-$ROOT/sessions/examples/ladder-2x8x512x64.json}
. "$(dirname "$0")/lib.sh"
OUT="$ROOT/docs/screens"
mkdir -p "$OUT"
cp "$SESSION" "$TUI_TMP/examples-copy.json"
mkdir -p "$TUI_TMP/examples" && cp "$SESSION" "$TUI_TMP/examples/"
# Opened from an examples folder, so the status line says what the README's reader will see.
tui_start 100 30 "TERM=screen-256color '$BUILD/benchtop' '$TUI_TMP/examples/$(basename "$SESSION")'"
wait_for 'Results [0-9]+'
mark() { keys /; keys -l "$1"; keys Enter Space; }
keys s; wait_for 'by p50 us asc'
mark 'variant:mma shape:2x8x512x64'
mark 'variant:fa3 shape:2x8x512x64:causal'
wait_for '2 marked'
screen >"$OUT/main.txt"
keys c; wait_for 'Compare 2 records'
screen >"$OUT/compare.txt"
keys Escape; keys /; keys -l 'variant:mma shape:2x8x512x64'; keys Enter Enter
wait_for 'latency histogram'
screen >"$OUT/detail.txt"
keys Escape '\'; keys -l 'p50<30 !fp8'; keys Enter; wait_for 'filter p50<30 !fp8:'
screen >"$OUT/filter.txt"
keys O; wait_for 'Run options'
screen >"$OUT/options.txt"
keys Escape F10
echo "wrote $OUT/main.txt compare.txt detail.txt filter.txt options.txt"
