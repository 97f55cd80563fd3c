#!/usr/bin/env bash
# Bad problems on the command line: every malformed or inconsistent problem string, and a
# problem no variant asked for can run, is one line on stderr and exit 2, before any worker
# starts (the worker here is the scripted one behind a wrapper that leaves a mark when started);
# the whole problem survives run, shards, merge and replay.
#   test_problems_cli.sh BENCHTOP FAKE_WORKER
BT=${1:?usage: test_problems_cli.sh BENCHTOP FAKE_WORKER} FAKE=${2:?}
"$BT" --version | grep -q "viewer build" && { echo "viewer build: run needs a GPU build"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=$tmp/cache XDG_CONFIG_HOME=$tmp/config
mark=$tmp/worker-started
printf '#!/bin/sh\ntouch "%s"\nexec "%s" "$@"\n' "$mark" "$FAKE" > "$tmp/worker"
chmod +x "$tmp/worker"
export BENCHTOP_WORKER=$tmp/worker
fail=0
expect() { # name want_rc want_text cmd...
  local name=$1 want=$2 text=$3; shift 3
  rm -f "$mark"
  local err rc n
  err=$("$@" 2>&1 >/dev/null); rc=$?
  n=$(printf '%s' "$err" | grep -c '')
  if [ $rc -ne "$want" ] || [ "$n" -ne 1 ] || ! printf '%s' "$err" | grep -qF -- "$text" || [ -e "$mark" ]; then
    echo "FAIL $name: exit $rc (want $want), $n lines, worker started: $([ -e "$mark" ] && echo yes || echo no): $err"
    fail=1
  else
    echo "ok   $name: $err"
  fi
}
for cmd in run tune; do
  expect "$cmd-gqa-ratio" 2 "Hq (32) must be a multiple of Hkv (5)" "$BT" $cmd -v mma -s 8x32/5x1/8192x128:bf16 -o "$tmp/o.json"
  expect "$cmd-sq-over-skv" 2 "Sq (512) must not exceed Skv (256)" "$BT" $cmd -v mma -s 2x8x512/256x64:causal -o "$tmp/o.json"
  expect "$cmd-d-range" 2 "D (24) must be a multiple of 8 from 32 to 256" "$BT" $cmd -v mma -s 2x8x512x24 -o "$tmp/o.json"
  expect "$cmd-d-odd" 2 "D (100) must be a multiple of 8" "$BT" $cmd -v mma -s 2x8x512x100 -o "$tmp/o.json"
  expect "$cmd-suffix" 2 "unknown suffix ':fp32'" "$BT" $cmd -v mma -s 2x8x512x64:fp32 -o "$tmp/o.json"
  expect "$cmd-repeat" 2 "repeats :causal" "$BT" $cmd -v mma -s 2x8x512x64:causal:causal -o "$tmp/o.json"
  expect "$cmd-dtypes" 2 "repeats the dtype" "$BT" $cmd -v mma -s 2x8x512x64:bf16:fp16 -o "$tmp/o.json"
  expect "$cmd-list" 2 "Hkv must be between" "$BT" $cmd -v mma -s 2x8x512x64,2x8/0x1x64 -o "$tmp/o.json"
done
# A problem every variant asked for refuses (a head dimension none of them declares).
expect run-unsupported 2 "no variant asked for runs 1x1x64x32: naive refuses it" \
  "$BT" run -v naive,smem -s 2x8x512x64,1x1x64x32 -o "$tmp/o.json"
expect tune-unsupported 2 "smem at 1x1x64x32: all 2 knob combinations are refused" \
  "$BT" tune -v smem -s 1x1x64x32 -o "$tmp/o.json"
# One variant that can run it is enough: the others' refusals are records with their reasons.
rm -f "$mark"
"$BT" run -v naive,cudnn -s 1x1x64x32 -o "$tmp/ok.json" >/dev/null 2>"$tmp/err" ||
  { echo "FAIL run-one-supports: $(cat "$tmp/err")"; fail=1; }
[ -e "$mark" ] || { echo "FAIL run-one-supports: no worker started"; fail=1; }
# A problem the variant runs with other knobs than its defaults (D = 256: mma's and fa3's
# defaults do not fit the registers there): a plain run and --knob auto run it with the first
# declared preset that fits, and the record says so; knobs given that refuse it stay an n/a
# record of the worker's, not a usage error.
for k in plain auto; do
  rm -f "$mark"
  args=(); [ $k = auto ] && args=(--knob auto)
  "$BT" run -v mma,fa3 -s 1x16x3072x256:causal "${args[@]}" --metrics none -o "$tmp/d256-$k.json" >/dev/null 2>"$tmp/err"
  rc=$?
  if [ $rc -eq 0 ] && [ -e "$mark" ] && python3 - "$tmp/d256-$k.json" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
want = {"mma": "block_n=32", "fa3": "block_n=64"}
sys.exit(0 if len(recs) == 2 and all(want[r["variant"]] in r["knobs"] and
                                     r.get("knobs_auto", "").startswith("declared preset ") and
                                     "the defaults refuse this problem" in r["knobs_auto"] for r in recs) else 1)
PY
  then echo "ok   d256-$k: ran with a declared preset that fits"
  else echo "FAIL d256-$k: exit $rc: $(head -c 400 "$tmp/err")"; fail=1; fi
done
rm -f "$mark"
"$BT" run -v mma -s 1x16x3072x256:causal --knob block_n=64 --metrics none -o "$tmp/d256-given.json" >/dev/null 2>"$tmp/err" &&
  [ -e "$mark" ] && echo "ok   d256-given: knobs that refuse it go to the worker" ||
  { echo "FAIL d256-given: $(head -c 400 "$tmp/err")"; fail=1; }
# The whole problem through run, shards, merge and replay: every record keeps it.
P='4x32/8x1/4096x128:bf16,2x32/8x512/4096x128:causal:bf16'
"$BT" run -v mma -s "$P" --metrics none -o "$tmp/full.json" >/dev/null 2>"$tmp/err" &&
  "$BT" run -v mma -s "$P" --metrics none --shard 1/2 -o "$tmp/s1.json" >/dev/null 2>>"$tmp/err" &&
  "$BT" run -v mma -s "$P" --metrics none --shard 2/2 -o "$tmp/s2.json" >/dev/null 2>>"$tmp/err" &&
  "$BT" merge -o "$tmp/merged.json" "$tmp/s1.json" "$tmp/s2.json" >/dev/null 2>>"$tmp/err" &&
  "$BT" replay "$tmp/full.json" -o "$tmp/replayed.json" >/dev/null 2>>"$tmp/err" ||
  { echo "FAIL run/shard/merge/replay of $P: $(head -c 600 "$tmp/err")"; fail=1; }
for f in full merged replayed; do
  got=$("$BT" show "$tmp/$f.json" --format csv 2>/dev/null | python3 -c '
import csv, sys
print(",".join(r["shape"] for r in csv.DictReader(sys.stdin)))')
  if [ "$got" = "$P" ]; then echo "ok   $f session holds $got"
  else echo "FAIL $f session holds '$got', not '$P'"; fail=1; fi
done
exit $fail
