#!/bin/sh
# benchtop show / diff through the real binary: formats, --best, exit codes of the regression
# gate (same file -> 0; one p50 10 % slower with --fail-above 5 -> 1), usage errors -> 2.
# Runs on a session built in code and on every sessions/examples/*.json.
# usage: diff_test.sh BENCHTOP FIXTURE_WRITER WORK_DIR EXAMPLES_DIR
set -u
bt=$1; writer=$2; work=$3; examples=$4
mkdir -p "$work" || exit 1
fail=0
expect() { # expect RC DESCRIPTION -- command...
  want=$1; what=$2; shift 3
  "$@" > "$work/out" 2> "$work/err"
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL $what: exit $rc, wanted $want"; head -c 1500 "$work/err" "$work/out"; fail=1
  else
    echo "ok   $what (exit $rc)"
  fi
}
# slower IN OUT PCT: copy with records[first timed record].timing.p50 made PCT % slower
slower() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for r in s["records"]:
    if r.get("timing", {}).get("p50") is not None and r.get("status") == "pass":
        r["timing"]["p50"] *= 1 + float(sys.argv[3]) / 100
        break
else:
    sys.exit("no passing record with a p50 in " + sys.argv[1])
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
}

"$writer" --write "$work/a.json" || exit 1
set -- "$work/a.json"
for ex in "$examples"/*.json; do [ -f "$ex" ] && set -- "$@" "$ex"; done
echo "sessions: $*"
for a in "$@"; do
  name=$(basename "$a" .json)
  b="$work/$name-slower.json"
  slower "$a" "$b" 10 || { fail=1; continue; }
  expect 0 "$name: diff against itself" -- "$bt" diff "$a" "$a" --fail-above 5
  grep -q "no change" "$work/out" || { echo "FAIL $name: diff against itself does not say 'no change'"; fail=1; }
  expect 1 "$name: one p50 +10% with --fail-above 5" -- "$bt" diff "$a" "$b" --fail-above 5
  grep -q "+10.0%" "$work/out" || { echo "FAIL $name: no +10.0% in the diff"; cat "$work/out"; fail=1; }
  expect 0 "$name: one p50 +10% with --fail-above 15" -- "$bt" diff "$a" "$b" --fail-above 15
  expect 0 "$name: one p50 +10% without a threshold" -- "$bt" diff "$a" "$b"
  expect 0 "$name: faster is no regression" -- "$bt" diff "$b" "$a" --fail-above 5
  for fmt in table json csv md; do
    expect 0 "$name: diff --format $fmt" -- "$bt" diff "$a" "$b" --format $fmt --fail-above 50
    expect 0 "$name: show --format $fmt" -- "$bt" show "$a" --format $fmt
    expect 0 "$name: show --best --format $fmt" -- "$bt" show "$a" --best --format $fmt
  done
  # show --format json writes a session benchtop reads back.
  "$bt" show "$a" --format json > "$work/again.json"
  expect 0 "$name: show --format json output loads" -- "$bt" show "$work/again.json"
  "$bt" diff "$a" "$b" --format json > "$work/diff.json"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['regressions']==0 and len(d['matched'])>0" \
    "$work/diff.json" || { echo "FAIL $name: diff --format json"; fail=1; }
done

# Sessions timed by different clocks (an events-timed example against a kernel-timestamp
# replay): p50s are compared by the CUDA events both records have, and marked. The replay's
# kernel p50 is 2 us lower (launch latency), its event p50 10 % higher: a regression, not a gain.
for ex in "$examples"/*.json; do
  [ -f "$ex" ] || continue
  name=$(basename "$ex" .json)
  python3 - "$ex" "$work/$name-kernel.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for r in s["records"]:
    t = r.get("timing") or {}
    if t.get("p50") is not None:
        t["event_p50"] = t["p50"] * 1.10
        t["p50"] = max(t["p50"] - 2.0, 0.5)
        t["source"] = "kernel"
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
  expect 1 "$name: events vs kernel clock, events +10% with --fail-above 5" -- \
    "$bt" diff "$ex" "$work/$name-kernel.json" --fail-above 5
  grep -q "+10.0%e" "$work/out" && grep -q "compared by CUDA events" "$work/out" || {
    echo "FAIL $name: mixed clocks not compared by events"; head -c 1500 "$work/out"; fail=1; }
  "$bt" diff "$ex" "$work/$name-kernel.json" --format json > "$work/mixed.json"
  python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['matched']; assert m and all(x['dp50_clock']=='events' and abs(x['dp50_pct']-10)<1e-6 for x in m if x['dp50_pct'] is not None)" \
    "$work/mixed.json" || { echo "FAIL $name: diff --format json dp50_clock"; fail=1; }
done

# A record only in one session is listed, not a regression.
python3 - "$work/a.json" "$work/fewer.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["records"] = s["records"][1:]; json.dump(s, open(sys.argv[2], "w"))
PY
expect 0 "record only in A" -- "$bt" diff "$work/a.json" "$work/fewer.json" --fail-above 5
grep -q "only in A" "$work/out" || { echo "FAIL: 'only in A' not listed"; fail=1; }

# --best keeps one record per shape, the fastest passing one.
"$bt" show "$work/a.json" --best --format csv > "$work/best.csv"
python3 - "$work/best.csv" <<'PY' || { echo "FAIL --best"; cat "$work/best.csv"; fail=1; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
# The fixture: mma0 (4.12 us) and mma2 (6.12 us) pass at 4x16x2048x128; mma1 fails (causal).
assert [r["variant"] for r in rows] == ["mma0"], rows
PY

expect 2 "show without a file" -- "$bt" show
expect 2 "show with a bad format" -- "$bt" show "$work/a.json" --format xml
expect 2 "diff with one file" -- "$bt" diff "$work/a.json"
expect 2 "diff with a bad threshold" -- "$bt" diff "$work/a.json" "$work/a.json" --fail-above abc
expect 1 "show a missing file" -- "$bt" show "$work/nope.json"
expect 1 "diff with a missing file" -- "$bt" diff "$work/a.json" "$work/nope.json"
exit $fail
