#!/usr/bin/env bash
# What this GPU's properties and this NVRTC make of the launch: every record names the target
# it was compiled for (the device's own sm_XY; sm_90a for fa3 on Hopper), and with
# BENCHTOP_SIMULATE_OLD_NVRTC=1 (an NVRTC that knows no architecture of this GPU's major) the
# ladder still runs from PTX the driver compiles (build.arch compute_NN, registers from the
# loaded kernel), worker.log says so once, and fa3 (arch-specific) fails to compile with why.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
fail=0
"$BT" run -v naive,mma,fa3 -s 2x8x512x64 --reps 5 --metrics none --format json \
  -o "$OUTDIR/native.json" > /dev/null 2> "$OUTDIR/native.err"
rm -f "$XDG_CACHE_HOME/benchtop/worker.log"
BENCHTOP_SIMULATE_OLD_NVRTC=1 "$BT" run -v naive,mma,fa3 -s 2x8x512x64 --reps 5 --metrics none \
  --format json -o "$OUTDIR/ptx.json" > /dev/null 2> "$OUTDIR/ptx.err"
python3 - "$OUTDIR/native.json" "$OUTDIR/ptx.json" "$XDG_CACHE_HOME/benchtop/worker.log" <<'PY' || fail=1
import json, sys
native = json.load(open(sys.argv[1]))["records"]
ptx = json.load(open(sys.argv[2]))["records"]
log = open(sys.argv[3], errors="replace").read() if sys.argv[3] else ""
ok = True
d = native[0]["device"]
cc = d["cc_major"] * 10 + d["cc_minor"]
print(f"device {d['name']} sm_{cc}, {d['sm_count']} SMs, L2 {d['l2_bytes'] >> 20} MiB, NVRTC {d['nvrtc_major']}.{d['nvrtc_minor']}")
for r in native:
    want = f"sm_{cc}a" if r["variant"] == "fa3" else f"sm_{cc}"
    good = r["status"] == "pass" and r["build"]["arch"] == want if (r["variant"] != "fa3" or cc == 90) else r["status"] == "n/a"
    print(f"{'ok  ' if good else 'FAIL'} native {r['variant']}: {r['status']} arch {r['build'].get('arch')} {r.get('reason', '')[:80]}")
    ok &= good
for r in ptx:
    if r["variant"] == "fa3":
        good = r["status"] != "pass" and ("sm_90a" in r.get("reason", "") or r["status"] == "n/a")
    else:
        good = r["status"] == "pass" and r["build"]["arch"].startswith("compute_") and r["build"]["regs"] > 0
    print(f"{'ok  ' if good else 'FAIL'} old NVRTC {r['variant']}: {r['status']} arch {r['build'].get('arch')} regs {r['build'].get('regs')} {r.get('reason', '')[:90]}")
    ok &= good
noted = "compiled PTX for compute_" in log
print(f"{'ok  ' if noted else 'FAIL'} worker.log names the PTX target")
ok &= noted
sys.exit(0 if ok else 1)
PY
[ $fail -eq 0 ] && echo "PASS gpu_compat" || echo "FAIL gpu_compat"
exit $fail
