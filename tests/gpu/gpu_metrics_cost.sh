#!/usr/bin/env bash
# What collecting the headline metrics costs (the hidden `benchtop bench-metrics`): under
# 200 ms per record after the first in a warm worker (README: about 40 ms on an H200), and
# the timed p50 of the records collected with metrics within 5 % of those without (the
# profiler kept enabled must not slow the timed launches).
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
out=$("$BT" bench-metrics -v mma -s 2x8x512x64 --pairs 8 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL gpu_metrics_cost: bench-metrics exited $rc"; exit 1; }
cost=$(sed -n 's/^metrics add \([-0-9.]*\) ms per record.*/\1/p' <<< "$out")
read -r without with < <(sed -n 's/.*median \([0-9.]*\) us without metrics, \([0-9.]*\) us with.*/\1 \2/p' <<< "$out")
[ -n "$cost" ] && [ -n "$without" ] && [ -n "$with" ] || { echo "FAIL gpu_metrics_cost: unexpected output"; exit 1; }
awk -v c="$cost" -v a="$without" -v b="$with" 'BEGIN {
  ok = c < 200 && b <= a * 1.05 && b >= a * 0.95
  printf "%s gpu_metrics_cost: %.1f ms per record; p50 %.3f us without, %.3f us with\n", ok ? "PASS" : "FAIL", c, a, b
  exit !ok }'
