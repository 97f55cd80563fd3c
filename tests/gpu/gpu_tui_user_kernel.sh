#!/usr/bin/env bash
# A kernel of one's own through the TUI on the GPU, driven through tmux: examples/kernels/tiles.cu
# (knobs the built-ins do not have: warps 1..8, rows per warp 8|16) on the kernel path
# (--kernels), found with / in the Variants panel, checked, its warps knob set to 3 in the knob
# editor, run at 2x8x512x64; the autosaved session holds a tiles record with warps=3, verified
# against the reference, with the headline metrics, naming tiles.cu as its source.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
command -v tmux > /dev/null || { echo "SKIP gpu_tui_user_kernel: tmux not installed"; exit 77; }
KDIR=$(cd "$HERE/../../examples/kernels" && pwd)
export XDG_DATA_HOME="$OUTDIR/tuik-data" XDG_CONFIG_HOME="$OUTDIR/tuik-config" BENCHTOP_EXAMPLES=/nonexistent
S="$OUTDIR/tuik-session.json"
rm -f "$S"
tui_start tuik 160 45 "$BT --kernels $KDIR $S 2> $OUTDIR/tuik-stderr.txt; echo EXITED \$? > $OUTDIR/tuik-exit"
wait_screen 'Variants [0-9]+/' 10 start
wait_screen '\] tiles ' 10 found
# tiles' row in the Variants panel (the cursor starts on the first row).
row=$(grep -E '^│\[.\] ' "$OUTDIR/tuik-found.txt" | grep -n '\] tiles ' | head -n1 | cut -d: -f1)
[ -n "$row" ] || { echo "FAIL gpu_tui_user_kernel: tiles is not listed"; exit 1; }
keys 1
for _ in $(seq 2 "$row"); do keys j; done
keys e
snap editor
# warps is the first knob (default 4): Left once gives 3; Space (which moves down) checks it.
keys h Enter Space
keys 2 j j Space
wait_screen '\[x\] tiles +warps=3' 5 checked
wait_screen '\[x\] 2x8x512x64 ' 5 checked
run_until_idle "Results 1"
keys q
sleep 1
tui_stop
cat "$OUTDIR/tuik-results.txt"
[ -f "$S" ] || { echo "FAIL gpu_tui_user_kernel: no autosaved session"; exit 1; }
python3 - "$S" "$KDIR/tiles.cu" <<'PY'
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["records"] if r["variant"] == "tiles"]
heads = ["sm__warps_active.avg.pct_of_peak_sustained_active",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]
bad = []
if len(recs) != 1: bad.append("%d tiles records, wanted 1" % len(recs))
for r in recs:
    vals = {m["name"]: m["value"] for m in r.get("metrics", [])}
    if r["status"] != "pass": bad.append("status %s: %s" % (r["status"], r.get("reason", "")))
    if "warps=3" not in r["knobs"]: bad.append("knobs %s, wanted warps=3" % r["knobs"])
    if r["shape"] != "2x8x512x64": bad.append("shape %s" % r["shape"])
    if [h for h in heads if vals.get(h) is None]: bad.append("metrics missing")
    if r.get("build", {}).get("source_path") != sys.argv[2]:
        bad.append("source %s" % r.get("build", {}).get("source_path"))
    print("tiles %s %s %s p50 %s us, rel err %s" % (r["knobs"], r["shape"], r["status"],
          r["timing"]["p50"], (r.get("error") or {}).get("rel_l2")))
print("FAIL gpu_tui_user_kernel: " + "; ".join(bad) if bad else "PASS gpu_tui_user_kernel")
sys.exit(1 if bad else 0)
PY
