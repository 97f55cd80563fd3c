#!/usr/bin/env bash
# Refusals before launch (issues 3 and 4): a shape too large for the GPU's memory is n/a with
# the sizes named; an unsupported head dimension is n/a with the reason; neither is run, and
# the record after them still runs.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
"$BT" run -v cublas,mma -s 4x64x16384x64,1x1x64x96,1x2x128x64 --reps 3 --metrics none --format json \
  -o "$OUTDIR/refuse.json" > /dev/null 2> "$OUTDIR/refuse.err"
python3 - "$OUTDIR/refuse.json" <<'PY'
import json, sys
recs = {(r["variant"], r["shape"]): r for r in json.load(open(sys.argv[1]))["records"]}
for k, r in sorted(recs.items()): print(k, r["status"], r.get("reason", ""))
big = recs[("cublas", "4x64x16384x64")]
ok = big["status"] == "n/a" and "GiB" in big["reason"] and "free" in big["reason"] and not big.get("timing", {}).get("p50")
ok &= all(recs[(v, "1x1x64x96")]["status"] == "n/a" and "96" in recs[(v, "1x1x64x96")]["reason"] for v in ("cublas", "mma"))
ok &= all(recs[(v, "1x2x128x64")]["status"] == "pass" for v in ("cublas", "mma"))
print("PASS gpu_refuse" if ok else "FAIL gpu_refuse")
sys.exit(0 if ok else 1)
PY
