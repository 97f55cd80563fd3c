#!/bin/bash
# Tuning from the TUI without a GPU, through the real runner and a scripted worker whose
# latency is a function of the knobs (FAKE_TUNE=1): T on mma with two shapes checked shows the
# search's progress on the status line, ends with the winners marked W in the results and in
# the session, the detail view of the winner says where it ranked, and the tuned table holds
# them; a run with mma's knobs left alone then runs the winners; the knob editor's `a` then runs mma with --knob auto and the variants panel and the
# record say what auto chose; a second tune cancelled with x keeps its finished records.
#   tui_tune.sh BENCHTOP
BT=$1
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py" BENCHTOP_EXAMPLES=/nonexistent
export FAKE_TUNE=1 BENCHTOP_TUNED_TABLE="$TUI_TMP/tuned.json"
S="$TUI_TMP/tune.json"
tui_start 160 45 "TERM=screen-256color '$BT' '$S'; echo EXIT=\$?; sleep 600"
wait_for 'Variants 0/'
# Shapes: 2x8x512x64 and its causal twin; Variants: the cursor on mma (the 7th row).
keys 2 j j Space Space 1 g j j j j j j
wait_for 'Shapes 2/'
keys T
wait_for 'tune mma 2x8x512x64 1/2: searching'
step "T tunes mma: progress on the status line"
wait_for 'tune done: 2 winners marked W' 60
step "the tune ended with a winner per shape"
python3 - "$S" "$BENCHTOP_TUNED_TABLE" <<'PY' || fail "session or tuned table"
import json, sys
s = json.load(open(sys.argv[1]))
t = s["tune"]
assert len(t) == 2 and all(x["winner"] >= 0 for x in t), t
assert all(s["records"][x["winner"]]["tune"]["winner"] for x in t)
assert all(x["measured"] - x["cross"] <= x["budget"] for x in t)
assert len(json.load(open(sys.argv[2]))["entries"]) == 2
PY
step "the session names the winners; the tuned table holds them"
# The winner in the results (W) and its rank in the detail view.
keys 3 g
w=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['tune'][0]['winner'])" "$S")
for _ in $(seq 1 "$w"); do keys j; done
wait_for '^│ ?W'
keys Enter
wait_for 'tune: rank 1 of [0-9]+, the winner'
step "the winner is marked W; its detail says rank 1"
keys Escape
# Knobs left alone take the tuned ones (as run without --knob): r runs the winners, the
# variants panel says so, the records say tuned, the plan pins them for replay.
keys 1 Space k r
wait_for 'mma       (from tuned.json block_m=|from tuned.json for 2 of 2 shapes)' 30
wait_for 'run finished' 30
python3 - "$S" <<'PY' || fail "tuned-by-default records"
import json, sys
s = json.load(open(sys.argv[1]))
win = {t["shape"]: t["winner_knobs"] for t in s["tune"]}
recs = [r for r in s["records"] if r.get("knobs_auto") and "tune" not in r]
assert len(recs) == 2 and all(r["knobs_auto"].startswith("auto from table tuned.json") and r["knobs"] == win[r["shape"]] for r in recs), recs
pinned = {(sh, tuple(v["knobs"])) for v in s["plan"]["variants"] for sh in v.get("shapes", [])}
assert all((r["shape"], tuple(r["knobs"].split(","))) in pinned for r in recs), s["plan"]
PY
step "knobs left alone: mma ran the tuned knobs of each shape, pinned in the plan"
# --knob auto from the knob editor: the variants panel says what auto chose for the run.
keys 1 Enter
wait_for 'Knobs: mma'
keys a Escape
wait_for 'mma       auto'
keys r
wait_for 'auto: from tuned.json block_m=|auto: from tuned.json for 2 of 2 shapes' 30
wait_for 'run finished' 30
python3 - "$S" <<'PY' || fail "auto records"
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["records"] if r.get("knobs_auto")]
assert len(recs) == 4 and all(r["knobs_auto"].startswith("auto from table tuned.json") for r in recs[2:]), recs
PY
step "knob editor a: mma ran with the tuned knobs of each shape"
# The detail view of such a record says which table its knobs came from.
keys 3 G Enter
wait_for 'knobs auto from table tuned.json: tuned at this shape'
step "the detail view says the knobs came from the tuned table"
keys Escape
# A second tune, cancelled: the finished records stay and are ranked.
n0=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['records']))" "$S")
keys T
wait_for 'tune mma 2x8x512x64 1/2: searching'
sleep 1
keys x
wait_for 'tune cancelled' 30
n1=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['records']))" "$S")
[ "$n1" -gt "$n0" ] || fail "the cancelled tune kept no records ($n0 -> $n1)"
step "x cancels a tune; its $((n1 - n0)) finished records stay"
keys q
wait_for 'EXIT=0'
echo "PASS tui_tune"
