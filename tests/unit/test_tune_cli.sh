#!/usr/bin/env bash
# benchtop tune without a GPU, through a scripted worker whose latency is a fixed function of
# the knobs (FAKE_TUNE=1 in tests/tui/fake_worker.py): a space of 50+ configurations with a
# budget of 20 stays within it, every measurement is a record, one winner per shape, show
# --best prints them, --knob auto runs them; Ctrl-C keeps every finished record; bad input is
# one line and loses nothing.
BT=${1:?usage: test_tune_cli.sh BENCHTOP FAKE_WORKER}
export BENCHTOP_WORKER=${2:?usage: test_tune_cli.sh BENCHTOP FAKE_WORKER}
export FAKE_TUNE=1
T=${TUNE_CLI_KEEP:-$(mktemp -d)} # TUNE_CLI_KEEP=DIR: work there and keep it (debugging)
[ -n "${TUNE_CLI_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache BENCHTOP_TUNED_TABLE=$T/tuned.json
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# --- stdout closed early (`| true`): the tune goes on and saves every record, exit 0 (a
# --- SIGPIPE used to end it silently with nothing saved) ----------------------------------
"$BT" tune -v mma -s 2x8x512x64 --budget 10 --metrics none -o "$T/pipe.json" 2> "$T/pipe.err" | true
rc=${PIPESTATUS[0]}
n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["records"]))' "$T/pipe.json" 2> /dev/null)
[ $rc -eq 0 ] && [ "$n" = 10 ] && ok "stdout closed: the tune's 10 records saved, exit 0" \
  || { bad "stdout closed: exit $rc, ${n:-no} records"; tail -3 "$T/pipe.err"; }
rm -f "$T/tuned.json"

# --- a budget of 20 on two shapes of mma (115 configurations each after refusals) ----------
# (FAKE_SOURCES: the records name this build's kernel source, as a GPU's do; tune-table keeps
# only such winners)
FAKE_SOURCES=1 "$BT" tune -v mma -s 2x8x512x64,2x8x512x64:causal --budget 20 --metrics none -o "$T/t.json" \
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

# --- --knob auto runs the winner, and at a shape never tuned the nearest tuned shape's; with
# --- no table for this GPU the defaults, with a note --------------------------------------
win=$(python3 -c "import json,sys; print([t for t in json.load(open(sys.argv[1]))['tune'] if t['shape']=='2x8x512x64'][0]['winner_knobs'])" "$T/t.json")
"$BT" run -v mma --knob auto -s 2x8x512x64,4x8x512x64 --metrics none -o "$T/auto.json" > /dev/null 2> "$T/auto.txt"
BENCHTOP_TUNED_TABLE=$T/none.json "$BT" run -v mma --knob auto -s 2x8x512x64 --metrics none -o "$T/auto-none.json" \
  > /dev/null 2> "$T/auto-none.txt"
python3 - "$T/auto.json" "$T/auto-none.json" "$win" <<'PY' && ok "--knob auto ran the tuned knobs ($win), the nearest shape's, or the defaults" \
  || { bad "--knob auto"; cat "$T/auto.txt" "$T/auto-none.txt"; }
import json, sys
r = json.load(open(sys.argv[1]))["records"]
n = json.load(open(sys.argv[2]))["records"]
sys.exit(0 if r[0]["knobs"] == sys.argv[3] and r[0]["knobs_auto"].startswith("auto from table tuned.json: tuned at this shape")
         and r[1]["knobs"] == sys.argv[3]
         and r[1]["knobs_auto"].startswith("auto from table tuned.json: nearest tuned shape 2x8x512x64")
         and n[0]["knobs_auto"].startswith("defaults: nothing tuned on this scripted test worker (no GPU) (its chip is unknown")
         and n[0]["knobs"] != sys.argv[3] else 1)
PY
[ "$(grep -c 'running the defaults' "$T/auto-none.txt")" -eq 1 ] && ok "one line for the defaults" \
  || { bad "the defaults' note"; cat "$T/auto-none.txt"; }

# --- no --knob: the tuned knobs where this GPU has some (one line); --knob default: never;
# --- replay repeats what was run (the tuned knobs pinned in the plan), never re-tuned knobs --
"$BT" run -v mma -s 2x8x512x64,4x8x512x64 --metrics none -o "$T/implicit.json" > /dev/null 2> "$T/implicit.txt"
"$BT" run -v mma -s 2x8x512x64 --knob default --metrics none -o "$T/default.json" > /dev/null 2> "$T/default.txt"
python3 - "$T/implicit.json" "$T/default.json" "$win" <<'PY' && ok "a variant given no --knob runs the tuned knobs; --knob default the defaults" \
  || { bad "tuned by default"; cat "$T/implicit.txt" "$T/default.txt"; }
import json, sys
imp = json.load(open(sys.argv[1]))["records"]
dfl = json.load(open(sys.argv[2]))["records"]
ok = (imp[0]["knobs"] == sys.argv[3] and imp[0]["knobs_auto"].startswith("auto from table tuned.json")
      and imp[1]["knobs"] == sys.argv[3] and "nearest tuned shape" in imp[1]["knobs_auto"]
      and dfl[0]["knobs"] != sys.argv[3] and "knobs_auto" not in dfl[0])
sys.exit(0 if ok else 1)
PY
[ "$(grep -c 'mma at .*: auto from table tuned.json' "$T/implicit.txt")" -eq 2 ] && ok "one line a shape says the tuned knobs ran" \
  || { bad "the tuned-by-default line"; cat "$T/implicit.txt"; }
grep -v '^session:' "$T/default.txt" | grep -q . && { bad "--knob default said more than the session"; cat "$T/default.txt"; } \
  || ok "--knob default: no note"
"$BT" replay "$T/default.json" -o "$T/replayed.json" > /dev/null 2>&1
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['records'][0]; sys.exit(0 if r['knobs']==sys.argv[2] and 'knobs_auto' not in r else 1)" \
  "$T/replayed.json" "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['records'][0]['knobs'])" "$T/default.json")" \
  && ok "replay of a --knob default run runs the defaults" || bad "replay took tuned knobs"
# The tuned table changes (another winner at 2x8x512x64); replaying the implicit run repeats
# what it ran: the old winner at both shapes.
python3 - "$T/tuned.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for e in t["entries"]:
    if e["shape"] == "2x8x512x64":
        e["knobs"] = e["knobs"].replace("stages=2", "stages=3") if "stages=2" in e["knobs"] else e["knobs"].replace("stages=3", "stages=2")
json.dump(t, open(sys.argv[1], "w"))
PY
"$BT" replay "$T/implicit.json" -o "$T/replayed2.json" > /dev/null 2> "$T/replayed2.txt"
python3 - "$T/implicit.json" "$T/replayed2.json" <<'PY' && ok "replay of a tuned-by-default run repeats its knobs" \
  || { bad "replay of the implicit run"; cat "$T/replayed2.txt"; }
import json, sys
a = sorted((r["shape"], r["knobs"]) for r in json.load(open(sys.argv[1]))["records"])
b = sorted((r["shape"], r["knobs"]) for r in json.load(open(sys.argv[2]))["records"])
plan = json.load(open(sys.argv[1]))["plan"]
print("   plan:", json.dumps(plan["variants"]))
sys.exit(0 if a == b and len(a) == 2 else 1)
PY
expect_fail() { "$@" > /dev/null 2>&1 && return 1; return 0; }
expect_fail "$BT" run -v mma -s 2x8x512x64 --knob auto --knob default && ok "auto with default: refused" || bad "auto with default accepted"

# --- a table shipped for this GPU's chip (kernels/tuned/, here BENCHTOP_SHIPPED_TUNED): a user
# --- with no table of their own gets its knobs, also when tuned for an older source (said);
# --- a table for another chip: the defaults, unremarked -------------------------------------
mkdir -p "$T/ship" "$T/ship-other" "$T/ship-old"
python3 - "$T/tuned.json" "$T/ship/GH100.json" "$T/ship-other/AD104.json" "$T/ship-old/GH100.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for path, dev, hash in ((sys.argv[2], "NVIDIA H200", None), (sys.argv[3], "NVIDIA L4", None),
                        (sys.argv[4], "NVIDIA H200", "0123456789abcdef")):
    es = [dict(e, device=dev, source_hash=hash or e["source_hash"]) for e in t["entries"]]
    # The scripted worker's winner may be a setting the declarations refuse since (a spill found
    # later): the shipped entry at the shape run below holds one they allow.
    for e in es:
        if e["variant"] == "mma" and e["shape"] == "2x8x512x64":
            e["knobs"] = "block_m=64,block_n=128,warps=4,stages=2,split=1"
    json.dump({"schema": t["schema"], "entries": es}, open(path, "w"))
PY
shipped_run() { # dir out
  FAKE_DEVICE="NVIDIA H100 80GB HBM3" BENCHTOP_TUNED_TABLE=$T/none.json BENCHTOP_SHIPPED_TUNED=$1 \
    "$BT" run -v mma -s 2x8x512x64 --metrics none -o "$2" > /dev/null 2> "$2.txt"
}
shipped_run "$T/ship" "$T/sh.json"
shipped_run "$T/ship-other" "$T/sh-other.json"
shipped_run "$T/ship-old" "$T/sh-old.json"
python3 - "$T" <<'PY' && ok "a table shipped for this chip gives its knobs (an older source's too); another chip's does not" \
  || { bad "shipped tables"; cat "$T"/sh*.txt; }
import json, sys
d = sys.argv[1]
ship = [e for e in json.load(open(d + "/ship/GH100.json"))["entries"] if e["shape"] == "2x8x512x64"][0]
r = json.load(open(d + "/sh.json"))["records"][0]
o = json.load(open(d + "/sh-other.json"))["records"][0]
x = json.load(open(d + "/sh-old.json"))["records"][0]
dflt = json.load(open(d + "/default.json"))["records"][0]["knobs"]
sys.exit(0 if r["knobs"] == ship["knobs"] and r["knobs_auto"].startswith("auto from table GH100.json (shipped): tuned at this shape")
         and o["knobs"] == dflt and "knobs_auto" not in o and x["knobs"] == ship["knobs"]
         and x["knobs_auto"].endswith("older kernel source") else 1)
PY
grep -q 'auto from table GH100.json (shipped)' "$T/sh.json.txt" && ! grep -q 'auto from' "$T/sh-other.json.txt" \
  && ok "one line names the shipped table; none for another chip's" || { bad "shipped-table lines"; cat "$T"/sh*.txt; }

# --- the table benchtop ships (kernels/tuned/GH100.json, found beside the build as installed
# --- data): a plain run on an H100 takes its knobs at its shapes, a near shape's elsewhere;
# --- show prints where each record's knobs came from -------------------------------------
SHIPPED=$(dirname "$0")/../../kernels/tuned/GH100.json
FAKE_DEVICE="NVIDIA H100 80GB HBM3" BENCHTOP_TUNED_TABLE=$T/plain-table.json "$BT" run -v fa3,mma \
  -s 2x8x512x64,4x16x2048x128,1x4x256x64 --metrics none -o "$T/plain.json" > /dev/null 2> "$T/plain.txt"
python3 - "$T/plain.json" "$SHIPPED" <<'PY' && ok "a plain run on an H100 runs the shipped table's knobs" \
  || { bad "the plain run ignored the shipped table"; cat "$T/plain.txt"; }
import json, re, sys
recs = json.load(open(sys.argv[1]))["records"]
table = {(e["variant"], e["shape"]): e["knobs"] for e in json.load(open(sys.argv[2]))["entries"]}
ok = len(recs) == 6
for r in recs:
    want = table.get((r["variant"], r["shape"]))
    note = r.get("knobs_auto", "")
    here = want is not None and r["knobs"] == want and note.startswith("auto from table GH100.json (shipped): tuned at this shape")
    # a shape the table lacks: the knobs of the tuned shape the note names (the table's facts)
    m = re.match(r"auto from table GH100.json \(shipped\): nearest tuned shape (\S+) ", note)
    near = want is None and m is not None and r["knobs"] == table.get((r["variant"], m.group(1)))
    # or picked there among the nearest entries' knobs (cmd/run_pick.c): those of the one it names
    m = re.match(r"auto from table GH100.json \(shipped\): picked at this shape, the fastest of \d+ "
                 r"tuned neighbours' knobs[^(]* measured here \((\S+)'s", note)
    near |= want is None and m is not None and r["knobs"] == table.get((r["variant"], m.group(1)))
    print("   %-4s %-16s %s  [%s]" % (r["variant"], r["shape"], r["knobs"], note))
    ok &= here or near
sys.exit(0 if ok else 1)
PY
"$BT" show "$T/plain.json" > "$T/plain-show.txt" 2>&1
grep -q 'auto from table GH100.json (shipped)' "$T/plain-show.txt" && ok "show says the knobs came from the shipped table" \
  || { bad "show hides where the knobs came from"; cat "$T/plain-show.txt"; }

# --- shards of a plain run on an H100 each pin the shipped knobs they ran; the merged plan
# --- holds every shard's, so a replay of the merged session repeats what the shards ran ------
for i in 1 2; do
  FAKE_DEVICE="NVIDIA H100 80GB HBM3" BENCHTOP_TUNED_TABLE=$T/none.json "$BT" run -v mma \
    -s 2x8x512x64,4x16x2048x128 --metrics none --shard $i/2 -o "$T/shard$i.json" > /dev/null 2>&1
done
"$BT" merge "$T/shard1.json" "$T/shard2.json" -o "$T/merged.json" > /dev/null 2> "$T/merge.txt"
FAKE_DEVICE="NVIDIA H100 80GB HBM3" BENCHTOP_TUNED_TABLE=$T/none.json "$BT" replay "$T/merged.json" \
  -o "$T/merged-replay.json" > /dev/null 2>&1
python3 - "$T/merged.json" "$T/merged-replay.json" <<'PY' && ok "a merged sharded run replays every shard's tuned knobs" \
  || { bad "merged shards lost their tuned knobs"; cat "$T/merge.txt"; }
import json, sys
a = sorted((r["shape"], r["knobs"]) for r in json.load(open(sys.argv[1]))["records"])
b = sorted((r["shape"], r["knobs"]) for r in json.load(open(sys.argv[2]))["records"])
notes = [r.get("knobs_auto", "") for r in json.load(open(sys.argv[1]))["records"]]
print("   merged:", a, "replayed:", b)
sys.exit(0 if len(a) == 2 and a == b and all(n.startswith("auto from table GH100.json") for n in notes) else 1)
PY

# --- tune-table: the table shipped per chip, from tune sessions; the chip, the commit and the
# --- sessions recorded; a session of an unknown chip or a -o that is no table: one line ----
python3 - "$T/t.json" "$T/t-h100.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["device"]["name"] = "NVIDIA H100 80GB HBM3"
json.dump(s, open(sys.argv[2], "w"))
PY
"$BT" tune-table "$T/t-h100.json" -o "$T/GH100.json" > "$T/tt.txt" 2> "$T/tt.err"
rc=$?
python3 - "$T/GH100.json" "$T/t-h100.json" <<'PY' && [ $rc -eq 0 ] && grep -q "2 entries for GH100" "$T/tt.txt" \
  && ok "tune-table writes the winners with the chip, the commit and the sessions" || { bad "tune-table (exit $rc)"; cat "$T/tt.txt" "$T/tt.err"; }
import json, sys
t = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
win = sorted((x["shape"], x["winner_knobs"]) for x in s["tune"])
got = sorted((e["shape"], e["knobs"]) for e in t["entries"])
sys.exit(0 if t["chip"] == "GH100" and t["revision"] == s["revision"] and t["generator"] and t["created"]
         and t["from"] == ["t-h100.json"] and got == win and all(e["chip"] == "GH100" for e in t["entries"]) else 1)
PY
# A winner measured on another source of the kernel is left out, with a note that says so:
# shipped, a run would take knobs of a kernel that is gone.
python3 - "$T/t-h100.json" "$T/t-old.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
w = s["tune"][0]["winner"]
s["records"][w]["build"]["source_hash"] = "00000000000000aa"
json.dump(s, open(sys.argv[2], "w"))
PY
"$BT" tune-table "$T/t-old.json" -o "$T/GH100-old.json" > "$T/tto.txt" 2> "$T/tto.err"
rc=$?
[ $rc -eq 0 ] && grep -q "1 entries for GH100\|1 entry for GH100" "$T/tto.txt" \
  && grep -q "t-old.json: 1 winner of mma measured on another source of the kernel than this build's: left out" "$T/tto.err" \
  && ok "tune-table leaves out a winner of another kernel source, and says so" \
  || { bad "tune-table kept a winner of another kernel source (exit $rc)"; cat "$T/tto.txt" "$T/tto.err"; }
expect_one() { # name cmd... : exit 1, one line (besides notes about the sessions)
  local name=$1 err rc n
  shift
  "$@" > /dev/null 2> "$T/one.err"; rc=$?
  err=$(grep -v '^benchtop tune-table: note: ' "$T/one.err")
  n=$(printf '%s' "$err" | grep -c '')
  [ $rc -eq 1 ] && [ "$n" -eq 1 ] && ok "$name: $err" || bad "$name: exit $rc, $n lines: $err"
}
expect_one "tune-table of an unknown chip's session" "$BT" tune-table "$T/t.json" -o "$T/unknown.json"
[ ! -e "$T/unknown.json" ] || bad "tune-table wrote a table for an unknown chip"
cp "$T/t.json" "$T/keep.json"
expect_one "tune-table -o onto a session" "$BT" tune-table "$T/t-h100.json" -o "$T/keep.json"
cmp -s "$T/t.json" "$T/keep.json" && ok "the session named by -o is untouched" || bad "tune-table clobbered a session"

# A table made before is an input too (its sessions may be gone): its entries stay, a later
# session's winner replaces one at the same slot, its stale entries are left out with a note, and
# its own sources stand for it in "from".
python3 - "$T/GH100.json" "$T/prev.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
keep = dict(t["entries"][0], shape="9x9x999x64", knobs=t["entries"][0]["knobs"])
gone = dict(t["entries"][0], shape="7x7x777x64", source_hash="00000000000000aa")
same = dict(t["entries"][1], knobs="OLD", p50=1e9)
t["entries"] = [keep, gone, same]
t["from"] = ["grid-a.json", "grid-b.json"]
json.dump(t, open(sys.argv[2], "w"))
PY
"$BT" tune-table "$T/prev.json" "$T/t-h100.json" -o "$T/GH100-next.json" > "$T/ttn.txt" 2> "$T/ttn.err"
rc=$?
python3 - "$T/GH100-next.json" "$T/t-h100.json" <<'PY' && [ $rc -eq 0 ] && grep -q "prev.json: 1 winner of .* measured on another source" "$T/ttn.err" \
  && ok "tune-table takes a table made before: kept, replaced by a later session, stale left out, its sources named" \
  || { bad "tune-table with a table as input (exit $rc)"; cat "$T/ttn.txt" "$T/ttn.err"; }
import json, sys
t = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
got = {e["shape"]: e["knobs"] for e in t["entries"]}
win = {x["shape"]: x["winner_knobs"] for x in s["tune"]}
sys.exit(0 if "7x7x777x64" not in got and "9x9x999x64" in got and all(got[k] == v for k, v in win.items())
         and "OLD" not in got.values() and t["from"] == ["grid-a.json", "grid-b.json", "t-h100.json"] else 1)
PY
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); t["chip"]="AD104"; json.dump(t, open(sys.argv[2],"w"))' "$T/prev.json" "$T/l4table.json"
expect_one "tune-table of tables of two chips" "$BT" tune-table "$T/t-h100.json" "$T/l4table.json" -o "$T/mixed.json"
[ ! -e "$T/mixed.json" ] || bad "tune-table wrote a table of two chips"

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
