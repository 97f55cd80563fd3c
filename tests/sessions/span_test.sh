#!/usr/bin/env bash
# --span travels: run records it in the plan and every record, replay re-runs with the recorded
# span (and --span overrides it; --span 0, back to back, is stored as -1), a session without it
# carries no span_s at all (large records pause by default).
set -u
bt=$1; worker=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
export BENCHTOP_WORKER=$worker XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
fail=0
span() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["plan"]["options"].get("span_s"), *[r["options"].get("span_s") for r in s["records"]])' "$1"; }
"$bt" run -v mma -s 2x8x512x64 --span 2.5 --metrics none -o "$work/a.json" > /dev/null 2>&1 || { echo "FAIL: run --span"; fail=1; }
[ "$(span "$work/a.json")" = "2.5 2.5" ] || { echo "FAIL: run recorded '$(span "$work/a.json")'"; fail=1; }
"$bt" replay "$work/a.json" -o "$work/b.json" > /dev/null 2>&1
[ "$(span "$work/b.json")" = "2.5 2.5" ] || { echo "FAIL: replay ran '$(span "$work/b.json")'"; fail=1; }
"$bt" replay "$work/a.json" --span 4 -o "$work/c.json" > /dev/null 2>&1
[ "$(span "$work/c.json")" = "4 4" ] || { echo "FAIL: replay --span 4 ran '$(span "$work/c.json")'"; fail=1; }
"$bt" run -v mma -s 2x8x512x64 --metrics none -o "$work/d.json" > /dev/null 2>&1
[ "$(span "$work/d.json")" = "None None" ] || { echo "FAIL: a run without --span wrote '$(span "$work/d.json")'"; fail=1; }
out=$("$bt" run -v mma -s 2x8x512x64 --span 601 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "from 0 to 600" || { echo "FAIL: --span 601 gave $rc: $out"; fail=1; }
"$bt" replay "$work/a.json" --span 0 -o "$work/g.json" > /dev/null 2>&1
[ "$(span "$work/g.json")" = "-1 -1" ] || { echo "FAIL: replay --span 0 (back to back) ran '$(span "$work/g.json")'"; fail=1; }
# A hostile file's span is refused before anything runs.
python3 - "$work/a.json" "$work/e.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["plan"]["options"]["span_s"] = 1e9; json.dump(s, open(sys.argv[2], "w"))
PY
out=$("$bt" replay "$work/e.json" -o "$work/f.json" 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "span_s" && [ ! -e "$work/f.json" ] || { echo "FAIL: a span of 1e9 s gave $rc: $out"; fail=1; }
[ $fail -eq 0 ] && echo "span: PASS"
exit $fail
