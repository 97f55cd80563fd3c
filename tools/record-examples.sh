#!/usr/bin/env bash
# Record the bundled example sessions on a GPU machine (never hand-edited):
#   tools/record-examples.sh BENCHTOP OUTDIR
# ladder.json: every variant at 2x8x512x64 and 2x8x512x64:causal with the headline metrics;
# large.json: every variant at 4x16x2048x128 (causal and not), fewer reps for the slow rungs.
set -eu
BT=${1:?usage: record-examples.sh BENCHTOP OUTDIR}
OUT=${2:?usage: record-examples.sh BENCHTOP OUTDIR}
mkdir -p "$OUT"
"$BT" run -v all -s 2x8x512x64,2x8x512x64:causal --metrics default -o "$OUT/ladder-2x8x512x64.json"
"$BT" run -v all -s 4x16x2048x128,4x16x2048x128:causal --reps 30 --metrics default \
  -o "$OUT/large-4x16x2048x128.json"
