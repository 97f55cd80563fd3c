#!/usr/bin/env bash
# The GPU suite, run from the repository root on a GPU machine:
#   bash tests/gpu/run-gpu-suite.sh LOGDIR [BUILD_DIR]
# Uses BUILD_DIR (default build-gpu) when it holds a benchtop binary (built on a CPU machine
# with tools/build-for-gpu.sh and carried over, libcjson.so.1 beside it), else builds one with
# the machine's meson. Runs every GPU test, then compute-sanitizer memcheck and racecheck over
# every variant on a ragged causal shape; logs go to LOGDIR, a summary table comes last.
set -u
LOG=${1:?usage: run-gpu-suite.sh LOGDIR [BUILD_DIR]}
BUILD=${2:-build-gpu}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$LOG"
LOG=$(cd "$LOG" && pwd)
cd "$ROOT" || exit 1
export GPU_TEST_OUT="$LOG/work" XDG_CACHE_HOME="$LOG/work/cache" XDG_DATA_HOME="$LOG/work/data"
mkdir -p "$GPU_TEST_OUT"
rm -f "$GPU_TEST_OUT"/*.json # -o onto an earlier run's session is refused without --append
{
  date -u; nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1
} > "$LOG/device.txt"
cat "$LOG/device.txt"
if [ ! -x "$BUILD/benchtop" ]; then
  echo "== no carried build in $BUILD: building with this machine's meson"
  (meson setup "$BUILD" --buildtype=release && ninja -C "$BUILD") > "$LOG/build.log" 2>&1 || {
    echo "build failed: see $LOG/build.log"; tail -n 20 "$LOG/build.log"; exit 1; }
fi
BT="$ROOT/$BUILD/benchtop"
"$BT" --version
declare -a NAMES RESULTS
run_test() { # name command...
  local name=$1; shift
  local t0=$(date +%s%N) rc
  "$@" > "$LOG/$name.log" 2>&1; rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  local res=PASS
  [ $rc -eq 77 ] && res=SKIP
  [ $rc -ne 0 ] && [ $rc -ne 77 ] && res="FAIL($rc)"
  [ $rc -eq 124 ] && res="FAIL(timeout)"
  NAMES+=("$name"); RESULTS+=("$res ${ms}ms")
  echo "== $name: $res (${ms} ms)"; tail -n 4 "$LOG/$name.log"
}
ONLY=${GPU_TESTS:-}
want() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }
for t in gpu_smoke gpu_reference; do
  want $t && run_test $t "$BUILD/tests/gpu/$t"
done
for t in gpu_ladder gpu_problems gpu_faults gpu_cheats gpu_cache gpu_wall gpu_kill gpu_timing gpu_metrics gpu_metrics_cost gpu_tui gpu_build gpu_refuse gpu_compat gpu_floors gpu_user_kernel gpu_tui_user_kernel gpu_multi gpu_slow; do
  want $t && run_test $t bash "tests/gpu/$t.sh" "$BT"
done
for t in gpu_l2persist gpu_bundle; do
  want $t && run_test $t bash "tests/gpu/$t.sh" "$BT"
done
for t in "$BUILD"/tests/cupti/*gpu*; do
  [ -f "$t" ] && [ -x "$t" ] && want "$(basename "$t")" && run_test "$(basename "$t")" "$t"
done
for t in tests/gpu/extra/*.sh; do
  [ -f "$t" ] && want "$(basename "$t" .sh)" && run_test "$(basename "$t" .sh)" bash "$t" "$BT"
done
if want sanitizer && command -v compute-sanitizer > /dev/null; then
  for tool in memcheck racecheck; do
    for v in $("$BT" check-kernels --list-presets | cut -f1 | sort -u); do
      # A time limit per run: fa3's producer/consumer spin-waits never finish under racecheck.
      run_test "sanitize-$tool-$v" timeout "${SANITIZER_TIMEOUT:-150}" compute-sanitizer --tool "$tool" --target-processes all \
        --error-exitcode 9 "$BT" run -v "$v" -s 1x2x300x64:causal --reps 1 --warmup 0 \
        --watchdog 600 --metrics none -o "$GPU_TEST_OUT/sanitize-$tool-$v.json"
    done
  done
fi
echo
echo "== GPU suite summary ($(date -u +%FT%TZ))"
fails=0
for i in "${!NAMES[@]}"; do
  printf '%-32s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}"
  [[ "${RESULTS[$i]}" == FAIL* ]] && fails=$((fails + 1))
done
echo "$fails failed"
exit $(( fails > 0 ))
