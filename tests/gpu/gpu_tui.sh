#!/usr/bin/env bash
# The TUI on the GPU machine, driven through tmux: check three variants
# and two shapes, run, see the records arrive with every headline metric, compare two, quit;
# the autosaved session holds the same records.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
command -v tmux > /dev/null || { echo "SKIP gpu_tui: tmux not installed"; exit 77; }
export XDG_DATA_HOME="$OUTDIR/tui-data" BENCHTOP_EXAMPLES=/nonexistent
rm -rf "$XDG_DATA_HOME"
S="$OUTDIR/tui-session.json" # a new file: an empty session that autosaves there
rm -f "$S"
tui_start tui 160 45 "$BT $S 2> $OUTDIR/tui-stderr.txt; echo EXITED \$? > $OUTDIR/tui-exit"
sleep 1.5
keys 1 j j Space j j Space Space 2 j j Space Space
snap checked
run_until_idle "6 records\|Results 6"
keys 3 g Space j Space c
sleep 0.5
snap compare
keys Escape q
sleep 1
tui_stop
cat "$OUTDIR/tui-results.txt"
cat "$OUTDIR/tui-compare.txt"
echo "autosaved: $S; exit: $(cat "$OUTDIR/tui-exit" 2> /dev/null)"
[ -f "$S" ] || { echo "FAIL gpu_tui: no autosaved session"; exit 1; }
python3 - "$S" "$OUTDIR/tui-results.txt" "$OUTDIR/tui-compare.txt" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
screen = open(sys.argv[2]).read()
cmp_screen = open(sys.argv[3]).read()
heads = ["sm__warps_active.avg.pct_of_peak_sustained_active",
         "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "lts__t_sector_hit_rate.pct"]
bad = 0
got = sorted((r["variant"], r["shape"]) for r in recs)
want = sorted((v, s) for v in ("swizzle", "wmma", "mma") for s in ("2x8x512x64", "2x8x512x64:causal"))
if got != want: print("FAIL records in the session:", got); bad += 1
for r in recs:
    vals = {m["name"]: m["value"] for m in r.get("metrics", [])}
    missing = [h for h in heads if vals.get(h) is None]
    if r["status"] != "pass" or missing: print("FAIL", r["variant"], r["shape"], r["status"], "missing", missing); bad += 1
    p50 = "%.2f" % r["timing"]["p50"]
    if r["variant"] not in screen: print("FAIL", r["variant"], "not on screen"); bad += 1
if "EXITED 0" not in open(sys.argv[1].rsplit("/", 4)[0] + "/tui-exit").read() if False else False: pass
if "Compare" not in cmp_screen and "compare" not in cmp_screen and "baseline" not in cmp_screen.lower():
    print("FAIL compare view not shown"); bad += 1
print("PASS gpu_tui" if not bad else "FAIL gpu_tui")
sys.exit(1 if bad else 0)
PY
rc=$?
grep -q "EXITED 0" "$OUTDIR/tui-exit" 2> /dev/null || { echo "FAIL gpu_tui: the TUI did not exit cleanly"; cat "$OUTDIR/tui-stderr.txt"; rc=1; }
exit $rc
