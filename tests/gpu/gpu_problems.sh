#!/usr/bin/env bash
# The wider problem on the GPU: every built-in on a grid of problems mixing fp16 and bf16,
# grouped-query and multi-query heads, decode, chunked prefill with bottom-right causal, and head
# dims 32 to 256, plus today's ladder shapes (64 problems; the last 36 drawn with seed 2811 across
# batch, heads, groups, lengths, head dims, causal and dtype): each record passes or is refused with a reason,
# never wrong. Then the timings the issue asks for: the decode rung against its copy ceiling,
# fa3 and mma bf16 against fp16. Usage: gpu_problems.sh BENCHTOP (GPU_TEST_OUT: the output
# folder; PROBLEMS_TIMING=0 skips the timings; PROBLEMS_JOBS: runs at once for the grid).
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
SEED=${SEED:-$(date +%s)}
JOBS=${PROBLEMS_JOBS:-6}
GRID=${PROBLEMS_GRID:-1x1x1x64,2x8x512x64,2x8x512x64:causal,1x2x4097x64,3x4x300x128:causal,\
4x16x2048x128:causal,2x8x512x64:bf16,3x4x300x128:causal:bf16,2x8/2x512x64,2x8/1x384x128:causal,\
2x8/2x512x64:bf16,4x16/4x1024x128:causal:bf16,2x32/8x1/4096x128,2x32/8x1/4096x128:bf16,\
1x32/1x1/1000x128:bf16,2x8/2x4/2048x64:causal,1x8/8x16/777x128:causal:bf16,\
2x8/2x256/2048x128:causal,1x4/4x300/1000x64:causal:bf16,1x8/2x128/1024x128,1x4x256x256:causal,\
1x4/2x256x256:bf16,1x4/1x1/2048x256:bf16,1x4x200x32,1x4x128x96,2x8/4x64/64x64:causal:bf16,\
1x4/2x200/333x96:causal:bf16,2x4/1x2/500x96,\
1x12x1024x64:bf16,1x32/1x128/384x128:causal:bf16,2x32x128x64,4x12/6x8/1024x32:causal:bf16,4x4x16/2048x64:causal:bf16,\
1x4x1/64x256,4x32x512x128:bf16,1x16/8x2/4095x32:bf16,3x4/1x16/2048x96:causal:bf16,1x12/3x2048x32,1x4x128/256x128:bf16,\
1x12/1x4/4096x128,2x32/16x512x96:bf16,2x12/3x512x128:causal:bf16,3x32/16x200/600x64:bf16,4x8/4x1/64x128:causal:bf16,\
2x32/16x512x32:causal:bf16,2x8x64/128x64,4x8/1x8/2048x128,4x8/1x128/256x96:causal,2x12x1024x64:bf16,4x12x200/400x64,\
3x32/8x1/2048x128:bf16,4x32/1x255x32:bf16,4x4/2x4/1024x32:bf16,3x12/3x200/807x64:causal:bf16,2x32/16x255x64,1x16x700x96,\
1x16/8x200/600x128:causal:bf16,4x32x4/1024x128,1x8x700x32,4x8x64/192x64:bf16,2x8/1x255x64,4x4/1x17x128:bf16,\
1x12x700x32:causal:bf16,4x8/4x512/2048x128:bf16}
echo "seed $SEED"
echo "grid $GRID"

# The runs of the grid: every built-in at its defaults, and the main presets of mma, fa3, decode.
RUNS=(
  "naive|" "smem|" "swizzle|" "cp_async|" "wmma_qk|" "wmma|" "fp8|" "cublas|" "cudnn|"
  "mma|" "mma|block_m=128,block_n=64,warps=4,stages=2,split=1" "mma|split=auto"
  "mma|block_m=64,block_n=32,warps=4,stages=3" "mma|block_m=64,block_n=32,warps=4,stages=2"
  "fa3|" "fa3|block_m=128,block_n=128,stages=3,kv_split=1,sched=pingpong,persist=0"
  "fa3|block_m=128,block_n=64,stages=2,kv_split=1,sched=pingpong,persist=0"
  "fa3|block_m=64,block_n=128,stages=2,kv_split=2,sched=plain,persist=0"
  "decode|" "decode|warps=4,stages=3" "decode|warps=8,stages=2" "decode|split=1" "decode|warps=8,stages=3,split=1,evict=1"
)
i=0
for run in "${RUNS[@]}"; do
  variant=${run%%|*} knobs=${run#*|}
  args=()
  IFS=',' read -ra kv <<< "$knobs"
  for k in "${kv[@]}"; do [ -n "$k" ] && args+=(--knob "$k"); done
  i=$((i + 1))
  # One worker each; several at once (the compiles overlap; the grid is checked, not timed).
  # catchall (tests/gpu/problems): refused on the device, it keeps a problem this variant refuses
  # from refusing the whole run before it starts; the variant's own refusal is then a record.
  "$BT" run -v "$variant,catchall" --kernels "$HERE/problems" "${args[@]}" --knob default -s "$GRID" \
     --reps 3 --warmup 1 --metrics none \
     --seed $((SEED + i)) --format json -o "$OUTDIR/grid-$i.json" > /dev/null 2> "$OUTDIR/grid-$i.err" &
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.5; done
done
wait
python3 - "$OUTDIR" <<'PY' | tee "$OUTDIR/grid.txt"
import glob, json, sys
bad = n = passed = refused = 0
problems = set()
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/grid-*.json"), key=lambda p: int(p.rsplit("-", 1)[1][:-5])):
    try:
        s = json.load(open(f))
    except Exception as e:
        print("FAIL %s: %s (%s)" % (f, e, open(f[:-5] + ".err").read().strip()[:300]))
        bad += 1
        continue
    for r in s["records"]:
        if r["variant"] == "catchall":
            continue
        n += 1
        problems.add(r["shape"])
        e = r.get("error") or {}
        ok = r["status"] == "pass" and e.get("nan_count") == 0 and e.get("inf_count") == 0 and e.get("unwritten") == 0
        na = r["status"] == "n/a" and r.get("reason", "").startswith("n/a: ")
        passed += ok
        refused += na
        bad += not (ok or na)
        rel = e.get("rel_l2")
        rows.append("%-8s %-44s %-30s %-5s %-10s %-6s %s" % (r["variant"], (r["knobs"] or "-")[:44],
                    r["shape"], r["status"], "%.3e" % rel if rel is not None else "-", e.get("tolerance", "-"),
                    "" if ok else r.get("reason", "")[:110]))
print("\n".join(rows))
print("gpu_problems grid: %d records over %d problems: %d pass, %d refused with a reason, %d wrong or broken"
      % (n, len(problems), passed, refused, bad))
sys.exit(1 if bad or n == 0 else 0)
PY
grid_rc=$?
[ "${PROBLEMS_TIMING:-1}" = 0 ] && exit $grid_rc

# Timings, one run at a time: decode at the issue's problem (its floor is the copy ceiling), fa3
# and mma in bf16 and fp16 on the issue's prefill problems.
time_run() { # NAME VARIANT SHAPES [K=V,K=V...]
  local name=$1 variant=$2 shapes=$3; shift 3
  local args=() kv k
  IFS=',' read -ra kv <<< "${1:-}"
  for k in "${kv[@]}"; do [ -n "$k" ] && args+=(--knob "$k"); done
  "$BT" run -v "$variant" "${args[@]}" --knob default -s "$shapes" --reps 100 --metrics none \
     --seed "$SEED" --format json -o "$OUTDIR/time-$name.json" > /dev/null 2> "$OUTDIR/time-$name.err"
}
DEC=8x32/8x1/8192x128:bf16,8x32/8x1/8192x128
time_run decode decode "$DEC"
time_run decode-w4s3 decode "$DEC" warps=4,stages=3
time_run decode-w8 decode "$DEC" warps=8,stages=2
time_run decode-mma mma "$DEC" split=auto
PRE=4x32/8x2048x128:causal:bf16,4x32/8x2048x128:causal,1x32/8x8192x128:causal:bf16,1x32/8x8192x128:causal,4x16x2048x128:bf16,4x16x2048x128
time_run fa3 fa3 "$PRE"
time_run fa3-s3 fa3 "$PRE" block_m=128,block_n=128,stages=3,kv_split=1,sched=pingpong,persist=0
time_run mma mma "$PRE" block_m=128,block_n=64,warps=4,stages=2,split=1
time_run cudnn cudnn 4x32x2048x128:causal,1x32x8192x128:causal,4x16x2048x128
time_run fa3-mha fa3 4x32x2048x128:causal,1x32x8192x128:causal
python3 - "$OUTDIR" <<'PY' | tee "$OUTDIR/timing.txt"
import glob, json, re, sys
def problem_bytes(shape):  # Q and O, K and V once per KV head, 2 bytes an element
    m = re.match(r"(\d+)x(\d+)(?:/(\d+))?x(\d+)(?:/(\d+))?x(\d+)", shape)
    b, hq, hkv, sq, skv, d = (int(x) if x else None for x in m.groups())
    hkv, skv = hkv or hq, skv or sq
    return 2.0 * b * d * (2 * hq * sq + 2 * hkv * skv)
print("%-12s %-8s %-40s %-30s %-6s %10s %9s %9s %8s" % ("run", "variant", "knobs", "problem", "status",
      "p50 us", "TFLOP/s", "GB/s", "of copy"))
for f in sorted(glob.glob(sys.argv[1] + "/time-*.json")):
    name = f.rsplit("/", 1)[1][5:-5]
    try:
        s = json.load(open(f))
    except Exception as e:
        print("%-12s FAIL %s" % (name, e)); continue
    for r in s["records"]:
        t = r.get("timing") or {}
        d = r.get("device") or {}
        p50 = t.get("p50")
        gbs = (r.get("floors") or {}).get("achieved_gbs") or (problem_bytes(r["shape"]) / (p50 * 1e3) if p50 else None)
        ceil = d.get("peak_gbs")
        frac = "%.0f %%" % (100 * gbs / ceil) if gbs and ceil else "-"
        print("%-12s %-8s %-40s %-30s %-6s %10s %9s %9s %8s %s" % (name, r["variant"], (r["knobs"] or "-")[:40],
              r["shape"], r["status"], "%.2f" % p50 if p50 else "-", "%.1f" % t["tflops"] if t.get("tflops") else "-",
              "%.0f" % gbs if gbs else "-", frac, "" if r["status"] == "pass" else r.get("reason", "")[:80]))
    dev = s.get("device") or (s["records"][0].get("device") if s["records"] else {})
print("device:", json.dumps({k: dev.get(k) for k in ("name", "cc_major", "cc_minor", "peak_gbs", "driver_version",
                                                     "nvrtc_major", "nvrtc_minor")} if dev else {}))
PY
exit $grid_rc
