#!/usr/bin/env bash
# A round of kernel work on the GPU machine in one go, from the repo root:
#   bash research/gpu-round.sh OUTDIR [STEPS] [BUILD_DIR]
# STEPS (comma list, default ladder,sanitize,sweep):
#   ladder    every shipped preset of $VARIANTS (default fa3,mma) on the GPU ladder's shapes
#   sanitize  compute-sanitizer memcheck + racecheck of every preset of $VARIANTS (or the
#             presets numbered in $SAN_PRESET_IDS, 1-based), on two ragged shapes
#   sweep     `benchtop run --cold-l2` per entry of $SWEEP_RUNS ("variant[@shapes]|k=v,v|...;..."),
#             over the five target shapes unless @shapes names others; a table per shape
#   ncu       Nsight Compute gpu__time_duration of $NCU_RUNS ("variant|knobs|shape;...", or
#             "sdpa|backend|shape" for a PyTorch SDPA backend)
#   prof      Nsight Compute sections (speed of light, memory, launch, occupancy, warp states, or
#             the space-separated $NCU_SECTIONS) of one launch per entry of $NCU_PROF
#             ("variant|knobs|shape" or "sdpa|backend|shape")
#   floors    research/fa3_floors.py's floor kernels (launch, loads_q, loads_qk, loads, nomma,
#             nosoftmax) against the kernel itself at 2x8x512x64, cold and warm L2, two
#             interleaved rounds; $FLOOR_KNOBS: space-separated k=v[,v] (default: the small
#             shape's presets, "block_m=64 block_n=128 stages=2 kv_split=1,2 sched=plain persist=0")
#   suite     the whole GPU suite (tests/gpu/run-gpu-suite.sh)
#   compare   research/compare-sdpa.sh: benchtop against PyTorch SDPA, the BENCHMARKS.md table
# Logs and JSON go under OUTDIR; a short summary is printed last.
set -u
OUT=${1:?usage: gpu-round.sh OUTDIR [STEPS] [BUILD_DIR]}
STEPS=${2:-ladder,sanitize,sweep}
BUILD=${3:-build-gpu}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.." || exit 1
export XDG_CACHE_HOME="$OUT/cache" XDG_DATA_HOME="$OUT/data" GPU_TEST_OUT="$OUT/work"
mkdir -p "$GPU_TEST_OUT"
BT="$PWD/$BUILD/benchtop"
VARIANTS=${VARIANTS:-fa3,mma}
SHAPES5=2x8x512x64,2x8x512x64:causal,4x16x2048x128,4x16x2048x128:causal,8x16x4096x64
want() { [[ ",$STEPS," == *",$1,"* ]]; }
# "k=v,k=v" -> KNOB_ARGS=(--knob k=v --knob k=v)
knob_args() {
  local kv k
  KNOB_ARGS=(); IFS=',' read -ra kv <<< "$1"
  for k in "${kv[@]}"; do [ -n "$k" ] && KNOB_ARGS+=(--knob "$k"); done
}
# A step's list of runs, "run;run;..." -> ENTRIES=(run run ...)
entries() { IFS=';' read -ra ENTRIES <<< "$1"; }
SUMMARY=()
note() { SUMMARY+=("$*"); echo "== $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader | tee "$OUT/device.txt"
"$BT" --version || { echo "no benchtop at $BT"; exit 1; }

if want ladder; then
  LADDER_VARIANTS=$VARIANTS timeout 420 bash tests/gpu/gpu_ladder.sh "$BT" > "$OUT/ladder.log" 2>&1
  note "ladder ($VARIANTS): exit $? -- $(tail -n1 "$OUT/ladder.log")"
  grep -v " pass " "$OUT/ladder.log" | grep -v "^variant" | head -n 20
fi

if want sanitize; then
  for v in ${VARIANTS//,/ }; do
    "$BT" check-kernels --list-presets | awk -F'\t' -v v="$v" '$1 == v {print $2}' > "$OUT/presets-$v.txt"
    n=0
    while IFS= read -r preset; do
      n=$((n + 1))
      [ -n "${SAN_PRESET_IDS:-}" ] && [[ ",$SAN_PRESET_IDS," != *",$n,"* ]] && continue
      knob_args "$preset"
      for tool in memcheck racecheck; do
        for shape in 1x2x300x64:causal 2x1x200x128; do
          log="$OUT/san-$tool-$v-$n-${shape%%:*}.log"
          timeout "${SANITIZER_TIMEOUT:-90}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
            --target-processes all "$BT" run -v "$v" "${KNOB_ARGS[@]}" -s "$shape" --reps 1 --warmup 0 \
            --watchdog 600 --metrics none --format json -o "$OUT/work/san.json" > "$log" 2>&1
          rc=$?
          st=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['records']; print(','.join(x['status'] for x in r))" "$OUT/work/san.json" 2>/dev/null)
          note "sanitize $tool $v [$preset] $shape: exit $rc, records $st, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | head -n1)"
        done
      done
    done < "$OUT/presets-$v.txt"
  done
fi

if want sweep; then
  # One run per (variant, knob list), all five shapes; knobs refused for a shape are n/a.
  entries "${SWEEP_RUNS:-fa3|block_m=128,192,64|block_n=128,176,64|stages=2,3,4|kv_split=1,2|sched=pingpong,plain}"
  for i in "${!ENTRIES[@]}"; do
    run=${ENTRIES[i]} n=$((i + 1))
    IFS='|' read -ra parts <<< "$run"
    v=${parts[0]%%@*}; shapes=$SHAPES5; args=()
    [[ "${parts[0]}" == *@* ]] && shapes=${parts[0]#*@}
    for k in "${parts[@]:1}"; do args+=(--knob "$k"); done
    timeout 560 "$BT" run -v "$v" "${args[@]}" -s "$shapes" --cold-l2 --metrics none \
      --reps "${SWEEP_REPS:-50}" --format json -o "$OUT/sweep-$n.json" > /dev/null 2> "$OUT/sweep-$n.err"
    note "sweep $n ($run): exit $?"
  done
  python3 - "$OUT" <<'PY' | tee "$OUT/sweep.txt"
import glob, json, sys
recs = []
for f in sorted(glob.glob(sys.argv[1] + "/sweep-*.json")):
    try:
        recs += json.load(open(f))["records"]
    except (OSError, ValueError) as ex:
        print("unreadable %s: %s" % (f, ex))
shapes = []
for r in recs:
    if r["shape"] not in shapes:
        shapes.append(r["shape"])
for shape in shapes:
    rs = [r for r in recs if r["shape"] == shape and r["status"] != "n/a"]
    rs.sort(key=lambda r: (r["status"] != "pass", (r.get("timing") or {}).get("p50") or 1e30))
    print("--- %s (%d records)" % (shape, len(rs)))
    for r in rs[:12]:
        t = r.get("timing") or {}
        e = r.get("error") or {}
        print("  %-4s %-58s %-5s p50 %9.2f ev %9.2f  TFLOP/s %6.1f  rel %.1e  regs %s %s" % (
            r["variant"], r["knobs"], r["status"], t.get("p50") or -1, t.get("event_p50") or -1,
            t.get("tflops") or -1, e.get("rel_l2") or -1, (r.get("build") or {}).get("regs"),
            (r.get("reason") or "")[:80]))
PY
fi

if want ncu; then
  entries "${NCU_RUNS:-}"
  for run in "${ENTRIES[@]}"; do
    IFS='|' read -r v knobs shape <<< "$run"
    # "sdpa|backend|shape" times PyTorch's SDPA backend the same way
    t=$(cd research && python3 -c "
import sys, ncu_clock
n = ncu_clock.find_ncu()
if not n: print('no ncu')
elif sys.argv[2] == 'sdpa': print(ncu_clock.ncu_sdpa(n, sys.argv[4], sys.argv[3]))
else: print(ncu_clock.ncu_benchtop(n, sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]))" "$BT" "$v" "$shape" "$knobs" 2>&1 | tail -n1)
    note "ncu $v [$knobs] $shape: $t"
  done
fi

if want prof; then
  entries "${NCU_PROF:-}"
  for i in "${!ENTRIES[@]}"; do
    run=${ENTRIES[i]} n=$((i + 1))
    IFS='|' read -r v knobs shape <<< "$run"
    if [ "$v" = sdpa ]; then
      cmd=(python3 research/sdpa_calls.py "$knobs" "$shape" 12); filt='regex:sdpa|fprop|flash|fmha|attention'
    else
      cmd=("$BT" run -v "$v" -s "$shape" --cold-l2 --metrics none --reps 5 --warmup 0 --format json
           -o "$OUT/work/prof.json"); filt=attn_fwd
      knob_args "$knobs"
      cmd+=("${KNOB_ARGS[@]}")
    fi
    secs=()
    for sec in ${NCU_SECTIONS:-SpeedOfLight MemoryWorkloadAnalysis LaunchStats Occupancy WarpStateStats SchedulerStats}; do
      secs+=(--section "$sec")
    done
    timeout 240 ncu "${secs[@]}" --cache-control all \
      --clock-control none -k "$filt" --launch-skip 4 --launch-count 1 "${cmd[@]}" > "$OUT/prof-$n.txt" 2>&1
    note "prof $n ($run): exit $?"
    grep -E "^  [a-z_]|Duration|Throughput|Cluster Size|Registers Per|Achieved Occ|Block Size|Grid Size|Busy|Issued Warp|No Eligible|Stall|warp cycles per issued" "$OUT/prof-$n.txt" | head -n 40
  done
fi

if want floors; then
  python3 research/fa3_floors.py "$OUT/floors" > /dev/null || { note "floors: fa3_floors.py failed"; exit 1; }
  KNOB_ARGS=()
  for k in ${FLOOR_KNOBS:-block_m=64 block_n=128 stages=2 kv_split=1,2 sched=plain persist=0}; do KNOB_ARGS+=(--knob "$k"); done
  for round in 1 2; do
    for mode in kernel launch loads_q loads_qk loads nomma nosoftmax; do
      for l2 in cold warm; do
        dir=""; [ "$mode" != kernel ] && dir="$OUT/floors/$mode"
        flag=(); [ "$l2" = cold ] && flag=(--cold-l2)
        BENCHTOP_KERNEL_DIR="$dir" timeout 100 "$BT" run -v fa3 "${KNOB_ARGS[@]}" -s 2x8x512x64 "${flag[@]}" \
          --metrics none --reps 300 --format json -o "$OUT/floor-$mode-$l2-$round.json" > /dev/null 2>> "$OUT/floors.err"
      done
    done
  done
  note "floors: p50 us per mode (the floor kernels fail verification by design)"
  python3 - "$OUT" <<'PY'
import collections, glob, json, sys
rows = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + "/floor-*.json")):
    _, mode, l2, _ = f.rsplit("/", 1)[1][:-5].split("-")
    for r in json.load(open(f))["records"]:
        p50 = (r.get("timing") or {}).get("p50")
        if p50: rows[(r["knobs"], mode, l2)].append("%.2f" % p50)
for (knobs, mode, l2), v in sorted(rows.items()): print("%-60s %-10s %-5s %s" % (knobs, mode, l2, " ".join(v)))
PY
fi

if want suite; then
  timeout 590 bash tests/gpu/run-gpu-suite.sh "$OUT/suite" "$BUILD" > "$OUT/suite.log" 2>&1
  note "suite: exit $? -- $(tail -n1 "$OUT/suite.log")"
  sed -n '/GPU suite summary/,$p' "$OUT/suite.log"
fi

if want compare; then
  PYTHONUNBUFFERED=1 bash research/compare-sdpa.sh "$BT" "$OUT/compare-sdpa.json" > "$OUT/compare-sdpa.md" 2> "$OUT/compare-sdpa.err"
  note "compare: exit $?"
  tail -n 20 "$OUT/compare-sdpa.md"
fi

echo; echo "== summary"; printf '%s\n' "${SUMMARY[@]}"
