#!/usr/bin/env bash
# A kernel of one's own on the GPU: examples/kernels/tiles.cu (smem's algorithm with the block
# shape as knobs the built-ins do not have: warps per block 1..8, query rows per warp 8|16)
# runs from the kernel path through `benchtop run`, every setting verified against the fp32
# reference, with the headline metrics, each record naming the file it came from; and a copy
# made by `benchtop new` (mma's file under another name) runs like mma.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
KDIR=$(cd "$HERE/../../examples/kernels" && pwd)
SHAPES=${USER_KERNEL_SHAPES:-2x8x512x64,2x8x512x64:causal,1x2x4097x128:causal,3x4x300x128}
"$BT" run -v tiles --kernels "$KDIR" --knob warps=1,3,5,8 --knob rpw=8,16 -s "$SHAPES" \
  --reps 5 --warmup 2 --format json -o "$OUTDIR/tiles.json" > /dev/null 2> "$OUTDIR/tiles.err"
echo "run tiles: exit $?"
export XDG_CONFIG_HOME="$OUTDIR/config"
rm -rf "$XDG_CONFIG_HOME"
"$BT" new mine --from mma > /dev/null || { echo "FAIL gpu_user_kernel: benchtop new"; exit 1; }
"$BT" run -v mine,mma --knob split=1,auto -s 2x8x512x64,4x16x2048x128 --reps 5 --warmup 2 \
  --metrics none --format json -o "$OUTDIR/mine.json" > /dev/null 2> "$OUTDIR/mine.err"
echo "run mine,mma: exit $?"
python3 - "$OUTDIR/tiles.json" "$OUTDIR/mine.json" "$KDIR/tiles.cu" "$XDG_CONFIG_HOME/benchtop/kernels/mine.cu" <<'PY'
import json, sys
tiles, mine, tiles_path, mine_path = sys.argv[1:]
heads = ["sm__warps_active.avg.pct_of_peak_sustained_active",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "lts__t_sector_hit_rate.pct"]
bad = n = 0
print("%-6s %-26s %-22s %-6s %-9s %-8s %s" % ("var", "knobs", "shape", "status", "rel_l2", "p50 us", "occ %"))
for path, want_file in ((tiles, tiles_path), (mine, mine_path)):
    try:
        recs = json.load(open(path))["records"]
    except Exception as e:
        print("FAIL", path, e); bad += 1; continue
    for r in recs:
        n += 1
        e = r.get("error") or {}
        vals = {m["name"]: m["value"] for m in r.get("metrics", [])}
        b = r.get("build") or {}
        problems = []
        if r["status"] != "pass": problems.append(r.get("reason", r["status"]))
        if e.get("nan_count") or e.get("inf_count") or e.get("unwritten"): problems.append("bad elements")
        if path == tiles and [h for h in heads if vals.get(h) is None]: problems.append("metrics missing")
        src = b.get("source_path", "")
        if r["variant"] in ("tiles", "mine") and src != want_file: problems.append("source_path %r" % src)
        if r["variant"] == "mma" and src != "mma.cu": problems.append("source_path %r" % src)
        if not b.get("source_hash"): problems.append("no source_hash")
        bad += bool(problems)
        occ = vals.get(heads[0])
        print("%-6s %-26s %-22s %-6s %-9s %-8s %s %s" % (r["variant"], r["knobs"], r["shape"], r["status"],
              "%.2e" % e["rel_l2"] if e.get("rel_l2") is not None else "-",
              "%.2f" % r["timing"]["p50"] if r.get("timing", {}).get("p50") is not None else "-",
              "%.1f" % occ if occ is not None else "-", "; ".join(problems)))
# mine is mma's file: the same kernels, so the same registers at the same settings
by = {}
for r in json.load(open(mine))["records"]:
    by.setdefault((r["knobs"], r["shape"]), {})[r["variant"]] = (r.get("build") or {}).get("regs")
for k, v in by.items():
    if v.get("mine") != v.get("mma"): print("FAIL registers differ", k, v); bad += 1
print("gpu_user_kernel: %d records, %d not passing" % (n, bad))
sys.exit(1 if bad or n < 32 + 8 else 0)
PY
