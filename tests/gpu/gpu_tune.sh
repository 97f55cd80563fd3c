#!/usr/bin/env bash
# benchtop tune on the GPU: for fa3 and mma, on one device, in one run and by one clock (kernel
# timestamps): the exhaustive search, then the default strategy (auto: the local search) with a
# budget of 25 % of each space, run --knob auto, a plain run (no --knob and no tuned table of
# the user's: the table shipped in kernels/tuned/ for this chip), a run of the declared
# defaults (--knob default), the referee (tune_referee.sh: the exhaustive best, the strategy's
# pick and --knob auto again in interleaved rounds), and annealing at 25 % while time is left. tests/gpu/tune_report.py
# says whether each strategy's pick is within 2 % of the exhaustive best (scored by the
# exhaustive run's own measurements), whether --knob auto reproduces the tuned p50 within 2 %
# (acceptance 2), whether the plain run's knobs are within 5 % of the best (acceptance 3), the
# evaluations and wall time each took, what the declared defaults lose, and the one
# configuration best over all shapes. --simulate replays each strategy 200 times against the
# exhaustive scores for a sturdier verdict than one run. Ends with one PASS/FAIL line for
# acceptance 2 and one for acceptance 3.
#
#   bash tests/gpu/gpu_tune.sh BENCHTOP small   # 2x8x512x64, 2x8x512x64:causal, 4x16x2048x128
#   bash tests/gpu/gpu_tune.sh BENCHTOP small-fa3   # ... one variant (small-mma: the other)
#   bash tests/gpu/gpu_tune.sh BENCHTOP large   # 8x16x4096x64 (--reps 30: ~1-3 ms launches)
#   bash tests/gpu/gpu_tune.sh BENCHTOP large-fa3   # ... fa3 alone (its exhaustive run is ~4 min)
#   bash tests/gpu/gpu_tune.sh BENCHTOP large-mma   # ... mma alone
#   bash tests/gpu/gpu_tune.sh BENCHTOP all     # everything (one device call per part is safer:
#                                               # small ~5 min, large-fa3 ~6, large-mma ~3)
#
# Outputs land in $GPU_TEST_OUT (sessions, tuned.json, logs, report.txt); the JIT cache goes to
# $TUNE_CACHE (default /tmp/benchtop-gpu-tune-cache), not into the outputs. Counters are off
# (--metrics none, ~40 ms a record saved); small shapes keep the default 100 reps (the 50 ms
# warm-up dominates), the large one takes 30 (CV well under 1 % at ~1 ms a launch). TUNE_DEADLINE
# (seconds, default 540) stops starting new steps so a device call stays under 10 minutes.
set -u
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME=${TUNE_CACHE:-/tmp/benchtop-gpu-tune-cache}
export BENCHTOP_TUNED_TABLE=$OUTDIR/tuned.json
# A carried build's marker names the source tree of the machine it was built on: the shipped
# tables are named here, as a build carried elsewhere needs.
SHIPPED=${BENCHTOP_SHIPPED_TUNED:-$(cd "$HERE/../.." && pwd)/kernels/tuned}
mkdir -p "$XDG_CACHE_HOME"
require_gpu
PART=${2:-all}
DEADLINE=$(( $(date +%s) + ${TUNE_DEADLINE:-540} ))
TIMES=$OUTDIR/times.txt
echo "output: $OUTDIR   cache: $XDG_CACHE_HOME"
"$BT" --version

step() { # tag command... ; records the wall time of the step in times.txt
  local tag=$1; shift
  local left=$(( DEADLINE - $(date +%s) ))
  if [ $left -le 20 ]; then echo "SKIP $tag: the deadline is near"; echo "$tag skipped" >> "$TIMES"; return 1; fi
  local t0=$(date +%s.%N)
  timeout "$left" "$@" > "$OUTDIR/$tag.log" 2>&1
  local rc=$?
  local wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  echo "$tag $wall $rc" >> "$TIMES"
  printf '== %-28s %6s s  exit %d  %s\n' "$tag" "$wall" "$rc" "$(grep -E '^session:|^tuned table:' "$OUTDIR/$tag.log" | tr '\n' ' ')"
  [ $rc -eq 124 ] && echo "   (killed at the deadline)"
  return 0
}

part() { # name shapes reps [variants]
  local name=$1 shapes=$2 reps=$3
  for v in ${4:-fa3 mma}; do
    local common=(-v "$v" -s "$shapes" --metrics none --reps "$reps" --seed 1)
    step "ex-$name-$v" "$BT" tune "${common[@]}" --strategy exhaustive --no-table -o "$OUTDIR/ex-$name-$v.json"
    step "st-$name-$v" "$BT" tune "${common[@]}" --budget 25% -o "$OUTDIR/st-$name-$v.json"
    step "auto-$name-$v" "$BT" run -v "$v" --knob auto -s "$shapes" --metrics none --reps "$reps" -o "$OUTDIR/auto-$name-$v.json"
    step "plain-$name-$v" env BENCHTOP_TUNED_TABLE="$OUTDIR/no-table-of-the-user.json" BENCHTOP_SHIPPED_TUNED="$SHIPPED" \
      "$BT" run -v "$v" -s "$shapes" --metrics none --reps "$reps" -o "$OUTDIR/plain-$name-$v.json"
    step "def-$name-$v" "$BT" run -v "$v" --knob default -s "$shapes" --metrics none --reps "$reps" -o "$OUTDIR/def-$name-$v.json"
    step "ref-$name-$v" bash "$HERE/tune_referee.sh" "$BT" "$OUTDIR" "$name-$v" "$v" "$reps" "${TUNE_REFEREE_ROUNDS:-5}"
    step "an-$name-$v" "$BT" tune "${common[@]}" --strategy annealing --budget 25% --no-table -o "$OUTDIR/an-$name-$v.json"
    [ -f "$OUTDIR/ex-$name-$v.json" ] && "$BT" tune --simulate "$OUTDIR/ex-$name-$v.json" --budget 25% \
      --runs 200 --seed 7 > "$OUTDIR/sim-$name-$v.txt" 2>&1
  done
}

case $PART in
  small) part small "2x8x512x64,2x8x512x64:causal,4x16x2048x128" 100 ;;
  small-fa3) part small "2x8x512x64,2x8x512x64:causal,4x16x2048x128" 100 fa3 ;;
  small-mma) part small "2x8x512x64,2x8x512x64:causal,4x16x2048x128" 100 mma ;;
  large) part large "8x16x4096x64" 30 ;;
  large-fa3) part large "8x16x4096x64" 30 fa3 ;;
  large-mma) part large "8x16x4096x64" 30 mma ;;
  all) part small "2x8x512x64,2x8x512x64:causal,4x16x2048x128" 100
       part large "8x16x4096x64" 30 ;;
  *) echo "usage: gpu_tune.sh BENCHTOP small|large|large-fa3|large-mma|all"; exit 2 ;;
esac
python3 "$HERE/tune_report.py" "$OUTDIR" | tee "$OUTDIR/report.txt"
exit "${PIPESTATUS[0]}"
