#!/usr/bin/env bash
# Timing A/B of two kernel source trees through one benchtop binary (BENCHTOP_KERNEL_DIR), on
# the GPU machine. Every shipped preset of the chosen variants on the chosen shapes, in
# interleaved rounds (old, new, old, new ...) so that clock drift and machine noise fall on
# both sides; compare within one call only (machines differ by 0.1-0.3 us at small shapes).
#   bash tests/gpu/kernel_ab.sh BENCHTOP OLD_KERNELS [NEW_KERNELS]
# OLD_KERNELS: a kernels/ folder of the old code, made on the CPU side and carried, e.g.
#   mkdir -p build-gpu/ab-old && git archive REF kernels | tar -x -C build-gpu/ab-old
#   (then OLD_KERNELS=build-gpu/ab-old/kernels); NEW_KERNELS: default this checkout's kernels/.
# AB_VARIANTS (default mma,fa3), AB_SHAPES (default 2x8x512x64,2x8x512x64:causal,
# 4x16x2048x128), AB_ROUNDS (2), AB_REPS (300).
# Prints per (variant, knobs, shape) the p50 of each round on both sides and new/old of their
# medians; a last line with the geometric mean and the worst ratio. Exit 1 if a record fails
# verification or both sides compiled the same source (nothing was compared); timing alone
# never fails the script: read the ratios.
set -u
. "$(dirname "$0")/lib.sh"
OLD=${2:?usage: kernel_ab.sh BENCHTOP OLD_KERNELS [NEW_KERNELS]}
NEW=${3:-$HERE/../../kernels}
for d in "$OLD" "$NEW"; do
  [ -f "$d/fa3.cu" ] || { echo "kernel_ab: $d is not a kernels/ folder (no fa3.cu)"; exit 2; }
done
OLD=$(cd "$OLD" && pwd); NEW=$(cd "$NEW" && pwd)
require_gpu
VARIANTS=${AB_VARIANTS:-mma,fa3}
SHAPES=${AB_SHAPES:-2x8x512x64,2x8x512x64:causal,4x16x2048x128}
ROUNDS=${AB_ROUNDS:-2}
REPS=${AB_REPS:-300}
echo "old $OLD"; echo "new $NEW"; echo "variants $VARIANTS shapes $SHAPES rounds $ROUNDS reps $REPS"
"$BT" check-kernels --list-presets > "$OUTDIR/ab-presets.txt"
n=0
for round in $(seq 1 "$ROUNDS"); do
  while IFS=$'\t' read -r variant preset; do
    [[ ",$VARIANTS," == *",$variant,"* ]] || continue
    args=()
    IFS=',' read -ra kv <<< "$preset"
    for k in "${kv[@]}"; do [ -n "$k" ] && args+=(--knob "$k"); done
    for side in old new; do
      dir=$OLD; [ $side = new ] && dir=$NEW
      n=$((n + 1))
      BENCHTOP_KERNEL_DIR=$dir "$BT" run -v "$variant" "${args[@]}" -s "$SHAPES" --cold-l2 \
        --reps "$REPS" --metrics none --format json -o "$OUTDIR/ab-$side-$round-$n.json" \
        > /dev/null 2> "$OUTDIR/ab-$side-$round-$n.err"
    done
  done < "$OUTDIR/ab-presets.txt"
done
python3 - "$OUTDIR" <<'PY'
import glob, json, math, statistics, sys
out = sys.argv[1]
p50 = {}      # (variant, knobs, shape) -> {"old": [...], "new": [...]}
hashes = {"old": set(), "new": set()}
bad = 0
for f in glob.glob(out + "/ab-*.json"):
    side = f.rsplit("/", 1)[1].split("-")[1]
    for r in json.load(open(f))["records"]:
        declared = r["status"] == "n/a" and r.get("reason", "").startswith("n/a: %s:" % r["variant"])
        if declared:
            continue
        if r["status"] != "pass":
            bad += 1
            print("NOT PASSING %s %s %s %s: %s" % (side, r["variant"], r["knobs"], r["shape"], r.get("reason", "")))
            continue
        hashes[side].add((r["variant"], (r.get("build") or {}).get("source_hash")))
        p50.setdefault((r["variant"], r["knobs"] or "-", r["shape"]), {"old": [], "new": []})[side].append(r["timing"]["p50"])
print("%-9s %-72s %-20s %-22s %-22s %s" % ("variant", "knobs", "shape", "old p50 us (rounds)", "new p50 us (rounds)", "new/old"))
ratios = []
for key in sorted(p50):
    o, n = p50[key]["old"], p50[key]["new"]
    if not o or not n:
        continue
    ratio = statistics.median(n) / statistics.median(o)
    ratios.append((ratio, key))
    print("%-9s %-72s %-20s %-22s %-22s %.3f" % (key[0], key[1][:72], key[2], " ".join("%.2f" % x for x in o),
                                                " ".join("%.2f" % x for x in n), ratio))
same = {v for v, h in hashes["old"]} & {v for v, h in hashes["new"]}
same = [v for v in same if {h for w, h in hashes["old"] if w == v} == {h for w, h in hashes["new"] if w == v}]
if same:
    print("kernel_ab: old and new compiled the same source for %s: nothing compared there" % ", ".join(sorted(same)))
if ratios:
    gm = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
    worst = max(ratios)
    print("kernel_ab: %d pairs, new/old geometric mean %.3f, worst %.3f (%s %s %s), %d not passing"
          % (len(ratios), gm, worst[0], worst[1][0], worst[1][1], worst[1][2], bad))
else:
    print("kernel_ab: no pair of passing records")
sys.exit(1 if bad or same or not ratios else 0)
PY
