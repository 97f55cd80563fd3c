#!/usr/bin/env bash
# benchtop tune without a GPU, through a scripted worker whose latency is a fixed function of
# the knobs (FAKE_TUNE=1 in tests/tui/fake_worker.py): a space of 50+ configurations with a
# budget of 20 stays within it, every measurement is a record, one winner per shape, show
# --best prints them, --knob auto runs them; Ctrl-C keeps every finished record; bad input is
# one line and loses nothing.
BT=${1:?usage: test_tune_cli.sh BENCHTOP FAKE_WORKER}
export BENCHTOP_WORKER=${2:?usage: test_tune_cli.sh BENCHTOP FAKE_WORKER}
export FAKE_TUNE=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache BENCHTOP_TUNED_TABLE=$T/tuned.json
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# --- a budget of 20 on two shapes of mma (115 configurations each after refusals) ----------
"$BT" tune -v mma -s 2x8x512x64,2x8x512x64:causal --budget 20 --metrics none -o "$T/t.json" \
  > "$T/out.txt" 2> "$T/err.txt"
rc=$?
[ $rc -eq 0 ] && ok "tune exit 0" || { bad "tune exit $rc"; cat "$T/err.txt"; }
python3 - "$T/t.json" "$T/out.txt" "$T/tuned.json" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
recs, tune = s["records"], s.get("tune", [])
bad = 0
def check(cond, what):
    global bad
    print(("ok   " if cond else "FAIL ") + what)
    bad += not cond
check(len(tune) == 2, "one summary per shape (%d)" % len(tune))
for t in tune:
    mine = [r for r in recs if r["shape"] == t["shape"]]
    own = len(mine) - t["cross"]
    check(t["space"] - t["refused"] >= 50, "%s: %d configurations to search" % (t["shape"], t["space"] - t["refused"]))
    check(own <= 20 and own == t["measured"] - t["cross"], "%s: %d measurements within the budget of 20" % (t["shape"], own))
    check(t["cross"] <= 2, "%s: %d measured for the other shape (its winner, and a second time if it leads here)" % (t["shape"], t["cross"]))
    winners = [i for i, r in enumerate(recs) if r["shape"] == t["shape"] and r.get("tune", {}).get("winner")]
    check(winners == [t["winner"]], "%s: one winner, record %s" % (t["shape"], winners))
    w = recs[t["winner"]]
    check(w["knobs"] == t["winner_knobs"] and w["tune"]["rank"] == 1, "%s: the winner record is rank 1" % t["shape"])
    passing = [r for r in mine if r["status"] == "pass"]
    check(all(r.get("tune", {}).get("rank", 0) >= 1 for r in passing), "%s: every passing record ranked" % t["shape"])
    # The winner's score is the best mean p50 among the configurations measured.
    means = {}
    for r in passing:
        means.setdefault(r["knobs"], []).append(r["timing"]["p50"])
    best = min(means, key=lambda k: sum(means[k]) / len(means[k]))
    check(best == t["winner_knobs"], "%s: the winner has the lowest mean p50" % t["shape"])
    check(t["lead"] is not None and t["lead"] >= 0, "%s: lead %s" % (t["shape"], t["lead"]))
rows = [l for l in open(sys.argv[2]) if l[:4].strip().isdigit()]
check(len(rows) == len(recs), "every record printed as it came (%d rows, %d records)" % (len(rows), len(recs)))
table = json.load(open(sys.argv[3]))
check(len(table["entries"]) == 2, "two tuned-table entries")
sys.exit(1 if bad else 0)
PY
"$BT" show "$T/t.json" --best > "$T/best.txt" 2>&1
grep -q "^tune mma at 2x8x512x64:causal: " "$T/best.txt" && grep -q "  winner  block_m=" "$T/best.txt" \
  && [ "$(grep -c '^mma ' "$T/best.txt")" -eq 2 ] && ok "show --best prints the two winners" \
  || { bad "show --best"; cat "$T/best.txt"; }

# --- --knob auto runs the winner; a shape never tuned runs the defaults, with a note --------
win=$(python3 -c "import json,sys; print([t for t in json.load(open(sys.argv[1]))['tune'] if t['shape']=='2x8x512x64'][0]['winner_knobs'])" "$T/t.json")
"$BT" run -v mma --knob auto -s 2x8x512x64,4x8x512x64 --metrics none -o "$T/auto.json" > /dev/null 2> "$T/auto.txt"
python3 - "$T/auto.json" "$win" <<'PY' && ok "--knob auto ran the tuned knobs ($win)" || { bad "--knob auto"; cat "$T/auto.txt"; }
import json, sys
r = json.load(open(sys.argv[1]))["records"]
sys.exit(0 if r[0]["knobs"] == sys.argv[2] and r[0]["knobs_auto"].startswith("tuned")
         and r[1]["knobs_auto"].startswith("defaults: nothing tuned") else 1)
PY
[ "$(grep -c 'running the defaults' "$T/auto.txt")" -eq 1 ] && ok "one line for the untuned shape" \
  || { bad "the untuned shape's note"; cat "$T/auto.txt"; }

# --- Ctrl-C mid-run: every finished record stays, ranked; exit 130 -------------------------
FAKE_DELAY=1 "$BT" tune -v fa3 -s 2x8x512x64 --strategy exhaustive --metrics none -o "$T/c.json" \
  > "$T/cout.txt" 2> "$T/cerr.txt" &
pid=$!
for _ in $(seq 1 200); do
  [ "$(grep -c '^ *[0-9]* *fa3 ' "$T/cout.txt" 2> /dev/null)" -ge 5 ] && break
  sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && ok "interrupted tune exits 130" || bad "interrupted tune exit $rc"
python3 - "$T/c.json" "$T/cout.txt" <<'PY' && ok "the interrupted tune kept and ranked its records" || { bad "interrupted session"; cat "$T/cerr.txt"; }
import json, sys
s = json.load(open(sys.argv[1]))
rows = [l for l in open(sys.argv[2]) if l[:4].strip().isdigit()]
recs = [r for r in s["records"] if r["status"] == "pass"]
t = s["tune"][0]
sys.exit(0 if len(recs) >= 5 and len(rows) == len(s["records"]) and not t["complete"]
         and t["winner"] >= 0 and all(r["tune"]["rank"] >= 1 for r in recs) else 1)
PY
grep -q "interrupted; keeping the finished records" "$T/cerr.txt" || bad "no interrupt message"

# --- --simulate replays the strategies against an exhaustive tune's scores, no worker --------
"$BT" tune -v mma -s 1x8x256x64 --knob block_m=64,128 --knob split=1,2 --strategy exhaustive \
  --metrics none --no-table -o "$T/ex.json" > /dev/null 2>&1
BENCHTOP_WORKER=/nonexistent "$BT" tune --simulate "$T/ex.json" --budget 50% --runs 20 --seed 3 > "$T/sim.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^replaying mma at 1x8x256x64: [0-9]* configurations, [0-9]* with a score" "$T/sim.txt" \
  && [ "$(grep -c 'within 2 % of the best in *[0-9]* of 20 runs' "$T/sim.txt")" -eq 4 ] \
  && grep -q '^  local ' "$T/sim.txt" && ok "--simulate replays four strategies" || { bad "--simulate (exit $rc)"; cat "$T/sim.txt"; }
"$BT" tune --simulate "$T/ex.json" --strategy local --budget 50% --runs 20 --noise 2 > "$T/simn.txt" 2>&1 \
  && grep -q "runs each, measurements noisy" "$T/simn.txt" && [ "$(grep -c '^  local ' "$T/simn.txt")" -eq 1 ] \
  && ok "--simulate --noise replays noisy measurements" || { bad "--simulate --noise"; cat "$T/simn.txt"; }
"$BT" tune --simulate "$T/nothing.json" > /dev/null 2> "$T/sim.err"
[ $? -eq 1 ] && [ "$(grep -c '' "$T/sim.err")" -eq 1 ] && ok "--simulate of a missing file: one line" \
  || { bad "--simulate of a missing file"; cat "$T/sim.err"; }

# --- bad input: one line, exit 2, no session, no table entry --------------------------------
expect() { # name want_rc cmd...
  local name=$1 want=$2; shift 2
  local err rc n
  err=$("$@" 2>&1 >/dev/null); rc=$?
  n=$(printf '%s' "$err" | grep -c '')
  if [ $rc -ne $want ] || [ "$n" -ne 1 ]; then bad "$name: exit $rc (want $want), $n lines: $err"
  else ok "$name: $err"; fi
}
before=$(ls "$T/data/benchtop/sessions" 2> /dev/null | wc -l)
expect budget-zero 2 "$BT" tune -v mma -s 2x8x512x64 --budget 0
expect budget-bad 2 "$BT" tune -v mma -s 2x8x512x64 --budget 120%
expect no-knobs 2 "$BT" tune -v naive -s 2x8x512x64
expect all-refused 2 "$BT" tune -v fa3 -s 2x8x512x64 --knob kv_split=2 --knob block_m=128
expect empty-after-restriction 2 "$BT" tune -v mma -s 2x8x512x64 --knob block_m=64 --knob warps=8
expect auto-in-tune 2 "$BT" tune -v mma -s 2x8x512x64 --knob auto
expect bad-strategy 2 "$BT" tune -v mma -s 2x8x512x64 --strategy bayes
expect bad-value 2 "$BT" tune -v mma -s 2x8x512x64 --knob block_m=65
expect bad-noise 2 "$BT" tune --simulate "$T/ex.json" --noise 80
after=$(ls "$T/data/benchtop/sessions" 2> /dev/null | wc -l)
[ "$before" -eq "$after" ] && ok "bad input left no session" || bad "bad input left a session"

# --- every configuration failing: one line, exit 1, every record kept, no table entry -------
cp "$T/tuned.json" "$T/tuned.before"
FAKE_FAIL='*' "$BT" tune -v mma -s 1x8x512x64 --budget 8 --metrics none -o "$T/f.json" > /dev/null 2> "$T/ferr.txt"
rc=$?
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['records']))" "$T/f.json")
[ $rc -eq 1 ] && [ "$n" -eq 8 ] && grep -q "every one of the 8 configurations measured failed (e.g. verification failed" "$T/ferr.txt" \
  && cmp -s "$T/tuned.json" "$T/tuned.before" && ok "all failing: exit 1, 8 records kept, table untouched" \
  || { bad "all failing: exit $rc, $n records"; cat "$T/ferr.txt"; }
exit $fail
