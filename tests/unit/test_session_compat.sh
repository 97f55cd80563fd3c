#!/usr/bin/env bash
# Session files stay byte-compatible: the same plan, run through `benchtop run` on the scripted
# worker (tests/tui/fake_worker.py) and again through `benchtop replay` of that session, writes
# what session_compat.golden.json holds (recorded before the knob settings got one typed form),
# up to timestamps, timings and the host's name. Knob sweeps in both orders, a variant without
# knobs and a causal shape go through the CLI, the plan's JSON, the wire and the records.
# Regenerate the golden file only for a deliberate format change: test_session_compat.sh BT WORKER --write
BT=${1:?usage: test_session_compat.sh BENCHTOP FAKE_WORKER [--write]}
export BENCHTOP_WORKER=${2:?usage: test_session_compat.sh BENCHTOP FAKE_WORKER [--write]}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache XDG_CONFIG_HOME=$T/config
"$BT" run -v naive,mma,cp_async -s 1x1x64x64,1x2x128x64:causal --knob stages=3,2 \
  --knob block_m=64,128 --metrics none --seed 7 -o "$T/run.json" > /dev/null 2> "$T/err.txt" ||
  { echo "FAIL: run: $(cat "$T/err.txt")"; exit 1; }
"$BT" replay "$T/run.json" -o "$T/replay.json" > /dev/null 2> "$T/err.txt" ||
  { echo "FAIL: replay: $(cat "$T/err.txt")"; exit 1; }
python3 - "$T/run.json" "$T/replay.json" "$HERE/session_compat.golden.json" "${3:-}" <<'PY'
import json, sys
from collections import OrderedDict

def normal(path):
    # Key order and every value but the clock-, timing- and host-dependent ones, as written.
    d = json.load(open(path), object_pairs_hook=OrderedDict)
    def blank(o):
        if isinstance(o, dict):
            for k in list(o):
                if k in ("created", "host", "revision", "timing", "seed", "p50_us", "gap_before_us", "share", "x_floor") or \
                        k.endswith("_ms") or k.startswith("achieved_"):
                    o[k] = "*"
                else:
                    blank(o[k])
        elif isinstance(o, list):
            for x in o:
                blank(x)
    blank(d)
    return d

run, replay, golden, write = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
got = {"run": normal(run), "replay": normal(replay)}
text = json.dumps(got, indent=1) + "\n"
if write == "--write":
    open(golden, "w").write(text)
    print("wrote", golden)
    sys.exit(0)
want = open(golden).read()
if text != want:
    import difflib
    sys.stdout.writelines(list(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                                    "golden", "now"))[:80])
    print("FAIL: the sessions differ from the golden file (beyond timestamps and timings)")
    sys.exit(1)
print("PASS session files unchanged (run and replay)")
PY
