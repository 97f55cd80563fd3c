#!/bin/bash
# Regenerates docs/screens/*.txt (main, compare, detail at 100x30) from the test fixture.
#   tests/tui/capture_screens.sh BUILD_DIR   e.g. build-tui
BUILD=${1:?usage: capture_screens.sh BUILD_DIR}
. "$(dirname "$0")/lib.sh"
OUT="$(cd "$(dirname "$0")/../.." && pwd)/docs/screens"
mkdir -p "$OUT"
make_fixture "$BUILD/tests/tui/make_session" "$TUI_TMP/fixture.json"
tui_start 100 30 "TERM=screen-256color '$BUILD/benchtop' '$TUI_TMP/fixture.json'"
wait_for 'Results 33'
# Check mma and cublas and one shape, mark the two mma rows on 2x8x512x64.
keys Tab j j j j j j Space j Space Tab g j j Space Tab g j j j j j j j Space Space
wait_for '2 marked'
screen >"$OUT/main.txt"
keys c; wait_for 'Compare 2 records'
screen >"$OUT/compare.txt"
keys Escape k Enter; wait_for 'latency histogram'
screen >"$OUT/detail.txt"
keys Escape q
echo "wrote $OUT/main.txt compare.txt detail.txt"
