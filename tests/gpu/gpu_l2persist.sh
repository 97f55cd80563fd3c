#!/usr/bin/env bash
# --l2-persist kv on a GPU: at a shape whose K and V fit in the persisting L2 (2x8x512x64: 1 MiB
# each) and one whose do not (8x16x4096x64: 64 MiB each), records with the window and without it,
# interleaved (off, kv, off, kv), cold L2 (the flush between launches is where persisting lines
# matter) and warm. Every record must verify; the worker log must show each window (base, bytes,
# hit ratio) and its take-down; the effect is printed as diff's verdicts (kv against off) for
# BENCHMARKS.md. A device without persisting L2 must refuse with a reason (n/a), not fail.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
LOG=$XDG_CACHE_HOME/benchtop/worker.log
: > "$OUTDIR/worker-all.log"
fail=0
for l2 in cold warm; do
  flag=$([ $l2 = cold ] && echo --cold-l2 || echo)
  for round in 1 2; do
    for mode in off kv; do
      "$BT" run -v mma -s 2x8x512x64,8x16x4096x64 --l2-persist $mode $flag --reps 200 --metrics none \
        --format json -o "$OUTDIR/l2p-$l2-$mode-$round.json" --force > /dev/null 2>> "$OUTDIR/l2p.err" || fail=1
      cat "$LOG" >> "$OUTDIR/worker-all.log" 2> /dev/null # each run starts its own worker.log
    done
  done
done
python3 - "$OUTDIR" <<'PY' || fail=1
import json, sys, statistics
out = sys.argv[1]
bad = 0
rows = {}
for l2 in ("cold", "warm"):
    for mode in ("off", "kv"):
        for rnd in (1, 2):
            for r in json.load(open("%s/l2p-%s-%s-%d.json" % (out, l2, mode, rnd)))["records"]:
                if r["status"] == "n/a" and "persisting L2" in r["reason"]:
                    print("SKIP-ish: this device refuses: %s" % r["reason"]); continue
                if r["status"] != "pass":
                    print("FAIL %s %s %s: %s %s" % (l2, mode, r["shape"], r["status"], r["reason"])); bad += 1; continue
                if (r["options"].get("l2_persist") or "off") != mode:
                    print("FAIL %s: options.l2_persist %r" % (r["shape"], r["options"].get("l2_persist"))); bad += 1
                rows.setdefault((l2, r["shape"], mode), []).append(r["timing"]["p50"])
for (l2, shape, mode), v in sorted(rows.items()):
    if mode == "kv" and (l2, shape, "off") in rows:
        off = statistics.median(rows[(l2, shape, "off")]); kv = statistics.median(v)
        print("EFFECT %s L2 %-14s off %9.2f us  kv %9.2f us  %+.1f%%" % (l2, shape, off, kv, 100 * (kv / off - 1)))
print("PASS gpu_l2persist records" if bad == 0 else "FAIL gpu_l2persist records")
sys.exit(1 if bad else 0)
PY
for l2 in cold warm; do
  echo "diff (kv against off, $l2 L2, round 2):"
  "$BT" diff "$OUTDIR/l2p-$l2-off-2.json" "$OUTDIR/l2p-$l2-kv-2.json" | sed 's/^/  /'
done
n=$(grep -c -- "--l2-persist kv: window base" "$OUTDIR/worker-all.log" 2> /dev/null || echo 0)
r=$(grep -c -- "--l2-persist: window cleared" "$OUTDIR/worker-all.log" 2> /dev/null || echo 0)
grep -- "--l2-persist kv: window base" "$OUTDIR/worker-all.log" | sort -u -k6 | head -4
if [ "$n" -ge 8 ] && [ "$n" = "$r" ]; then echo "PASS gpu_l2persist log: $n windows, each taken down"; else echo "FAIL gpu_l2persist log: $n windows, $r take-downs (log $LOG)"; fail=1; fi
# the window's neighbours: a record after a kv record runs with no window left behind
"$BT" run -v mma -s 2x8x512x64 --l2-persist kv --graph --metrics none --format json -o "$OUTDIR/l2p-graph.json" --force > /dev/null 2>&1
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["records"][0]; print("graph:", r["status"], r["reason"]); sys.exit(0 if r["status"]=="n/a" and "--graph" in r["reason"] else 1)' "$OUTDIR/l2p-graph.json" \
  && echo "PASS gpu_l2persist --graph refused with a reason" || { echo "FAIL gpu_l2persist --graph"; fail=1; }
exit $fail
