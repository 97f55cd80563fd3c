#!/usr/bin/env bash
# A session recorded here (fast rungs of the ladder and a user kernel) bundled, the bundle copied
# to a clean folder with a fresh home and cache, the user kernel deleted, and replayed from the
# bundle alone: every record must pass, run the bundle's sources (hash as recorded), and the fast
# rungs (mma, fa3 where the GPU has sm_90a) be tied within noise with the recorded ones.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
SRC=$(cd "$HERE/../.." && pwd)
W=$OUTDIR/bundle-work
rm -rf "$W"; mkdir -p "$W/k" "$W/clean/home" "$W/clean/cache" "$W/clean/data"
cp "$SRC/examples/kernels/tiles.cu" "$W/k/tiles.cu"
variants=mma,tiles
"$BT" list variants | grep -q '^fa3' && [ "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1)" = 9.0 ] && variants=fa3,$variants
fail=0
"$BT" run -v $variants -s 2x8x512x64,4x16x2048x128 --kernels "$W/k" --metrics none --cold-l2 \
  -o "$W/s.json" > "$W/run.txt" 2>&1 || { echo "FAIL gpu_bundle: run"; cat "$W/run.txt"; exit 1; }
"$BT" bundle "$W/s.json" -o "$W/b.tar.gz" > "$W/bundle.txt" 2>&1 || { echo "FAIL gpu_bundle: bundle"; cat "$W/bundle.txt"; exit 1; }
cp "$W/b.tar.gz" "$W/clean/"
rm "$W/k/tiles.cu"
(cd "$W/clean" && HOME=$W/clean/home XDG_CACHE_HOME=$W/clean/cache XDG_DATA_HOME=$W/clean/data \
  "$BT" replay b.tar.gz -o replayed.json) > "$W/replay.txt" 2>&1
rc=$?
cat "$W/replay.txt"
[ $rc -eq 0 ] || { echo "FAIL gpu_bundle: replay exit $rc"; fail=1; }
grep -q "sources: .* ran the bundle's kernel sources (hash as recorded)$" "$W/replay.txt" || { echo "FAIL gpu_bundle: sources"; fail=1; }
python3 - "$W/s.json" "$W/clean/replayed.json" "$W/replay.txt" <<'PY' || fail=1
import json, sys
old = json.load(open(sys.argv[1]))["records"]; new = json.load(open(sys.argv[2]))["records"]
txt = open(sys.argv[3]).read().splitlines()
bad = 0
if len(new) != len(old): print("FAIL %d records replayed of %d" % (len(new), len(old))); bad += 1
for r in new:
    if r["status"] != "pass": print("FAIL %s %s: %s %s" % (r["variant"], r["shape"], r["status"], r["reason"])); bad += 1
for line in txt:
    w = line.split()
    if w and w[0] in ("mma", "fa3") and ("slower" in w or "faster" in w):
        print("FAIL not tied: " + line); bad += 1
print("PASS gpu_bundle" if bad == 0 else "FAIL gpu_bundle")
sys.exit(1 if bad else 0)
PY
exit $fail
