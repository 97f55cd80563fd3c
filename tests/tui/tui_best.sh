#!/bin/bash
# The results' best-so-far column (L): beside each record the best p50 of its configuration over
# the sessions folder (read recursively) and the open session, and where it was reached: the
# same best and place as benchtop best over the same files; a file that is not a session is
# said, not fatal; nothing is shown before L.
#   tui_best.sh BENCHTOP
BT=$1
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py" BENCHTOP_TUNED_TABLE="$TUI_TMP/tuned.json"
SD="$XDG_DATA_HOME/benchtop/sessions" OPEN="$TUI_TMP/open.json"
mkdir -p "$SD/sub"
for f in "$SD/old1.json" "$SD/sub/old2.json" "$OPEN"; do
  "$BT" run -v naive,mma -s 2x8x512x64,1x2x128x64:causal --metrics none -o "$f" >/dev/null 2>&1 ||
    fail "run -o $f"
done
echo 'not a session' > "$SD/junk.json"
# What benchtop best says, as the column writes it: variant, shape, "p50 where".
"$BT" best "$SD" "$OPEN" -f json 2>/dev/null | python3 -c '
import json, os, sys
for r in json.load(sys.stdin)["best"]:
    rec = r["record"]
    shape = "%dx%dx%dx%d" % tuple(rec["shape"][k] for k in ("B", "H", "S", "D")) if isinstance(rec["shape"], dict) else rec["shape"]
    where = "this session" if r["session"] == sys.argv[1] else os.path.basename(r["session"])
    print(rec["variant"], shape, "%.2f %s" % (rec["timing"]["p50"], where))' "$OPEN" > "$TUI_TMP/want" ||
  fail "benchtop best -f json"
[ "$(wc -l < "$TUI_TMP/want")" -eq 4 ] || { cat "$TUI_TMP/want"; fail "best gave not 4 configurations"; }
grep -q 'this session' "$TUI_TMP/want" || grep -q 'old' "$TUI_TMP/want" || fail "no place in best's answer"
tui_start 200 30 "TERM=screen-256color '$BT' '$OPEN' 2>&1; echo EXIT=\$?; sleep 600"
wait_for 'Results 4'
screen | grep -q 'best so far' && fail "a best-so-far column before L"
keys 3 L
wait_for 'best so far over 2 other session\(s\) in .*could not be read'
wait_for 'best so far'
while read -r variant shape cell; do
  screen | grep -Eq "^│ +$variant +.* $shape +pass .* ${cell//./\\.}" ||
    fail "no row $variant $shape with best so far $cell"
done < "$TUI_TMP/want"
step "each record shows benchtop best's best p50 and where, over the folder and this session"
keys '\'; keys -l 'best<1000'; keys Enter
wait_for 'Results 4 of 4'
step "the filter reaches the column by its key"
keys F10; wait_for '^EXIT=0'
no_sanitizer_report
echo PASS
