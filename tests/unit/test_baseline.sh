#!/usr/bin/env bash
# The cudnn baseline without a GPU, through the scripted worker: run --baseline cudnn adds the
# cudnn records a plan lacks (once), show/export give every record of a problem with a cudnn
# record its ratio to it (vs cudnn), a session without one has no such column; and the cudnn
# variant is listed as unavailable, with the reason, in a build without cuDNN or with its library
# hidden (BENCHTOP_CUDNN_LIBRARY pointing nowhere).
BT=${1:?usage: test_baseline.sh BENCHTOP FAKE_WORKER HAVE_CUDNN}
export BENCHTOP_WORKER=${2:?usage: test_baseline.sh BENCHTOP FAKE_WORKER HAVE_CUDNN}
HAVE_CUDNN=${3:?usage: test_baseline.sh BENCHTOP FAKE_WORKER HAVE_CUDNN}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache BENCHTOP_TUNED_TABLE=$T/tuned.json
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

"$BT" run -v naive,mma -s 2x8x512x64,1x2x128x64:causal --baseline cudnn --metrics none \
  -o "$T/b.json" > "$T/run.txt" 2> "$T/err.txt" && ok "run --baseline exit 0" || { bad "run --baseline"; cat "$T/err.txt"; }
"$BT" show "$T/b.json" > "$T/show.txt" 2>&1
"$BT" show "$T/b.json" -f csv > "$T/show.csv" 2>&1
"$BT" show "$T/b.json" -f md > "$T/show.md" 2>&1
grep -q "vs cudnn" "$T/show.txt" && ok "show: a vs cudnn column" || { bad "show: no vs cudnn column"; cat "$T/show.txt"; }
grep -q "| vs cudnn |" "$T/show.md" && ok "markdown: a vs cudnn column" || bad "markdown: no vs cudnn column"
python3 - "$T/b.json" "$T/show.csv" <<'PY' || fail=1
import csv, json, math, sys
recs = json.load(open(sys.argv[1]))["records"]
rows = list(csv.DictReader(open(sys.argv[2])))
bad = 0
def check(cond, what):
    global bad
    print(("ok   " if cond else "FAIL ") + what)
    bad += not cond
cud = {r["shape"]: r for r in recs if r["variant"] == "cudnn"}
check(len([r for r in recs if r["variant"] == "cudnn"]) == 2, "one cudnn record per shape added")
check(len(recs) == 6, "6 records (naive, mma, cudnn x 2 shapes): %d" % len(recs))
check(len(rows) == len(recs) and all("vs_cudnn" in r for r in rows), "csv: a vs_cudnn field on every row")
for r in rows:
    want = float(r["p50_us"]) / float(cud[r["shape"]]["timing"]["p50"])
    got = float(r["vs_cudnn"])
    check(math.isclose(got, want, rel_tol=1e-9), "%s %s: vs_cudnn %.4f = p50 / cudnn p50 %.4f" % (r["variant"], r["shape"], got, want))
sys.exit(1 if bad else 0)
PY

# diff: B's ratio to B's cudnn record
"$BT" diff "$T/b.json" "$T/b.json" > "$T/diff.txt" 2>&1
grep -q "B vs cudnn" "$T/diff.txt" && grep -Eq "^naive .* 1\.[0-9][0-9]x$|^naive .* 0\.[0-9][0-9]x$" "$T/diff.txt" \
  && ok "diff: a B vs cudnn column" || { bad "diff: no B vs cudnn column"; cat "$T/diff.txt"; }

# --baseline with the baseline already in the plan: no second set of records
"$BT" run -v cudnn,naive -s 2x8x512x64 --baseline cudnn --metrics none -o "$T/c.json" > /dev/null 2>&1
n=$(python3 -c "import json,sys; print(sum(r['variant']=='cudnn' for r in json.load(open(sys.argv[1]))['records']))" "$T/c.json")
[ "$n" = 1 ] && ok "--baseline adds no duplicate" || bad "--baseline duplicated cudnn: $n records"

# a session without a cudnn record: no column
"$BT" run -v naive -s 2x8x512x64 --metrics none -o "$T/n.json" > /dev/null 2>&1
"$BT" show "$T/n.json" > "$T/n.txt" 2>&1; "$BT" show "$T/n.json" -f csv > "$T/n.csv" 2>&1
"$BT" diff "$T/n.json" "$T/n.json" > "$T/ndiff.txt" 2>&1
if grep -q "vs cudnn" "$T/n.txt" || grep -q "vs_cudnn" "$T/n.csv" || grep -q "vs cudnn" "$T/ndiff.txt"; then bad "a column without a baseline"; else ok "no column without a baseline"; fi

# an unknown baseline: one line, usage exit
"$BT" run -v naive -s 2x8x512x64 --baseline nosuch --metrics none -o "$T/x.json" > "$T/x.out" 2> "$T/x.err"
rc=$?
[ $rc -eq 2 ] && grep -q "unknown variant 'nosuch'" "$T/x.err" && ok "unknown baseline refused" || { bad "unknown baseline: rc $rc"; cat "$T/x.err"; }

# unavailable: a build without cuDNN says so; a build with it says so when the library is hidden
if [ "$HAVE_CUDNN" = 0 ]; then
  "$BT" list variants cudnn > "$T/l.txt" 2>&1
  grep -q "unavailable: built without cuDNN" "$T/l.txt" && ok "built without cuDNN: listed as unavailable" || { bad "no unavailable line"; cat "$T/l.txt"; }
else
  BENCHTOP_CUDNN_LIBRARY=$T/none/libcudnn.so.9 "$BT" list variants cudnn > "$T/l.txt" 2>&1
  [ "$(grep -c unavailable "$T/l.txt")" = 1 ] && grep -q "unavailable: cannot load BENCHTOP_CUDNN_LIBRARY" "$T/l.txt" \
    && ok "library hidden: one unavailable line" || { bad "library hidden: no unavailable line"; cat "$T/l.txt"; }
fi
exit $fail
