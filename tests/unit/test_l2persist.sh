#!/usr/bin/env bash
# --l2-persist through the scripted worker (no GPU: the window itself is tests/gpu/gpu_l2persist.sh's):
# parsed on run, replay and tune, recorded in the plan's and each record's options, kept by replay
# unless replay is given another, a session's bad value refused before anything runs, shown under
# show's table, and a configuration of its own in best.
BT=${1:?usage: test_l2persist.sh BENCHTOP FAKE_WORKER}
export BENCHTOP_WORKER=${2:?usage: test_l2persist.sh BENCHTOP FAKE_WORKER}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HOME=$T XDG_CONFIG_HOME=$T/config XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache BENCHTOP_TUNED_TABLE=$T/tuned.json
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
opts() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["plan"]["options"].get("l2_persist"), *[r["options"].get("l2_persist") for r in d["records"]])' "$1"; }

"$BT" run -v mma -s 2x8x512x64 --l2-persist kv --metrics none -o "$T/kv.json" > "$T/out.txt" 2>&1 \
  && [ "$(opts "$T/kv.json")" = "kv kv" ] && ok "run --l2-persist kv: recorded in plan and record" || { bad "run kv: $(opts "$T/kv.json")"; cat "$T/out.txt"; }
"$BT" run -v mma -s 2x8x512x64 --metrics none -o "$T/off.json" > /dev/null 2>&1 \
  && [ "$(opts "$T/off.json")" = " " ] && ok "without it: nothing recorded (off)" || bad "off: '$(opts "$T/off.json")'"
for w in kvq KV "" all; do
  "$BT" run -v mma -s 2x8x512x64 --l2-persist "$w" --metrics none -o "$T/bad.json" > "$T/out.txt" 2>&1
  [ $? -eq 2 ] && [ ! -e "$T/bad.json" ] && ok "--l2-persist '$w': usage error" || { bad "--l2-persist '$w' accepted"; rm -f "$T/bad.json"; }
done
"$BT" show "$T/kv.json" | grep -q "timed with a persisting L2 window (--l2-persist kv)" && ok "show says it" || bad "show"
"$BT" show "$T/off.json" | grep -q "persisting" && bad "show mentions it for off" || ok "show is silent when off"

"$BT" replay "$T/kv.json" -o "$T/r1.json" > /dev/null 2>&1; [ "$(opts "$T/r1.json")" = "kv kv" ] && ok "replay keeps kv" || bad "replay: $(opts "$T/r1.json")"
"$BT" replay "$T/kv.json" --l2-persist off -o "$T/r2.json" > /dev/null 2>&1; [ "$(opts "$T/r2.json")" = " " ] && ok "replay --l2-persist off overrides" || bad "replay off: $(opts "$T/r2.json")"
"$BT" replay "$T/off.json" --l2-persist qkv -o "$T/r3.json" > /dev/null 2>&1; [ "$(opts "$T/r3.json")" = "qkv qkv" ] && ok "replay --l2-persist qkv" || bad "replay qkv: $(opts "$T/r3.json")"

python3 - "$T/kv.json" "$T/hostile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["plan"]["options"]["l2_persist"] = "zz"
json.dump(d, open(sys.argv[2], "w"))
PY
"$BT" replay "$T/hostile.json" -o "$T/h.json" > "$T/out.txt" 2>&1
[ $? -eq 1 ] && grep -q 'options.l2_persist is "zz": must be kv, q, qkv or off' "$T/out.txt" && [ ! -s "$T/h.json" ] \
  && ok "a session's bad value: refused before anything runs" || { bad "hostile value"; cat "$T/out.txt"; }

FAKE_TUNE=1 "$BT" tune -v mma -s 2x8x512x64 --budget 3 --l2-persist q --metrics none -o "$T/tune.json" > /dev/null 2>&1
python3 -c 'import json,sys; rs=json.load(open(sys.argv[1]))["records"]; sys.exit(0 if rs and all(r["options"].get("l2_persist")=="q" for r in rs) else 1)' "$T/tune.json" \
  && ok "tune --l2-persist q: every record" || bad "tune"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])) if __import__("os").path.exists(sys.argv[1]) else {}; sys.exit(1 if "2x8x512x64" in json.dumps(t) else 0)' "$BENCHTOP_TUNED_TABLE" \
  && ok "tune --l2-persist: nothing goes into the tuned table" || bad "tuned table took an l2-persist winner"

"$BT" best "$T/kv.json" "$T/off.json" > "$T/out.txt" 2>&1
[ "$(grep -c '^mma ' "$T/out.txt")" = 2 ] && grep -q "l2-persist=kv" "$T/out.txt" && ok "best: kv and off are two configurations" || { bad "best"; cat "$T/out.txt"; }
"$BT" run --help | grep -q -- "--l2-persist TENSORS" && ok "run --help lists it" || bad "help"
exit $fail
