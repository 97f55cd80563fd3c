#!/usr/bin/env bash
# benchtop tune --grid on the GPU, and how well its table serves problems it never tuned.
#
#   bash tests/gpu/gpu_grid.sh BENCHTOP grid      # (a) ~8-9 min on 4 H100s
#   bash tests/gpu/gpu_grid.sh BENCHTOP heldout   # (b) ~10 min on 4 H100s, needs (a)'s table:
#                                                 # HELDOUT_SLICE=1/2, then 2/2, in two calls,
#                                                 # then grid_report.py heldout DIR1 DIR2
#   bash tests/gpu/gpu_grid.sh BENCHTOP resume    # (a) again from OUTDIR/grid.json of an earlier call
#   bash tests/gpu/gpu_grid.sh BENCHTOP all       # both (two device calls are safer)
#
# (a) grid: `tune -v fa3,mma --grid default --devices all`, stopped once by SIGINT after
#     GRID_STOP_AFTER seconds (default 150), then the same command again, which goes on from the
#     session (with --time so that it ends before the deadline). Checks (grid_report.py grid):
#     the stop kept what finished (exit 130); the rerun resumed, measured no search twice (no
#     search of the first run again, none with more records than its budget) and finished; its
#     table (--table-out, the shipped form: OUTDIR/grid-table.json) has an entry for every
#     problem and variant of the grid that the variant runs. On a GPU a resumed run's table
#     cannot equal an unstopped one's (the timings differ): CI checks that with the scripted
#     worker (tests/unit/test_tune_grid.sh).
# (b) heldout: for each held-out problem (tools/heldout_problems.py: 24 problems not in the
#     grid) and variant, a full tune at the problem (the default strategy) and the plain run's
#     knobs from the grid's table (BENCHTOP_SHIPPED_TUNED: a plain run and --knob auto read it
#     alike), judged by the tune tests' referee (tune_referee.sh: the tune's best and the
#     table's knobs measured again in GRID_REFEREE_ROUNDS interleaved rounds, default 3).
#     grid_report.py heldout prints the loss of the table's knobs per problem and a PASS line
#     when >= 90 % of them are within 5 % of the best and all within 10 %. The units are spread
#     over the GPUs (one queue per GPU, CUDA_VISIBLE_DEVICES).
#
# Environment: GPU_TEST_OUT (outputs: sessions, tables, logs, report-*.txt), GRID (default),
# GRID_VARIANTS (fa3,mma), GRID_BUDGET (--budget for the grid; default: the grid's own),
# GRID_TABLE (part b's table; default OUTDIR/grid-table.json), HELDOUT_COUNT (24), HELDOUT_SEED
# (tools/heldout_problems.py's seed; default the script's: another set once the grid was changed for it),
# HELDOUT_BUDGET (--budget of the held-out tunes; default 30, the grid's: local search, whose
# pick was within 0.9 % of exhaustive; set empty, exhaustive: ~6 min a unit for fa3 at D = 64),
# HELDOUT_SLICE (I/N: part b on every N-th unit only, to spread it over N device calls),
# HELDOUT_PHASE (best: part b's tunes only, no table needed, kept across calls; judge: the
# referee's rounds for units whose tune finished; all, the default: both), HELDOUT_KEEP_JUDGED
# (set: a unit whose referee finished all its rounds in an earlier call is not judged again),
# GRID_GPUS (GPUs to use; default: all that nvidia-smi lists or CUDA_VISIBLE_DEVICES names),
# GRID_DEADLINE (seconds, default 570: no new step starts after it), GRID_CACHE (JIT cache).
set -u
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME=${GRID_CACHE:-/tmp/benchtop-gpu-grid-cache}
mkdir -p "$XDG_CACHE_HOME"
ROOT=$(cd "$HERE/../.." && pwd)
# A carried build's marker names the source tree of the machine it was built on: the shipped
# grids are named here, as they are for the shipped tables.
export BENCHTOP_GRIDS=${BENCHTOP_GRIDS:-$ROOT/kernels/grids}
require_gpu
PART=${2:-all}
START=$(date +%s)
DEADLINE=$(( START + ${GRID_DEADLINE:-570} ))
VARIANTS=${GRID_VARIANTS:-fa3,mma}
if [ -n "${GRID_GPUS:-}" ]; then
  IFS=, read -ra GPUS <<< "$GRID_GPUS"
elif [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  IFS=, read -ra GPUS <<< "$CUDA_VISIBLE_DEVICES"
else
  n=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')
  GPUS=()
  for ((g = 0; g < (n > 0 ? n : 1); g++)); do GPUS+=("$g"); done
fi
CORES=$(nproc)
JOBS=$(( CORES / ${#GPUS[@]} > 0 ? CORES / ${#GPUS[@]} : 1 ))
echo "output: $OUTDIR   GPUs: ${GPUS[*]}   cache: $XDG_CACHE_HOME"
"$BT" --version

# The grid's command (GRID_CMD): its session OUTDIR/grid.json, the table beside it.
grid_command() {
  local budget=()
  [ -n "${GRID_BUDGET:-}" ] && budget=(--budget "$GRID_BUDGET")
  GRID_CMD=("$BT" tune -v "$VARIANTS" --grid "${GRID:-default}" --devices "$(IFS=,; echo "${GPUS[*]}")"
            "${budget[@]}" -o "$OUTDIR/grid.json" --table-out "$OUTDIR/grid-table.json")
  export BENCHTOP_TUNED_TABLE=$OUTDIR/tuned-grid.json
}

# Run N of the grid, resuming its session until it finishes or the time left (at least 30 s);
# logged in grid-runs.txt; then the grid's report.
grid_resume() {
  local n=$1 left=$(( DEADLINE - $(date +%s) - $2 )) t0=$(date +%s)
  [ $left -lt 30 ] && left=30
  "${GRID_CMD[@]}" --time "$left" > "$OUTDIR/grid-$n.out" 2> "$OUTDIR/grid-$n.err"
  echo "grid run $n: exit $? after $(( $(date +%s) - t0 )) s (resumed on GPUs ${GPUS[*]}, --time $left)" |
    tee -a "$OUTDIR/grid-runs.txt"
  tail -n 4 "$OUTDIR/grid-$n.err"
  python3 "$HERE/grid_report.py" grid "$OUTDIR" "${GRID:-default}" "$VARIANTS" "$ROOT" | tee "$OUTDIR/report-grid.txt"
  return "${PIPESTATUS[0]}"
}

grid_part() {
  grid_command
  rm -f "$OUTDIR/grid.json" "$OUTDIR/grid-table.json" "$BENCHTOP_TUNED_TABLE"
  local t0=$(date +%s)
  "${GRID_CMD[@]}" > "$OUTDIR/grid-1.out" 2> "$OUTDIR/grid-1.err" &
  local pid=$!
  # Stopped once a third of its searches (or GRID_STOP_DONE of them) are done (progress lines
  # "grid: N/M tuned"), or after GRID_STOP_AFTER seconds, whichever comes first.
  for ((i = 0; i < ${GRID_STOP_AFTER:-150} * 5; i++)); do
    kill -0 $pid 2> /dev/null || break
    tail -n 1 "$OUTDIR/grid-1.err" | awk -F'[ /]' -v want="${GRID_STOP_DONE:-0}" \
      '/^grid: [0-9]+\/[0-9]+ tuned/ { ok = want > 0 ? $2 >= want : $2 * 3 >= $3 } END { exit !ok }' && break
    sleep 0.2
  done
  kill -INT $pid 2> /dev/null
  wait $pid
  echo "grid run 1: exit $? after $(( $(date +%s) - t0 )) s (stopped by SIGINT)" | tee "$OUTDIR/grid-runs.txt"
  grid_resume 2 60
}

# One held-out unit: TAG PROBLEM VARIANT REPS, on the GPU its queue runs on. HELDOUT_PHASE
# best: the full tune only (it needs no table: --no-table), kept across calls (a finished tune
# is not run again); judge: the referee's rounds for a unit whose tune finished; all: both.
heldout_unit() {
  local tag=$1 problem=$2 v=$3 reps=$4 budget=() phase=${HELDOUT_PHASE:-all}
  [ -n "${HELDOUT_BUDGET-30}" ] && budget=(--budget "${HELDOUT_BUDGET-30}")
  if [ "$(date +%s)" -ge "$DEADLINE" ]; then echo "SKIP $tag: the deadline passed"; return; fi
  local t0=$(date +%s)
  if [ "$phase" != judge ] && [ ! -f "$OUTDIR/ex-$tag.done" ]; then
    rm -f "$OUTDIR/ex-$tag.json"
    "$BT" tune -v "$v" -s "$problem" --metrics none --reps "$reps" --seed 1 --no-table --jobs "$JOBS" \
      "${budget[@]}" -o "$OUTDIR/ex-$tag.json" > "$OUTDIR/ex-$tag.log" 2>&1 && touch "$OUTDIR/ex-$tag.done"
  fi
  if [ "$phase" != best ]; then
    [ -f "$OUTDIR/ex-$tag.done" ] || { echo "SKIP $tag: its tune did not finish"; return; }
    if [ -n "${HELDOUT_KEEP_JUDGED:-}" ] && grep -q "^round \([0-9]*\) of \1 done" "$OUTDIR/ref-$tag.log" 2> /dev/null; then
      echo "$tag $problem $v: judged in an earlier call, kept"; return
    fi
    cp "$OUTDIR/ex-$tag.json" "$OUTDIR/st-$tag.json"
    rm -f "$OUTDIR/ref-$tag.json" "$OUTDIR/refauto-$tag.json"
    bash "$HERE/tune_referee.sh" "$BT" "$OUTDIR" "$tag" "$v" "$reps" "${GRID_REFEREE_ROUNDS:-3}" \
      > "$OUTDIR/ref-$tag.log" 2>&1
  fi
  echo "$tag $problem $v ($phase): $(( $(date +%s) - t0 )) s"
}

heldout_part() {
  local table=${GRID_TABLE:-$OUTDIR/grid-table.json} chip
  mkdir -p "$OUTDIR/gridtable"
  if [ "${HELDOUT_PHASE:-all}" != best ]; then # the tunes alone read no table
    [ -f "$table" ] || { echo "FAIL heldout: no grid table $table (run the grid part first, or set GRID_TABLE)"; return 1; }
    chip=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["chip"])' "$table") || return 1
    [ "$table" -ef "$OUTDIR/gridtable/$chip.json" ] || cp "$table" "$OUTDIR/gridtable/$chip.json"
  fi
  # Plain runs and --knob auto read the grid's table alone: no table of the user's, no other shipped one.
  export BENCHTOP_TUNED_TABLE=$OUTDIR/no-table-of-the-user.json BENCHTOP_SHIPPED_TUNED=$OUTDIR/gridtable
  python3 "$ROOT/tools/heldout_problems.py" --count "${HELDOUT_COUNT:-24}" ${HELDOUT_SEED:+--seed "$HELDOUT_SEED"} \
    > "$OUTDIR/heldout.txt" || return 1
  # Units: problem x variant (HELDOUT_SLICE=I/N: every N-th from the I-th, for N device calls),
  # dealt round-robin to the GPUs' queues.
  python3 - "$OUTDIR/heldout.txt" "$VARIANTS" "${HELDOUT_SLICE:-1/1}" > "$OUTDIR/heldout-units.txt" <<'PY'
import sys
units = []
part, parts = map(int, sys.argv[3].split("/"))
for i, p in enumerate(open(sys.argv[1]).read().split()):
    dims = p.split(":")[0].split("x")
    b, h, s, d = int(dims[0]), int(dims[1].split("/")[0]), int(dims[2].split("/")[0]), int(dims[3])
    flops = 4.0 * b * h * s * s * d / (2 if ":causal" in p else 1)
    for v in sys.argv[2].split(","):
        units.append((flops, "h%02d-%s" % (i, v), p, v, 100 if flops < 1e11 else 30))
for k, u in enumerate(units):
    if k % parts == part - 1:
        print("%s %s %s %d" % u[1:])
PY
  # The tunes alone deal only what is left to tune (kept from an earlier call), listed once
  # before the queues start (a queue's finished tune must not change another's share).
  local k=0 tag problem v reps
  : > "$OUTDIR/heldout-queue.txt"
  while read -r tag problem v reps; do
    [ "${HELDOUT_PHASE:-all}" = best ] && [ -f "$OUTDIR/ex-$tag.done" ] && continue
    echo "$tag $problem $v $reps" >> "$OUTDIR/heldout-queue.txt"
  done < "$OUTDIR/heldout-units.txt"
  for g in "${GPUS[@]}"; do
    (
      export CUDA_VISIBLE_DEVICES=$g
      i=0
      while read -r tag problem v reps; do
        [ $(( i++ % ${#GPUS[@]} )) -eq $k ] && heldout_unit "$tag" "$problem" "$v" "$reps"
      done < "$OUTDIR/heldout-queue.txt"
    ) > "$OUTDIR/heldout-gpu$g.log" 2>&1 &
    k=$((k + 1))
  done
  wait
  cat "$OUTDIR"/heldout-gpu*.log
  [ "${HELDOUT_PHASE:-all}" = best ] && return 0
  python3 "$HERE/grid_report.py" heldout "$OUTDIR" | tee "$OUTDIR/report-heldout.txt"
  return "${PIPESTATUS[0]}"
}

# The grid resumed from OUTDIR/grid.json (a session carried from an earlier device call, with
# its grid-runs.txt), on these GPUs: the next run's number, until it finishes or the deadline.
resume_part() {
  grid_command
  local last
  last=$(grep -o '^grid run [0-9]*' "$OUTDIR/grid-runs.txt" 2> /dev/null | awk '{ n = $3 } END { print n + 0 }')
  grid_resume $((last + 1)) 0
}

rc=0
case $PART in
  grid) grid_part || rc=1 ;;
  resume) resume_part || rc=1 ;;
  heldout) heldout_part || rc=1 ;;
  all) grid_part || rc=1
       heldout_part || rc=1 ;;
  *) echo "usage: gpu_grid.sh BENCHTOP grid|resume|heldout|all"; exit 2 ;;
esac
echo "gpu_grid $PART: $(( $(date +%s) - START )) s"
exit $rc
