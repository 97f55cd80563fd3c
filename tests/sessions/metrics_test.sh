#!/bin/sh
# Every metric a record holds is a column of every output:
# 1. `run --metrics default,<the user's own ncu names>` with a scripted worker, then show and
#    diff in every format: the user's metrics appear under their Nsight Compute names (CSV, JSON)
#    and short labels (table, Markdown), after the headline ones.
# 2. A test build whose catalog has one more line (add_metric.py): that metric appears under the
#    catalog's label in every format of show and diff, with no other edit.
# usage: metrics_test.sh BENCHTOP BENCHTOP_EXTRA_METRIC FAKE_WORKER WORK_DIR
set -u
bt=$1; extra=$2; worker=$3; work=$4
rm -rf "$work"; mkdir -p "$work" || exit 1
export XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
fail=0
bad() { echo "FAIL $*"; fail=1; }
has() { # has FILE TEXT DESCRIPTION
  grep -qF -- "$2" "$1" || { bad "$3: '$2' missing"; head -c 2000 "$1"; echo; }
}

BENCHTOP_WORKER=$worker "$bt" run -v mma,fa3 -s 2x8x512x64 --reps 20 \
  --metrics default,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum \
  -o "$work/s.json" > "$work/run.txt" 2> "$work/run.err" || { bad "run"; cat "$work/run.err"; }
has "$work/run.txt" "dram__bytes_read" "run's streamed table"
has "$work/run.txt" "lts__t_sectors_srcunit_tex_op_read" "run's streamed table"
for fmt in table md csv json; do
  "$bt" show "$work/s.json" --format $fmt > "$work/show.$fmt" || bad "show --format $fmt"
  "$bt" diff "$work/s.json" "$work/s.json" --format $fmt > "$work/diff.$fmt" || bad "diff --format $fmt"
done
for f in show.csv show.json diff.csv diff.json; do
  has "$work/$f" "dram__bytes_read.sum" "$f"
  has "$work/$f" "lts__t_sectors_srcunit_tex_op_read.sum" "$f"
done
for f in show.table show.md; do
  has "$work/$f" "dram__bytes_read" "$f"
  has "$work/$f" "lts__t_sectors_srcunit_tex_op_read" "$f"
done
for f in diff.table diff.md; do
  has "$work/$f" "Δdram__bytes_read" "$f"
  has "$work/$f" "Δlts__t_sectors_srcunit_tex_op_read" "$f"
done
# After the headline ones: in the CSV header the user's metrics follow the catalog's.
python3 - "$work/show.csv" <<'PY' || bad "CSV column order"
import csv, sys
head = next(csv.reader(open(sys.argv[1], newline="")))
i = head.index("dram__bytes_read.sum")
assert head.index("lts__t_sector_hit_rate.pct") < i < head.index("reason"), head
PY
# The record holds the values; show's JSON carries them.
python3 - "$work/show.json" <<'PY' || bad "JSON values"
import json, sys
r = json.load(open(sys.argv[1]))["records"][0]
names = [m["name"] for m in r["metrics"]]
assert "dram__bytes_read.sum" in names and "lts__t_sector_hit_rate.pct" in names, names
PY

# The catalog test build: the added line's label stands in the tables, its name in CSV/JSON.
for fmt in table md csv json; do
  "$extra" show "$work/s.json" --format $fmt > "$work/xshow.$fmt" || bad "extra show --format $fmt"
  "$extra" diff "$work/s.json" "$work/s.json" --format $fmt > "$work/xdiff.$fmt" || bad "extra diff $fmt"
done
has "$work/xshow.table" "dram rd" "catalog line in show's table"
has "$work/xshow.md" "dram rd" "catalog line in show's Markdown"
has "$work/xshow.csv" "dram__bytes_read.sum" "catalog line in show's CSV"
has "$work/xshow.json" "dram__bytes_read.sum" "catalog line in show's JSON"
has "$work/xdiff.table" "Δdram rd" "catalog line in diff's table"
has "$work/xdiff.md" "Δdram rd" "catalog line in diff's Markdown"
has "$work/xdiff.csv" "d:dram__bytes_read.sum" "catalog line in diff's CSV"
has "$work/xdiff.json" "dram__bytes_read.sum" "catalog line in diff's JSON"
# ... in catalog order: before the user's metric that follows the catalog.
python3 - "$work/xshow.csv" <<'PY' || bad "the added catalog metric is not among the catalog's"
import csv, sys
head = next(csv.reader(open(sys.argv[1], newline="")))
assert head.index("dram__bytes_read.sum") < head.index("lts__t_sectors_srcunit_tex_op_read.sum"), head
PY
# ... and the plain build does not know the label: the line made the difference.
grep -qF "dram rd" "$work/show.table" && bad "the plain build knows 'dram rd'"
# The analysis a record carries beside its metrics: per-kernel spans and the physical floors
# (the scripted worker reports 2 kernels for mma and the device's ceilings).
has "$work/show.csv" "floor_x" "show CSV floors"
has "$work/show.csv" "attn_fwd_split" "show CSV kernels"
has "$work/show.table" "x floor" "show table floor column"
python3 - "$work/show.json" <<'PY' || bad "JSON kernels and floors"
import json, sys
r = next(x for x in json.load(open(sys.argv[1]))["records"] if x["variant"] == "mma")
k = r["kernels"]
assert [x["name"] for x in k] == ["attn_fwd_split", "combine"] and k[1]["gap_before_us"] > 0, k
f = r["floors"]
assert f["bound"] in ("compute", "memory", "launch") and f["x_floor"] > 0, f
assert r["device"]["peak_gbs"] == 4000.0 and r["device"]["launch_us"] == 2.0, r["device"]
PY
python3 - "$work/show.csv" <<'PY' || bad "CSV floors"
import csv, sys
rows = {r["variant"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
m = rows["mma"]
assert m["floor_bound"] in ("compute", "memory", "launch") and float(m["floor_x"]) > 0, m
assert m["kernels"].startswith("attn_fwd_split ") and "; gap " in m["kernels"], m["kernels"]
PY
[ $fail -eq 0 ] && echo "ok: every metric in every format"
exit $fail
