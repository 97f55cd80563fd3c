#!/usr/bin/env bash
# A plain run's pick (cmd/run_pick.c), through the scripted worker (FAKE_TUNE=1 FAKE_GRID=1: a
# latency that is a fixed function of the knobs and the kind of problem) on a made-up H100
# with a shipped table of three fa3 entries near 5x32x192x128, none at it. Checks: the first
# run measures the three entries' knobs there and the one of them (persist=0) refitted to fewer
# waves of SMs at the problem, runs the fastest (not the transfer rule's, which is slower here),
# saves only the run's record, and the user's table keeps the pick (picked_of 4); the next run takes it unmeasured; --pick 0 runs the rule's knobs and keeps
# nothing; a candidate that fails verification is passed over; a --cold-l2 run picks again,
# under its own conditions; two GPUs give the same pick, each record with its note; replay
# repeats the picked knobs without picking; Ctrl-C during the pick keeps nothing; a table that
# cannot be written costs the cache, not the run.
#   test_run_pick.sh BENCHTOP FAKE_WORKER
BT=${1:?usage: test_run_pick.sh BENCHTOP FAKE_WORKER}
WORKER=${2:?usage: test_run_pick.sh BENCHTOP FAKE_WORKER}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export BENCHTOP_WORKER=$WORKER FAKE_TUNE=1 FAKE_GRID=1 FAKE_SOURCES=1 FAKE_DEVICE="NVIDIA H100 80GB HBM3"
export XDG_CACHE_HOME=$T/cache BENCHTOP_SHIPPED_TUNED=$T/shipped BENCHTOP_TUNED_TABLE=$T/tuned.json
mkdir -p "$T/shipped"
P=5x32x192x128
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

# The shipped table: fa3 at three problems near P, knobs chosen so that the nearest entry's
# (the rule's) are not the fastest at P. Source hashes as the worker reports them.
# The source hash a table entry needs, as this worker reports it.
"$BT" run -v fa3 -s 1x1x128x64 --knob default --metrics none -o "$T/probe.json" > /dev/null 2>&1 ||
  { echo "FAIL the probe run"; exit 1; }
HASH=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"][0]["build"]["source_hash"])' "$T/probe.json")
python3 - "$WORKER" "$T" "$P" "$HASH" <<'PY' || exit 1
import json, os, sys
worker, T, P, src = sys.argv[1:5]
ns = {"__file__": worker}
text = open(worker).read()
exec(text[:text.index("def fnv")], ns)  # the worker's latency model, not its main loop
pool = ["block_m=128,block_n=128,stages=2,kv_split=1,sched=exp,persist=1,exp_poly=0",
        "block_m=128,block_n=64,stages=2,kv_split=1,sched=plain,persist=0,exp_poly=0",
        "block_m=64,block_n=128,stages=2,kv_split=1,sched=plain,persist=1,exp_poly=4",
        "block_m=128,block_n=64,stages=2,kv_split=1,sched=pingpong,persist=1,exp_poly=0",
        "block_m=128,block_n=128,stages=2,kv_split=1,sched=pingpong,persist=0,exp_poly=4"]
near = ["4x32x256x128", "8x16x256x128", "2x8x512x128"]  # nearest first
order = sorted(pool, key=lambda k: ns["latency"](k, P))
chosen = [order[2], order[0], order[1]]  # the nearest (the rule's) is not the fastest at P
entries = [{"device": "NVIDIA H100 80GB HBM3", "chip": "GH100", "cc": 90, "driver": 13000, "variant": "fa3",
            "source_hash": src, "shape": s, "cold_l2": False, "graph": False, "knobs": k,
            "p50": 10.0, "clock": "kernel", "created": "2026-01-01T00:00:00Z", "session": ""}
           for s, k in zip(near, chosen)]
json.dump({"schema": "benchtop.tuned/1", "chip": "GH100", "device": "NVIDIA H100 80GB HBM3", "entries": entries},
          open(os.path.join(T, "shipped", "GH100.json"), "w"), indent=1)
open(os.path.join(T, "expect"), "w").write("%s\n%s\n%s\n" % (order[0], chosen[0], order[1]))
PY
BEST=$(sed -n 1p "$T/expect") RULE=$(sed -n 2p "$T/expect") SECOND=$(sed -n 3p "$T/expect")
rec() { python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["records"]
print(len(r)); [print(x["knobs"], "|", x.get("knobs_auto", "")) for x in r]' "$1"; }
entry() { python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))["entries"]
[print(x["shape"], x["cold_l2"], x["knobs"], x.get("picked_of", 0)) for x in e]' "$1" 2> /dev/null; }

# 1. The first run picks; only its record is saved; the pick is kept.
"$BT" run -v fa3 -s $P --metrics none -o "$T/a.json" > "$T/a.out" 2> "$T/a.err"
rc=$?
check "first run exit 0" "[ $rc -eq 0 ]"
check "first run measures the 3 neighbours' knobs and 1 refitted to fewer waves" "grep -q 'pick: 1 problem no table has tuned: measuring 4 tuned neighbours. knobs there first, 1 of them refitted to fewer waves' '$T/a.err'"
rec "$T/a.json" > "$T/a.rec"
check "only the run's record is saved" "[ \"\$(head -1 '$T/a.rec')\" = 1 ]"
check "it runs the fastest, not the rule's" "grep -q '^$BEST |.*picked at this shape, the fastest of 3 tuned neighbours. knobs and 1 refitted to fewer waves' '$T/a.rec'"
check "the rule's knobs are slower here (the test means something)" "[ '$BEST' != '$RULE' ]"
check "the user's table keeps the pick" "entry '$T/tuned.json' | grep -qx '$P False $BEST 4'"

# 2. The next run takes it unmeasured.
"$BT" run -v fa3 -s $P --metrics none -o "$T/b.json" > /dev/null 2> "$T/b.err"
check "second run does not pick" "! grep -q 'pick:' '$T/b.err'"
check "second run says where its knobs came from" "rec '$T/b.json' | grep -q '^$BEST |.*picked at this shape (the fastest of 4'"

# 3. --pick 0: the transfer rule's knobs, nothing kept.
rm -f "$T/tuned.json"
"$BT" run -v fa3 -s $P --metrics none --pick 0 -o "$T/c.json" > /dev/null 2> "$T/c.err"
check "--pick 0 runs the rule's knobs" "rec '$T/c.json' | grep -q '^$RULE |'"
check "--pick 0 keeps nothing" "[ ! -e '$T/tuned.json' ]"

# 4. A candidate that fails verification is passed over.
fails=$(echo "$BEST" | tr , '\n' | grep -vxF -f <(echo "$SECOND" | tr , '\n') | head -1)
FAKE_FAIL=$fails "$BT" run -v fa3 -s $P --metrics none -o "$T/d.json" > /dev/null 2> "$T/d.err"
check "a failing candidate is passed over ($fails)" "rec '$T/d.json' | grep -q '^$SECOND |.*picked at this shape'"
rm -f "$T/tuned.json"

# 5. --cold-l2 after a warm pick: picked again, kept under its own conditions.
"$BT" run -v fa3 -s $P --metrics none -o "$T/e1.json" > /dev/null 2>&1
"$BT" run -v fa3 -s $P --metrics none --cold-l2 -o "$T/e2.json" > /dev/null 2> "$T/e2.err"
check "a cold-L2 run picks under its conditions" "grep -q 'pick: 1 problem' '$T/e2.err'"
check "the table keeps the warm and the cold pick" "[ \$(entry '$T/tuned.json' | grep -c ' 4\$') -eq 2 ] && entry '$T/tuned.json' | grep -q '^$P True '"
rm -f "$T/tuned.json"

# 6. Two GPUs: the same pick; every record keeps its entry's note and place.
FAKE_GPUS=2 "$BT" run -v fa3 -s $P,2x8x512x128 --metrics none --devices all -o "$T/f.json" > /dev/null 2> "$T/f.err"
rec "$T/f.json" > "$T/f.rec"
check "two GPUs: both records saved" "[ \"\$(head -1 '$T/f.rec')\" = 2 ]"
check "two GPUs: the pick" "sed -n 2p '$T/f.rec' | grep -q '^$BEST |.*picked at this shape'"
check "two GPUs: the tuned problem's note" "sed -n 3p '$T/f.rec' | grep -q 'tuned at this shape'"
check "two GPUs: plan order" "python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))[\"records\"]; sys.exit([x[\"shape\"] for x in r] != [\"$P\", \"2x8x512x128\"])' '$T/f.json'"

# 7. Replay repeats the picked knobs and picks nothing.
rm -f "$T/tuned.json"
"$BT" replay "$T/a.json" -o "$T/g.json" > /dev/null 2> "$T/g.err"
check "replay picks nothing" "! grep -q 'pick:' '$T/g.err'"
check "replay runs the picked knobs" "rec '$T/g.json' | grep -q '^$BEST |'"

# 8. Ctrl-C during the pick: exit 130, nothing kept, no session file left.
FAKE_DELAY=1 "$BT" run -v fa3 -s $P --metrics none -o "$T/h.json" > /dev/null 2> "$T/h.err" &
pid=$!
for _ in $(seq 50); do grep -q 'pick: 1 problem' "$T/h.err" 2> /dev/null && break; sleep 0.1; done
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
check "Ctrl-C during the pick exits 130" "[ $rc -eq 130 ]"
check "Ctrl-C during the pick keeps no pick" "[ ! -e '$T/tuned.json' ]"
check "Ctrl-C during the pick saves no record" "[ ! -s '$T/h.json' ] || [ \"\$(rec '$T/h.json' | head -1)\" = 0 ]"
# 9. A tuned table that cannot be written (a directory): the run runs the pick, saves its record,
# and says in one line that the pick was not kept.
mkdir -p "$T/adir"
BENCHTOP_TUNED_TABLE=$T/adir "$BT" run -v fa3 -s $P --metrics none -o "$T/i.json" > /dev/null 2> "$T/i.err"
rc=$?
check "an unwritable table: exit 0, the picked record saved" "[ $rc -eq 0 ] && rec '$T/i.json' | grep -q '^$BEST |.*picked at this shape'"
check "an unwritable table: one line says the pick was not kept" "[ \$(grep -c 'was not kept in the tuned table' '$T/i.err') -eq 1 ]"
# 10. Dissent: the nearest all run stages=2; a farther winner with stages=3 is the fastest at P.
# It is measured beside them (the nearest 3 with --pick 3; the farther one is no neighbour) and
# runs, and its note says why it was a candidate.
mkdir -p "$T/dis"
python3 - "$WORKER" "$T" "$P" "$HASH" <<'PY' || exit 1
import itertools, json, os, sys
worker, T, P, src = sys.argv[1:5]
ns = {"__file__": worker}
text = open(worker).read()
exec(text[:text.index("def fnv")], ns)
lat = lambda k: ns["latency"](k, P)
# Settings fa3 runs at P (three stages of 128-key tiles exceed the shared memory at D = 128).
space = ["block_m=128,block_n=%d,stages=%d,kv_split=1,sched=%s,persist=%d,exp_poly=0" % x
         for x in itertools.product([64, 128], [2, 3], ["plain", "pingpong", "exp"], [0, 1]) if x[:2] != (128, 3)]
two = sorted((k for k in space if "stages=2" in k), key=lat)
three = sorted((k for k in space if "stages=3" in k), key=lat)
far = three[0]
near = [k for k in two if lat(k) > lat(far)][:3]
assert len(near) == 3, "no stages=2 settings slower than the fastest stages=3 one"
shapes = ["4x32x256x128", "8x16x256x128", "2x8x512x128", "1x2x16384x64:causal"]
entries = [{"device": "NVIDIA H100 80GB HBM3", "chip": "GH100", "cc": 90, "driver": 13000, "variant": "fa3",
            "source_hash": src, "shape": s, "cold_l2": False, "graph": False, "knobs": k,
            "p50": 10.0, "clock": "kernel", "created": "2026-01-01T00:00:00Z", "session": ""}
           for s, k in zip(shapes, near + [far])]
json.dump({"schema": "benchtop.tuned/1", "chip": "GH100", "device": "NVIDIA H100 80GB HBM3", "entries": entries},
          open(os.path.join(T, "dis", "GH100.json"), "w"), indent=1)
open(os.path.join(T, "dis", "far"), "w").write(far + "\n")
PY
FAR=$(cat "$T/dis/far")
rm -f "$T/tuned.json"
BENCHTOP_SHIPPED_TUNED=$T/dis "$BT" run -v fa3 -s $P --pick 3 --metrics none -o "$T/j.json" > /dev/null 2> "$T/j.err"
rc=$?
check "dissent: exit 0, one farther winner measured" "[ $rc -eq 0 ] && grep -q ', 1 farther winners unlike the nearest in a knob' '$T/j.err'"
check "dissent: the farther winner runs, named as such" "rec '$T/j.json' | grep -q '^$FAR |.*1x2x16384x64:causal.s, unlike the nearest in stages'"

exit $fail
