#!/usr/bin/env bash
# benchtop best over a folder of 20 synthetic sessions (tests/unit/make_sessions.py): one row per
# configuration with its best p50, where and when; devices kept apart; a tie keeps the first
# session that reached it; failed records never lead; both gates give both exit codes.
BT=${1:?usage: test_best.sh BENCHTOP MAKE_SESSIONS}
MK=${2:?usage: test_best.sh BENCHTOP MAKE_SESSIONS}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
gate() { # name want_rc args...
  local name=$1 want=$2; shift 2
  "$BT" best "$@" > "$T/out.txt" 2> "$T/err.txt"
  local rc=$?
  [ $rc -eq "$want" ] && ok "$name: exit $rc" || { bad "$name: exit $rc, wanted $want"; cat "$T/err.txt"; }
}
for s in improve regress noise fail; do python3 "$MK" "$T/$s" $s; done

"$BT" best "$T/improve" --format json > "$T/lb.json" 2> "$T/err.txt" && ok "best exit 0" || { bad "best"; cat "$T/err.txt"; }
python3 - "$T/lb.json" <<'PY' || fail=1
import json, sys
rows = json.load(open(sys.argv[1]))["best"]
by = {(r["record"]["variant"], r["record"]["device"]["name"]): r for r in rows}
bad = 0
def check(c, what):
    global bad
    print(("ok   " if c else "FAIL ") + what)
    bad += not c
check(len(rows) == 3, "three configurations (mma on two GPUs, fa3): %d" % len(rows))
a = by[("mma", "NVIDIA H100 80GB HBM3")]
check(abs(a["record"]["timing"]["p50"] - 6.84) < 1e-9 and a["session"].endswith("latest/day20.json"), "mma H100: the newest 6.84 leads")
check(a["sessions"] == 20, "mma H100 measured by 20 sessions (%d)" % a["sessions"])
h = by[("mma", "NVIDIA H200")]
check(h["sessions"] == 20 and abs(h["record"]["timing"]["p50"] - 7.2 * 0.9 * 0.95) < 1e-6, "mma H200 kept apart")
b = by[("fa3", "NVIDIA H100 80GB HBM3")]
check(b["record"]["timing"]["p50"] == 190.0, "fa3: the newest 190 us (the failed 150 never leads)")
check(b["revision"] == "rev20" and b["session_created"].startswith("2026-10-20"), "revision and date of the best")
PY
python3 "$MK" "$T/tie" none
rm "$T/tie/latest/day20.json"
"$BT" best "$T/tie" > "$T/out.txt" 2>&1
grep -E "^fa3 " "$T/out.txt" | grep -q "week0/day05.json" && ok "tie: the first session to reach it (day 5, not day 9)" || { bad "tie"; cat "$T/out.txt"; }
grep -E "^mma .*H100" "$T/out.txt" | grep -q "7.20 .*day14.json.*rev14" && ok "table: best 7.20 on day 14, revision rev14" || { bad "table"; cat "$T/out.txt"; }
"$BT" best "$T/tie" --format csv | head -1 | grep -q '"best p50 us","sessions","best in","date","revision","source hash"' && ok "csv header" || bad "csv header"
"$BT" best "$T/tie" --format md | sed -n 2p | grep -q -- "---" && ok "markdown table" || bad "markdown"
# individual files work as well as folders
"$BT" best "$T/tie/week0/day05.json" "$T/tie/week1/day09.json" | grep -E "^fa3 " | grep -q " 2 " && ok "files: fa3 measured by 2 sessions" || bad "files"

gate "improve 3% when 5% faster" 0 "$T/improve" --improve 3%
gate "improve 10% when 5% faster" 1 "$T/improve" --improve 10%
gate "improve with nothing new to compare" 1 "$T/tie/week0/day01.json" --improve 1
gate "no-regress 5% when 10% slower" 1 "$T/regress" --no-regress 5%
gate "no-regress 20% when 10% slower" 0 "$T/regress" --no-regress 20
grep -q "REGRESSED" "$T/err.txt" && bad "a regression reported under 20%" || ok "nothing reported regressed under 20%"
gate "no-regress 0% on noise" 0 "$T/noise" --no-regress 0%
grep -q "tied" "$T/err.txt" && ok "noise: tied" || bad "noise not tied"
gate "no-regress when a record no longer passes" 1 "$T/fail" --no-regress 50%
gate "improve with a regression" 1 "$T/regress" --improve 3%
gate "bad percentage" 2 "$T/improve" --improve lots
echo '{"not": "a session"}' > "$T/improve/week0/junk.json"
gate "a file that is not a session" 1 "$T/improve"
grep -q "junk.json" "$T/err.txt" && ok "names the bad file" || bad "bad file not named"
exit $fail
