#!/usr/bin/env bash
# Per-kernel breakdown and physical floors on a GPU:
# 1. fp8 (quantize + attention), mma with split=2 (split + combine) and cublas (GEMM, softmax,
#    GEMM) at 2x8x512x64: each record carries its kernels, and the kernels' p50s plus the gaps
#    between them come within 2 % of the record's p50.
# 2. Every passing record of the ladder at 2x8x512x64 shows its floors (x_floor, bound).
# 3. The device ceilings benchtop measured (fp16 tensor rate, device-to-device copy bandwidth)
#    are within 10 % of what PyTorch reaches on the same machine (torch.matmul of 8192^3 fp16,
#    a 512 MiB tensor copy counting read + write bytes). Skips that part (and says so) without
#    PyTorch.
# Prints one line per check; exits 0 when all hold. Skips (77) without a GPU.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
fail=0
S=2x8x512x64
"$BT" run -v fp8,cublas -s $S --reps 200 --metrics none --format json -o "$OUTDIR/f-multi.json" \
  > /dev/null 2> "$OUTDIR/f-multi.err" || { echo "FAIL run fp8,cublas"; cat "$OUTDIR/f-multi.err"; fail=1; }
"$BT" run -v mma --knob split=2 -s $S --reps 200 --metrics none --format json \
  -o "$OUTDIR/f-split.json" > /dev/null 2> "$OUTDIR/f-split.err" || {
  echo "FAIL run mma split=2"; cat "$OUTDIR/f-split.err"; fail=1; }
python3 - "$OUTDIR/f-multi.json" "$OUTDIR/f-split.json" <<'PY' || fail=1
import json, math, sys
bad = 0
for path in sys.argv[1:]:
    for r in json.load(open(path))["records"]:
        name = "%s %s" % (r["variant"], r["knobs"] or "-")
        ks = r.get("kernels") or []
        p50 = r["timing"]["p50"]
        if r["status"] != "pass" or len(ks) < 2:
            print("FAIL %-40s status %s, %d kernels (want 2 or more)" % (name, r["status"], len(ks)))
            bad += 1
            continue
        total = sum(k["p50_us"] for k in ks) + sum(k["gap_before_us"] or 0 for k in ks[1:])
        off = abs(total - p50) / p50
        parts = "; ".join("%s %.2f" % (k["name"][:32], k["p50_us"]) +
                          ("" if i == 0 else " (gap %.2f)" % (k["gap_before_us"] or 0))
                          for i, k in enumerate(ks))
        ok = off <= 0.02
        bad += not ok
        print("%s %-40s p50 %.2f us, kernels + gaps %.2f us (%.1f %%): %s" %
              ("ok  " if ok else "FAIL", name, p50, total, 100 * off, parts))
sys.exit(1 if bad else 0)
PY

"$BT" run -v all -s $S --reps 100 --metrics none --format json -o "$OUTDIR/f-ladder.json" \
  > /dev/null 2> "$OUTDIR/f-ladder.err"
python3 - "$OUTDIR/f-ladder.json" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
bad = 0
for r in s["records"]:
    if r["status"] != "pass":
        print("     %-10s %s (not run here: %s)" % (r["variant"], r["status"], r.get("reason", "")[:60]))
        continue
    f = r.get("floors") or {}
    ok = f.get("bound") in ("compute", "memory", "launch") and (f.get("x_floor") or 0) > 0
    bad += not ok
    print("%s %-10s p50 %8.2f us = %6.1fx the %s floor (FLOP %.2f, bytes %.2f, launch %.2f us; %.0f GB/s)" %
          ("ok  " if ok else "FAIL", r["variant"], r["timing"]["p50"], f.get("x_floor") or 0,
           f.get("bound"), f.get("flop_us") or 0, f.get("byte_us") or 0, f.get("launch_us") or 0,
           f.get("achieved_gbs") or 0))
d = s["records"][0]["device"]
print("ceilings: %.1f TFLOP/s fp16, %.0f GB/s copy, empty kernel %.2f us" %
      (d.get("peak_tflops") or 0, d.get("peak_gbs") or 0, d.get("launch_us") or 0))
sys.exit(1 if bad else 0)
PY

python3 - "$OUTDIR/f-ladder.json" <<'PY' || fail=1
import json, sys
try:
    import torch
except ImportError:
    print("SKIP ceilings against PyTorch: no torch here")
    sys.exit(0)
d = json.load(open(sys.argv[1]))["records"][0]["device"]
dev = torch.device("cuda")
def median_ms(fn, reps=20, warm=5):
    for _ in range(warm): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[len(ts) // 2]
n = 8192
x = torch.randn(n, n, device=dev, dtype=torch.float16)
y = torch.randn(n, n, device=dev, dtype=torch.float16)
tflops = 2 * n ** 3 / (median_ms(lambda: torch.matmul(x, y)) * 1e-3) / 1e12
del x, y
src = torch.empty(512 << 20, dtype=torch.uint8, device=dev).fill_(1)
dst = torch.empty_like(src)
gbs = 2 * src.numel() / (median_ms(lambda: dst.copy_(src)) * 1e-3) / 1e9
bad = 0
for what, ours, theirs in (("fp16 tensor TFLOP/s", d.get("peak_tflops"), tflops),
                           ("copy GB/s (read + write)", d.get("peak_gbs"), gbs)):
    off = abs((ours or 0) - theirs) / theirs
    ok = off <= 0.10
    bad += not ok
    print("%s %-26s benchtop %.1f, PyTorch %.1f (%.1f %% apart)" %
          ("ok  " if ok else "FAIL", what, ours or 0, theirs, 100 * off))
sys.exit(1 if bad else 0)
PY
exit $fail
