#!/usr/bin/env bash
# Background builds in the real worker (what the TUI asks for on a knob change): a build request
# compiles and loads the kernel and answers "built"; a bad knob answers ok=false with the reason.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
out=$(printf '%s\n' \
  '{"op":"build","id":1,"variant":"mma","knobs":"block_m=128,block_n=64,warps=8,stages=2,split=1","shape":"1x1x128x64","opts":{},"metrics":"none"}' \
  '{"op":"build","id":2,"variant":"mma","knobs":"block_m=128,block_n=64,warps=8,stages=2,split=1","shape":"1x1x128x64","opts":{},"metrics":"none"}' \
  '{"op":"build","id":3,"variant":"smem","knobs":"pad=5","shape":"1x1x128x64","opts":{},"metrics":"none"}' \
  '{"op":"quit"}' | "$BT" worker 2> "$OUTDIR/build.err")
echo "$out"
python3 - "$out" <<'PY'
import json, sys
msgs = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
built = {m["id"]: m for m in msgs if m.get("type") == "built"}
ok = (msgs[0].get("type") == "hello" and built.get(1, {}).get("ok") is True and
      built.get(2, {}).get("ok") is True and "cached" in built[2]["message"] and
      built.get(3, {}).get("ok") is False and "pad" in built[3]["message"])
print("PASS gpu_build" if ok else "FAIL gpu_build")
sys.exit(0 if ok else 1)
PY
