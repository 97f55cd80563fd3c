#!/usr/bin/env bash
# benchtop tune --grid without a GPU, through the scripted worker (FAKE_TUNE=1 FAKE_GRID=1 in
# tests/tui/fake_worker.py: a latency that is a fixed function of the knobs and the kind of
# problem, the same p50 every time a configuration is measured): a grid of 6 problems x 2
# variants, the progress lines and a line per search, the tuned table and --table-out's shipped
# table; a run stopped by SIGINT, by SIGTERM or by --time and resumed gives a table equal to an
# unstopped run's and measures no search twice; --devices all spreads the searches; bad grids
# are one line, exit 2, before a worker starts, with nothing written.
BT=${1:?usage: test_tune_grid.sh BENCHTOP FAKE_WORKER}
WORKER=${2:?usage: test_tune_grid.sh BENCHTOP FAKE_WORKER}
export BENCHTOP_WORKER=$WORKER FAKE_TUNE=1 FAKE_GRID=1 FAKE_SOURCES=1
T=${TUNE_GRID_KEEP:-$(mktemp -d)} # TUNE_GRID_KEEP=DIR: work there and keep it (debugging)
[ -n "${TUNE_GRID_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

cat > "$T/small.grid" <<'EOF'
# six problems, eight measurements per variant and problem
budget 8
2x8x512x64
2x8x512x64:causal   # a comment after a problem
4x16x2048x128
1x8x4096x128:causal
2x32/8x1024x128:bf16
8x32/8x1/4096x128:bf16
EOF

# Equal tables: the same variant, problem, knobs and p50 for every entry.
same_tables() {
  python3 - "$1" "$2" <<'PY'
import json, sys
def load(p):
    return {(e["variant"], e["shape"]): (e["knobs"], e["p50"]) for e in json.load(open(p))["entries"]}
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b or len(a) != 12:
    print("tables differ (%d and %d entries): %s" % (len(a), len(b), sorted(set(a.items()) ^ set(b.items()))[:4]))
    sys.exit(1)
PY
}

# --- stdout closed early (`| true`): the grid goes on, saves every search and both tables,
# --- exit 0 (a SIGPIPE ended it silently, nothing saved) --------------------------------
FAKE_DEVICE="NVIDIA H100 80GB HBM3" BENCHTOP_TUNED_TABLE=$T/pipe.json \
  "$BT" tune -v fa3,mma --grid "$T/small.grid" -o "$T/pipe-session.json" --table-out "$T/pipe-GH100.json" \
  2> "$T/pipe.err" | true
rc=${PIPESTATUS[0]}
python3 - "$T/pipe-session.json" "$T/pipe-GH100.json" <<'PY' && [ $rc -eq 0 ] \
  && ok "stdout closed: the grid finished, 12 searches and the table saved, exit 0" || { bad "stdout closed: exit $rc"; tail -3 "$T/pipe.err"; }
import json, sys
s, t = (json.load(open(p)) for p in sys.argv[1:])
assert len(s["tune"]) == 12 and len(t["entries"]) == 12, (len(s["tune"]), len(t["entries"]))
PY

# --- an unstopped run: a line per search, progress lines, both tables ---------------------
FAKE_DEVICE="NVIDIA H100 80GB HBM3" BENCHTOP_TUNED_TABLE=$T/full.json \
  "$BT" tune -v fa3,mma --grid "$T/small.grid" -o "$T/full-session.json" --table-out "$T/GH100.json" \
  > "$T/full.out" 2> "$T/full.err"
rc=$?
[ $rc -eq 0 ] && ok "grid exit 0" || { bad "grid exit $rc"; cat "$T/full.err"; }
[ "$(grep -c ' us  block_m=' "$T/full.out")" -eq 12 ] && grep -q '^ 12/12 ' "$T/full.out" \
  && ok "a line per search (12)" || { bad "search lines"; cat "$T/full.out"; }
grep -q '^grid: 12/12 tuned, 96/96 measurements, .* elapsed, ETA ' "$T/full.err" \
  && [ "$(grep -c '^grid: ' "$T/full.err")" -eq 12 ] && ok "plain progress lines with an ETA" \
  || { bad "progress lines"; cat "$T/full.err"; }
python3 - "$T/full.json" "$T/GH100.json" "$T/full-session.json" <<'PY' && ok "both tables hold every search's winner" || fail=1
import json, sys
user, shipped, s = (json.load(open(p)) for p in sys.argv[1:])
assert len(user["entries"]) == 12, len(user["entries"])
assert shipped["chip"] == "GH100" and len(shipped["entries"]) == 12, shipped.get("chip")
wins = {(t["variant"], t["shape"]): t["winner_knobs"] for t in s["tune"]}
assert all(wins[(e["variant"], e["shape"])] == e["knobs"] for e in user["entries"] + shipped["entries"])
assert len(s["records"]) == 96 and all(t["complete"] for t in s["tune"]), len(s["records"])
PY

# --- stopped, then resumed: the same table, no search measured twice -----------------------
stop_and_resume() { # NAME HOW: HOW is INT, TERM or time
  local name=$1 how=$2
  export BENCHTOP_TUNED_TABLE=$T/$name.json
  if [ "$how" = time ]; then
    "$BT" tune -v fa3,mma --grid "$T/small.grid" -o "$T/$name-session.json" --time 2 > "$T/$name-1.out" 2> "$T/$name-1.err"
    rc=$?
    [ $rc -eq 0 ] && grep -q 'searches left: run the same command' "$T/$name-1.err" && [ ! -e "$T/$name.json" ] \
      && ok "$name: --time stops starting searches, exit 0, no table yet" || { bad "$name: --time rc $rc"; cat "$T/$name-1.err"; }
  else
    "$BT" tune -v fa3,mma --grid "$T/small.grid" -o "$T/$name-session.json" > "$T/$name-1.out" 2> "$T/$name-1.err" &
    local pid=$!
    for _ in $(seq 1 100); do grep -q '^grid: 3/12' "$T/$name-1.err" && break; sleep 0.1; done
    kill -"$how" $pid
    wait $pid
    rc=$?
    [ $rc -eq 130 ] && grep -q 'interrupted; keeping the finished records' "$T/$name-1.err" && [ ! -e "$T/$name.json" ] \
      && ok "$name: SIG$how keeps the finished records, exit 130, no table yet" || { bad "$name: SIG$how rc $rc"; cat "$T/$name-1.err"; }
  fi
  local first
  first=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(sum(t['complete'] for t in s.get('tune', [])))" "$T/$name-session.json")
  "$BT" tune -v fa3,mma --grid "$T/small.grid" -o "$T/$name-session.json" > "$T/$name-2.out" 2> "$T/$name-2.err"
  rc=$?
  [ $rc -eq 0 ] && grep -q "resuming .*: $first of 12 searches done" "$T/$name-2.err" \
    && [ "$(grep -c ' us  block_m=' "$T/$name-2.out")" -eq $((12 - first)) ] \
    && ok "$name: the rerun goes on ($first done before, $((12 - first)) now)" || { bad "$name: resume rc $rc"; cat "$T/$name-2.err"; }
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if len(s['records']) == 96 and len(s['tune']) == 12 else 1)" \
    "$T/$name-session.json" && ok "$name: 96 records, 12 searches: none measured twice" || bad "$name: records"
  same_tables "$T/full.json" "$T/$name.json" && ok "$name: the table equals the unstopped run's" || bad "$name: table"
}
stop_and_resume int INT
stop_and_resume term TERM
stop_and_resume time time

# --- a kernel edited since: the rerun searches that variant again ---------------------------
mkdir -p "$T/kdir"
cp "$(dirname "$WORKER")/../../kernels/mma.cu" "$T/kdir/mma.cu"
echo "// edited" >> "$T/kdir/mma.cu"
cp "$T/full-session.json" "$T/edit-session.json"
FAKE_DEVICE="NVIDIA H100 80GB HBM3" BENCHTOP_KERNEL_DIR=$T/kdir BENCHTOP_TUNED_TABLE=$T/edit.json "$BT" tune -v fa3,mma --grid "$T/small.grid" \
  -o "$T/edit-session.json" > "$T/edit.out" 2> "$T/edit.err"
rc=$?
[ $rc -eq 0 ] && grep -q "resuming .*: 6 of 12 searches done; 6 measured with an older kernel source are searched again (48 records dropped)" "$T/edit.err" \
  && [ "$(grep -c ' mma ' "$T/edit.out")" -eq 6 ] && [ "$(grep -c ' fa3 ' "$T/edit.out")" -eq 0 ] \
  && ok "an edited kernel: its searches run again, the others are kept" || { bad "edited kernel rc $rc"; cat "$T/edit.err"; }

# --- another budget than the session's searches had: refused, the session left as it is ------
sum=$(md5sum < "$T/full-session.json")
FAKE_DEVICE="NVIDIA H100 80GB HBM3" "$BT" tune -v fa3,mma --grid "$T/small.grid" --budget 9 -o "$T/full-session.json" \
  > /dev/null 2> "$T/budget.err"
rc=$?
[ $rc -eq 2 ] && grep -q "with a budget of 8, this run would give it 9" "$T/budget.err" && [ "$sum" = "$(md5sum < "$T/full-session.json")" ] \
  && ok "another --budget: refused, the session left as it is" || { bad "another budget rc $rc"; cat "$T/budget.err"; }

# --- a grid tuned with --cold-l2 makes cold-L2 entries (which then win for cold-L2 runs) ----
printf 'budget 4\n2x8x512x64\n' > "$T/one.grid"
BENCHTOP_TUNED_TABLE=$T/cold.json "$BT" tune -v mma --grid "$T/one.grid" --cold-l2 -o "$T/cold-session.json" \
  > /dev/null 2> "$T/cold.err"
rc=$?
python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['entries']; sys.exit(0 if len(e) == 1 and e[0]['cold_l2'] else 1)" \
  "$T/cold.json" && [ $rc -eq 0 ] && ok "--cold-l2: the grid's entries are cold-L2 ones" || { bad "--cold-l2 rc $rc"; cat "$T/cold.err"; }

# --- --devices all: every GPU measures, the same table -------------------------------------
FAKE_GPUS=4 BENCHTOP_TUNED_TABLE=$T/four.json "$BT" tune -v fa3,mma --grid "$T/small.grid" \
  -o "$T/four-session.json" --devices all > /dev/null 2> "$T/four.err"
rc=$?
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if len({r['device']['index'] for r in s['records']}) == 4 else 1)" \
  "$T/four-session.json" && [ $rc -eq 0 ] && ok "--devices all: the searches spread over 4 GPUs" \
  || { bad "--devices all rc $rc"; cat "$T/four.err"; }
same_tables "$T/full.json" "$T/four.json" && ok "--devices all: the same table" || bad "--devices all: table"

# --- --transfer-eval: every rule replayed leave-one-out on the grid session ---------------
"$BT" tune --transfer-eval "$T/full-session.json" > "$T/transfer.out" 2> "$T/transfer.err"
rc=$?
python3 - "$T/transfer.out" <<'PY' && [ $rc -eq 0 ] && ok "--transfer-eval: a line per point and rule, a summary per variant and rule, nearest's distances" || { bad "--transfer-eval rc $rc"; cat "$T/transfer.out" "$T/transfer.err"; }
import math, re, sys
lines = open(sys.argv[1]).read().splitlines()
points = [l for l in lines if l.startswith("  ")]
summary = [l for l in lines if re.match(r"^(fa3|mma) +(nearest|feature|best-of-3|guarded|pick-of-8|pick-of-8\+fit|pick-of-8\+fit\+dissent) +6 points: ", l)]
assert len(points) == 84 and len(summary) == 14, (len(points), len(summary))
def shape(t):
    p = t.split(":"); b, h, s, d = p[0].split("x")
    hq, _, hkv = h.partition("/"); sq, _, skv = s.partition("/")
    return dict(bh=int(b) * int(hq), s=int(sq), d=int(d), skv=int(skv or sq) / int(sq),
                g=int(hq) / int(hkv or hq), c="causal" in p, bf="bf16" in p)
def dist(a, b):  # docs/tuning.md's nearest-shape distance
    a, b = shape(a), shape(b)
    return (abs(math.log2(a["bh"] / b["bh"])) + abs(math.log2(a["s"] / b["s"])) + 2 * abs(math.log2(a["d"] / b["d"]))
            + abs(math.log2(a["skv"] / b["skv"])) + abs(math.log2(a["g"] / b["g"])) + 0.5 * (a["c"] != b["c"]) + 0.5 * (a["bf"] != b["bf"]))
for l in points:
    f = l.split()
    if f[2] == "nearest":
        m = re.search(r"from (\S+) \(([0-9.e+]+)\)$", l)
        assert m and abs(dist(f[1], m.group(1)) - float(m.group(2))) < 1e-3 * max(1, float(m.group(2))), l
PY
"$BT" tune --transfer-eval "$T/full-session.json" --rule nearest -v mma > "$T/transfer1.out" 2>&1
[ "$(grep -c '^mma ' "$T/transfer1.out")" -eq 1 ] && ! grep -q '^fa3 \|feature' "$T/transfer1.out" \
  && ok "--transfer-eval --rule nearest -v mma: that rule and variant only" || { bad "--rule"; cat "$T/transfer1.out"; }
echo '{}' > "$T/not-a-session.json"
"$BT" tune --transfer-eval "$T/not-a-session.json" > /dev/null 2> "$T/transfer2.err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$T/transfer2.err")" -eq 1 ] && ok "--transfer-eval on a bad file: one line, exit 1" \
  || { bad "--transfer-eval bad file rc $rc"; cat "$T/transfer2.err"; }

# --- bad grids: one line, exit 2, no worker started, nothing written ----------------------
export BENCHTOP_WORKER=$T/no-worker.sh BENCHTOP_TUNED_TABLE=$T/bad-table.json
printf '#!/bin/sh\ntouch "%s/worker-started"\nexit 1\n' "$T" > "$T/no-worker.sh"
chmod +x "$T/no-worker.sh"
refused() { # NAME EXPECTED-TEXT GRID-ARG [more args]
  local name=$1 want=$2 grid=$3
  shift 3
  local gridopt=(--grid "$grid")
  [ "$grid" = - ] && gridopt=()
  "$BT" tune -v fa3,mma "${gridopt[@]}" -o "$T/bad-$name.json" "$@" > "$T/bad.out" 2> "$T/bad.err"
  rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l < "$T/bad.err")" -eq 1 ] && grep -qF -- "$want" "$T/bad.err" \
     && [ ! -e "$T/worker-started" ] && [ ! -e "$T/bad-$name.json" ] && [ ! -e "$T/bad-table.json" ]; then
    ok "$name: $(cat "$T/bad.err")"
  else
    bad "$name (rc $rc)"
    cat "$T/bad.err"
  fi
}
printf '2x8x512x64\n2x8x51Zx64\n' > "$T/malformed.grid"
refused malformed "malformed.grid:2: bad shape" "$T/malformed.grid"
printf '2x8x512x64\n2x8x512/256x64\n' > "$T/impossible.grid"
refused impossible "impossible.grid:2: bad shape '2x8x512/256x64': Sq (512) must not exceed Skv" "$T/impossible.grid"
printf '# nothing\n\n' > "$T/empty.grid"
refused empty "empty.grid: no problems" "$T/empty.grid"
printf 'budget 8\nbudgets 9\n2x8x512x64\n' > "$T/setting.grid"
refused setting "setting.grid:2: unknown setting 'budgets'" "$T/setting.grid"
printf '2x8x512x64\n4x8x512x64\n2x8x512x64\n' > "$T/twice.grid"
refused twice "twice.grid:3: '2x8x512x64' is the problem of line 1 again" "$T/twice.grid"
python3 -c "
print('budget 8')
for b in range(1, 301): print('%dx8x512x64' % b)
print('not a problem at all')" > "$T/huge.grid"
refused too-many "huge.grid:258: more than 256 problems" "$T/huge.grid"
printf 'budget 100000\n2x8x512x64\n4x8x512x64\n' > "$T/costly.grid"
refused too-costly "measurements planned (2 problems x 2 variants); at most 100000" "$T/costly.grid"
printf '2x8x512x24\n' > "$T/d24.grid"
refused bad-d "d24.grid:1: bad shape '2x8x512x24': D (24) must be a multiple of 8" "$T/d24.grid"
printf '2x8x512x40\n' > "$T/nothing.grid"
refused no-variant "no variant asked for has anything to search" "$T/nothing.grid"
refused no-such "no such grid in" nosuchgrid
refused with-shapes "--grid tunes the grid's problems: leave out -s" "$T/small.grid" -s 2x8x512x64
refused table-alone "--table-out goes with --grid" - --table-out "$T/x.json"
# A session of another grid is left as it is.
sum=$(md5sum < "$T/full-session.json")
"$BT" tune -v fa3 --grid "$T/small.grid" -o "$T/full-session.json" > /dev/null 2> "$T/other.err"
rc=$?
[ $rc -eq 2 ] && grep -q "holds another grid or command line" "$T/other.err" && [ "$sum" = "$(md5sum < "$T/full-session.json")" ] \
  && [ ! -e "$T/worker-started" ] && ok "another grid's session: refused, left as it is" || { bad "other session rc $rc"; cat "$T/other.err"; }

# --- a grid that grew goes on with its session; one that lost a problem does not ------------
cp "$T/full-session.json" "$T/grown-session.json"
{ cat "$T/small.grid"; echo 4x8x128x64:causal; } > "$T/grown.grid"
FAKE_DEVICE="NVIDIA H100 80GB HBM3" BENCHTOP_WORKER=$WORKER BENCHTOP_TUNED_TABLE=$T/grown.json \
  "$BT" tune -v fa3,mma --grid "$T/grown.grid" -o "$T/grown-session.json" > "$T/grown.out" 2> "$T/grown.err"
rc=$?
python3 - "$T/full-session.json" "$T/grown-session.json" <<'PY' && [ $rc -eq 0 ] \
  && ok "a grid that grew: the session's 12 searches kept, only the new problem's 2 measured" \
  || { bad "grown grid rc $rc"; cat "$T/grown.err"; }
import json, sys
old, new = (json.load(open(p)) for p in sys.argv[1:])
key = lambda r: (r["variant"], r["shape"], r["knobs"], r["created"])
kept = {key(r) for r in old["records"]} <= {key(r) for r in new["records"]}
added = {r["shape"] for r in new["records"]} - {r["shape"] for r in old["records"]}
tunes = {(t["variant"], t["shape"]) for t in new["tune"] if t.get("complete")}
sys.exit(0 if kept and added == {"4x8x128x64:causal"} and len(tunes) == 14 and len(new["plan"]["shapes"]) == 7 else 1)
PY
head -n -1 "$T/small.grid" > "$T/shrunk.grid"
sum=$(md5sum < "$T/grown-session.json")
"$BT" tune -v fa3,mma --grid "$T/shrunk.grid" -o "$T/grown-session.json" > /dev/null 2> "$T/shrunk.err"
rc=$?
[ $rc -eq 2 ] && grep -q "its problem 8x32/8x1/4096x128:bf16 is not in this grid" "$T/shrunk.err" \
  && [ "$sum" = "$(md5sum < "$T/grown-session.json")" ] && ok "a grid that lost a problem: refused, the session left as it is" \
  || { bad "shrunk grid rc $rc"; cat "$T/shrunk.err"; }

# --- the default grid is shipped, reads, and gets as far as a worker ----------------------
FAKE_GPUS=0 BENCHTOP_WORKER=$WORKER "$BT" tune -v fa3,mma --grid default -o "$T/default.json" > /dev/null 2> "$T/default.err"
rc=$?
[ $rc -eq 3 ] && ! grep -q "skipped" "$T/default.err" && ok "--grid default: 68 problems read, every search has a space (exit 3: no GPU)" \
  || { bad "--grid default rc $rc"; cat "$T/default.err"; }
exit $fail
