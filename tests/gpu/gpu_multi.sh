#!/usr/bin/env bash
# Several GPUs of one host (run --devices). Needs 2 or more GPUs (skips, 77, otherwise).
#  1. The ladder over the notebook's shapes with --devices all against the same plan on GPU 0
#     alone: the same records (variant, knobs, shape, options) in plan order, every one passing,
#     every GPU used (distinct UUIDs), and the wall time against single / number of GPUs
#     (acceptance: within 1.2x).
#  2. Neighbours: the p50 of one fixed configuration on GPU 0 alone and while every other GPU
#     runs a heavy plan, in interleaved rounds (medians); PASS when they differ by < 2 % (the issue's bound).
# Prints one PASS/FAIL line per check and 'gpu_multi: PASS|FAIL' last.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "${NGPU:-0}" -ge 2 ] || { echo "SKIP gpu_multi: $NGPU GPU(s); needs 2 or more"; exit 77; }
echo "GPUs: $NGPU"; nvidia-smi -L
OTHERS=$(seq -s, 1 $((NGPU - 1)))
rm -f "$OUTDIR"/multi-*.json
LADDER=(-v naive,smem,swizzle,cp_async,wmma_qk,wmma,mma
        -s 1x8x512x64,2x8x512x64,2x8x512x64:causal,4x16x1024x64:causal,4x16x2048x128,1x16x4096x128:causal
        --metrics none --seed 11 --format csv)
t0=$(date +%s.%N)
"$BT" run "${LADDER[@]}" --devices 0 -o "$OUTDIR/multi-single.json" > "$OUTDIR/multi-single.csv" 2> "$OUTDIR/multi-single.err"
t1=$(date +%s.%N)
"$BT" run "${LADDER[@]}" --devices all -o "$OUTDIR/multi-all.json" > "$OUTDIR/multi-all.csv" 2> "$OUTDIR/multi-all.err"
t2=$(date +%s.%N)
tail -n 3 "$OUTDIR/multi-all.err"

# Neighbours: alone, then beside a heavy plan on every other GPU, three rounds interleaved.
FIXED=(-v mma --knob split=1 -s 4x16x2048x128 --reps 500 --warmup 100 --metrics none --seed 5 --format csv)
HEAVY=(-v mma,wmma,cp_async --knob stages=2,3 -s 8x16x4096x128,8x16x4096x128:causal --reps 5000
       --metrics none --format csv)
for round in 1 2 3; do
  "$BT" run "${FIXED[@]}" --devices 0 -o "$OUTDIR/multi-alone-$round.json" > /dev/null 2>&1
  "$BT" run "${HEAVY[@]}" --devices "$OTHERS" -o "$OUTDIR/multi-heavy-$round.json" > /dev/null 2>&1 &
  heavy=$!
  sleep "${MULTI_SETTLE_S:-8}" # the neighbours past compiling, at full load
  "$BT" run "${FIXED[@]}" --devices 0 -o "$OUTDIR/multi-busy-$round.json" > /dev/null 2>&1
  n_heavy=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['records']))" "$OUTDIR/multi-heavy-$round.json" 2>/dev/null || echo 0)
  kill -0 "$heavy" 2> /dev/null && still=yes || still="no (it ended before the busy run did: the neighbours were not busy throughout)"
  echo "round $round: neighbours still running when the busy run ended: $still; $n_heavy heavy records" | tee "$OUTDIR/multi-still-$round.txt"
  kill -TERM "$heavy" 2> /dev/null; sleep 1; kill -TERM "$heavy" 2> /dev/null; wait "$heavy" 2> /dev/null
  sleep 1
done

python3 - "$OUTDIR" "$NGPU" "$t0" "$t1" "$t2" <<'PY'
import json, statistics, sys
d, ngpu, t0, t1, t2 = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:6])
ok_all = True
def check(name, ok, detail):
    global ok_all
    ok_all &= ok
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail))
load = lambda n: json.load(open("%s/multi-%s.json" % (d, n)))["records"]
key = lambda r: (r["variant"], r["knobs"], r["shape"], json.dumps(r.get("options"), sort_keys=True))
one, many = load("single"), load("all")
check("same records as one GPU, in plan order", [key(r) for r in one] == [key(r) for r in many]
      and [r["plan_index"] for r in many] == list(range(len(many))),
      "%d records with --devices all, %d on GPU 0" % (len(many), len(one)))
bad = [(r["variant"], r["shape"], r["status"], r["reason"][:80]) for r in many if r["status"] != "pass"]
check("every record passes", not bad, bad[:3] or "all %d" % len(many))
uuids = {r["device"].get("uuid") for r in many}
idx = sorted({r["device"].get("index") for r in many})
check("every GPU used", len(idx) == ngpu and len(uuids) == ngpu and "" not in uuids,
      "indices %s, %d UUIDs" % (idx, len(uuids)))
single, multi = t1 - t0, t2 - t1
ideal = single / ngpu
check("wall time within 1.2x of single / %d" % ngpu, multi <= 1.2 * ideal,
      "single %.1f s, all %.1f s, ideal %.1f s, ratio %.2f" % (single, multi, ideal, multi / ideal))
p50 = lambda n: load(n)[0]["timing"]["p50"]
alone = statistics.median(p50("alone-%d" % i) for i in (1, 2, 3))
busy = statistics.median(p50("busy-%d" % i) for i in (1, 2, 3))
print("p50 alone  (rounds): %s us" % " ".join("%.2f" % p50("alone-%d" % i) for i in (1, 2, 3)))
print("p50 beside busy GPUs: %s us" % " ".join("%.2f" % p50("busy-%d" % i) for i in (1, 2, 3)))
check("p50 alone vs with every other GPU busy within 2 %", abs(busy / alone - 1) < 0.02,
      "alone %.2f us, busy %.2f us, ratio %.3f" % (alone, busy, busy / alone))
still = [open("%s/multi-still-%d.txt" % (d, i)).read() for i in (1, 2, 3)]
check("the neighbours were busy throughout every busy run", all(": yes;" in l for l in still),
      " | ".join(l.strip() for l in still))
print("gpu_multi: %s" % ("PASS" if ok_all else "FAIL"))
sys.exit(0 if ok_all else 1)
PY
