#!/usr/bin/env bash
# A knob change compiles once; repeating it hits the on-disk JIT cache.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
export XDG_CACHE_HOME="$OUTDIR/cache-fresh"
export HOME="$OUTDIR/home-fresh" # NVRTC keeps a cache of its own under $HOME (seen on CUDA 13)
rm -rf "$XDG_CACHE_HOME" "$HOME"
mkdir -p "$HOME"
for i in 1 2; do
  "$BT" run -v mma --knob block_n=32 --knob stages=3 -s 1x2x256x64 --reps 3 --metrics none --format json \
     -o "$OUTDIR/cache-$i.json" > /dev/null 2>> "$OUTDIR/cache.err"
done
python3 - "$OUTDIR" <<'PY'
import json, sys
b1 = json.load(open(sys.argv[1] + "/cache-1.json"))["records"][0]["build"]
b2 = json.load(open(sys.argv[1] + "/cache-2.json"))["records"][0]["build"]
print("first: cache_hit=%s compile %.1f ms; second: cache_hit=%s compile %.1f ms" %
      (b1["cache_hit"], b1["compile_ms"], b2["cache_hit"], b2["compile_ms"]))
ok = (not b1["cache_hit"]) and b2["cache_hit"] and b2["compile_ms"] < 20 and b1["compile_ms"] > 50
print("PASS gpu_cache" if ok else "FAIL gpu_cache")
sys.exit(0 if ok else 1)
PY
