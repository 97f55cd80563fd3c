#!/bin/bash
# Two records of a sweep that differ in one knob (mma stages=2 and stages=3) read differently in
# show, in the results panel and in the compare view (which also gives the p50 verdict); the
# column chooser lists every metric, the user's own included, and adds one to the table. With a
# second binary (the catalog test build, one more catalog line), the chooser lists that line.
#   tui_labels.sh BENCHTOP EXAMPLE_SESSION [BENCHTOP_EXTRA_METRIC]
BT=$1 EXAMPLE=$2 EXTRA=${3:-}
. "$(dirname "$0")/lib.sh"
SESSION="$TUI_TMP/sweep.json"
python3 - "$EXAMPLE" "$SESSION" "$BT" <<'PY' || fail "cannot make the sweep session"
import json, re, subprocess, sys
s = json.load(open(sys.argv[1]))
mma = next(r for r in s["records"] if r["variant"] == "mma")
# The declared defaults (the example may hold tuned knobs), from `benchtop list variants`.
listing = subprocess.run([sys.argv[3], "list", "variants", "mma"], capture_output=True, text=True).stdout
block = re.search(r"^mma .*?(?=^\S|\Z)", listing, re.S | re.M).group(0)
defaults = dict(re.findall(r"knob (\w+) = \S+ \(default ([^)]+)\)", block))
assert defaults.get("stages") == "2", defaults
recs = []
for stages, scale in (("2", 1.0), ("3", 1.25)):
    r = json.loads(json.dumps(mma))
    r["knobs"] = ",".join("%s=%s" % (k, stages if k == "stages" else v) for k, v in defaults.items())
    t = r["timing"]
    t["samples"] = [x * scale for x in t["samples"]]
    for k in ("p50", "p90", "p99", "min", "mean"): t[k] *= scale
    if t.get("replicate_p50"):  # the block medians the verdict's interval reads move with p50
        t["replicate_p50"] = [x * scale for x in t["replicate_p50"]]
    r["metrics"].append({"name": "dram__bytes_read.sum", "value": 1048576.0 * scale, "unit": "byte", "reason": ""})
    r["device"]["peak_gbs"], r["device"]["launch_us"] = 4270.0, 2.0
    r["kernels"] = [{"name": "attn_fwd_split", "p50_us": t["p50"] * 0.85, "gap_before_us": None,
                     "share": 0.85, "launches": 100},
                    {"name": "combine", "p50_us": t["p50"] * 0.1, "gap_before_us": t["p50"] * 0.05,
                     "share": 0.1, "launches": 100}]
    recs.append(r)
s["records"] = recs
json.dump(s, open(sys.argv[2], "w"))
PY

"$BT" show "$SESSION" > "$TUI_TMP/show.txt" || fail "show"
grep -q " defaults " "$TUI_TMP/show.txt" && grep -q " st=3 " "$TUI_TMP/show.txt" || {
  cat "$TUI_TMP/show.txt"; fail "show does not tell stages=2 from stages=3"; }
step "show: defaults / st=3"

tui_start 120 60 "TERM=screen-256color '$BT' '$SESSION'"
wait_for 'Results 2'
screen | grep -q ' defaults ' && screen | grep -q ' st=3 ' || fail "results panel does not tell them apart"
step "results panel: defaults / st=3"

keys Space; keys Space; keys c
wait_for 'Compare 2 records'
screen | grep -E '^│ knobs' | grep -q 'defaults' && screen | grep -E '^│ knobs' | grep -q 'st=3' ||
  fail "compare view does not tell them apart"
wait_for 'p50 verdict +base +slower \[\+[0-9.]+,\+[0-9.]+\]%'
step "compare view: defaults / st=3, p50 verdict slower with its interval"
for _ in $(seq 1 12); do keys j; done
wait_for 'dram__bytes_read'
keys Escape; wait_for 'Results 2'

# The chooser: the user's metric is a column already; hmma (not brief) is added from the list.
keys C; wait_for 'Columns\]'
screen | grep -q '\[ \] hmma .*sm__inst_executed_pipe_tensor_op_hmma.sum' ||
  fail "chooser lacks the catalog's hmma (out by default)"
screen | grep -q '\[x\] dram__bytes_read.sum' || fail "the user's metric is not a column"
# Walk down to hmma from the top: its distance in rows from the first one (variant).
keys PPage; keys PPage; sleep 0.1
top=$(screen | grep -nE '\[.\] variant ' | cut -d: -f1)
at=$(screen | grep -nE '\[.\] hmma ' | cut -d: -f1)
[ -n "$top" ] && [ -n "$at" ] || fail "chooser rows not found"
for _ in $(seq 1 $((at - top))); do keys j; done
keys Space; wait_for '\[x\] hmma '
wait_for 'added column hmma'
keys Escape; wait_gone 'Columns\]'
step "chooser: catalog and user metrics listed, hmma added to the table"
# The detail view: where the p50 goes kernel by kernel, and the floors.
keys Enter; wait_for 'Kernels'
wait_for 'attn_fwd_split'
wait_for 'Floors'
wait_for 'the largest floor'
step "detail: per-kernel breakdown and floors"
keys Escape
keys q; sleep 0.2

if [ -n "$EXTRA" ]; then
  tui_fresh
  tui_start 120 34 "TERM=screen-256color '$EXTRA' '$SESSION'"
  wait_for 'Results 2'
  keys C; wait_for 'Columns\]'
  screen | grep -q '\[x\] dram rd' || fail "the chooser of the catalog test build lacks 'dram rd'"
  step "catalog test build: 'dram rd' (the added line) in the chooser, in the table"
  keys Escape; keys q
fi
echo PASS
