#!/usr/bin/env bash
# Per-kernel breakdown and physical floors on a GPU:
# 1. fp8 (quantize + attention), mma with split=2 (split + combine; also from a CUDA graph) and
#    cublas (GEMM, softmax, GEMM) at 2x8x512x64: each record carries its kernels, show's CSV
#    names them, and the kernels' p50s (less any overlap between them; the idle gaps are not
#    GPU work and the kernel clock does not count them) come within 2 % of the record's p50.
# 2. Every passing record of the ladder at 2x8x512x64 shows its floors (bound, x_floor > 1: no
#    record beats what the device allows).
# 3. The device ceilings benchtop measured (fp16 tensor rate, device-to-device copy bandwidth)
#    are within 10 % of what PyTorch reaches on the same machine (torch.matmul of 8192^3 fp16,
#    a 512 MiB tensor copy counting read + write bytes). Says SKIP for that part without PyTorch.
# One PASS/FAIL/SKIP line per check with its numbers, then "gpu_floors: PASS" (exit 0) or
# "gpu_floors: FAIL" (exit 1).
# Skips (77) without a GPU. Alone: bash tests/gpu/gpu_floors.sh build-gpu/benchtop
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
fail=0
S=2x8x512x64
run() { # NAME ARGS...: a JSON session in $OUTDIR/f-NAME.json; FAIL line when run fails
  local name=$1; shift
  rm -f "$OUTDIR/f-$name.json" "$OUTDIR/f-$name.csv" # a session left by an earlier run would be appended to
  "$BT" run "$@" -s $S --metrics none -o "$OUTDIR/f-$name.json" > /dev/null 2> "$OUTDIR/f-$name.err" ||
    { echo "FAIL run $name ($*): exit $?"; tail -n 5 "$OUTDIR/f-$name.err"; fail=1; }
}
run multi -v fp8,cublas --reps 200
run split -v mma --knob split=2 --reps 200
run split-graph -v mma --knob split=2 --reps 200 --graph
for n in multi split; do
  "$BT" show "$OUTDIR/f-$n.json" --format csv > "$OUTDIR/f-$n.csv" 2>> "$OUTDIR/f-$n.err" ||
    { echo "FAIL show --format csv f-$n.json"; fail=1; }
done

python3 - "$OUTDIR"/f-multi.json "$OUTDIR"/f-split.json "$OUTDIR"/f-split-graph.json <<'PY' || fail=1
import csv, json, os, sys
bad = 0
for path in sys.argv[1:]:
    if not os.path.exists(path):
        continue
    graph = "graph" in os.path.basename(path)
    csv_path = path[:-5] + ".csv"
    csv_rows = list(csv.DictReader(open(csv_path, newline=""))) if os.path.exists(csv_path) else None
    for r in json.load(open(path))["records"]:
        split = [k for k in r["knobs"].split(",") if k.startswith("split=")]
        name = "%s%s%s" % (r["variant"], " " + split[0] if split else "", " (graph)" if graph else "")
        if r["status"] == "n/a":
            print("SKIP kernels %-18s not run here: %s" % (name, r.get("reason", "")[:80]))
            continue
        ks = r.get("kernels") or []
        p50 = (r.get("timing") or {}).get("p50")
        if r["status"] != "pass" or len(ks) < 2 or not p50:
            print("FAIL kernels %-18s status %s, %d kernels (want 2 or more), p50 %s: %s" %
                  (name, r["status"], len(ks), p50, r.get("reason", "")[:80]))
            bad += 1
            continue
        # p50 is the kernels' busy time: idle gaps do not count, an overlap (a negative gap) once.
        total = sum(k["p50_us"] + min(k["gap_before_us"] or 0, 0) for k in ks)
        off = abs(total - p50) / p50
        parts = "; ".join(("" if k["gap_before_us"] is None else "gap %.2f; " % k["gap_before_us"]) +
                          "%s %.2f" % (k["name"][:40], k["p50_us"]) for i, k in enumerate(ks))
        ok = off <= 0.02
        if csv_rows is not None:  # show's CSV names the same kernels for the same record
            row = next((c for c in csv_rows if c["variant"] == r["variant"]), None)
            if row is None or any(k["name"][:40] not in row.get("kernels", "") for k in ks):
                ok = False
                parts += " [show's CSV lacks them: %r]" % (row or {}).get("kernels")
        bad += not ok
        print("%s kernels %-18s p50 %.2f us, kernels %.2f us, %.2f %% apart (limit 2 %%): %s" %
              ("PASS" if ok else "FAIL", name, p50, total, 100 * off, parts))
sys.exit(1 if bad else 0)
PY

run ladder -v all --reps 100
python3 - "$OUTDIR/f-ladder.json" "$OUTDIR/f-ceilings.txt" <<'PY' || fail=1
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("FAIL floors: no ladder session (%s)" % e)
    sys.exit(1)
bad = 0
dev = None
for r in s["records"]:
    d = r.get("device") or {}
    if dev is None and (d.get("peak_gbs") or 0) > 0:
        dev = d
    if r["status"] != "pass":
        print("SKIP floors  %-10s %s: %s" % (r["variant"], r["status"], r.get("reason", "")[:70]))
        continue
    f = r.get("floors") or {}
    x = f.get("x_floor") or 0
    ok = f.get("bound") in ("compute", "memory", "launch") and x > 1
    bad += not ok
    print("%s floors  %-10s p50 %8.2f us = %6.2fx the %s floor (FLOP %.2f us at %.0f TFLOP/s, bytes %.2f us, launch %.2f us; %.0f GB/s achieved)" %
          ("PASS" if ok else "FAIL", r["variant"], r["timing"]["p50"], x, f.get("bound"),
           f.get("flop_us") or 0, f.get("rate_tflops") or 0, f.get("byte_us") or 0,
           f.get("launch_us") or 0, f.get("achieved_gbs") or 0))
if dev is None:
    print("FAIL ceilings: no record carries the measured copy bandwidth")
    sys.exit(1)
print("     ceilings %s: %.1f TFLOP/s fp16, %.0f GB/s copy, empty kernel %.2f us" %
      (dev.get("name"), dev.get("peak_tflops") or 0, dev.get("peak_gbs") or 0, dev.get("launch_us") or 0))
open(sys.argv[2], "w").write("%r %r\n" % (dev.get("peak_tflops") or 0, dev.get("peak_gbs") or 0))
sys.exit(1 if bad else 0)
PY

python3 - "$OUTDIR/f-ceilings.txt" <<'PY' || fail=1
import sys
try:
    ours_tflops, ours_gbs = map(float, open(sys.argv[1]).read().split())
except (OSError, ValueError):
    print("FAIL ceilings against PyTorch: benchtop's ceilings missing")
    sys.exit(1)
try:
    import torch
except ImportError:
    print("SKIP ceilings against PyTorch: no torch here")
    sys.exit(0)
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
for what, ours, theirs in (("fp16 tensor TFLOP/s", ours_tflops, tflops),
                           ("copy GB/s (read + write)", ours_gbs, gbs)):
    off = abs(ours - theirs) / theirs
    ok = off <= 0.10
    bad += not ok
    print("%s ceiling %-26s benchtop %.1f, PyTorch %.1f, %.1f %% apart (limit 10 %%)" %
          ("PASS" if ok else "FAIL", what, ours, theirs, 100 * off))
sys.exit(1 if bad else 0)
PY
[ $fail -eq 0 ] && echo "gpu_floors: PASS" || echo "gpu_floors: FAIL"
exit $fail
