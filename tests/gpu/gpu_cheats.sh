#!/usr/bin/env bash
# Kernels that cheat (tests/gpu/cheats/, never shipped; each is row_attention.cuh, a correct
# attention, plus its cheat): one that changes its input Q, one that writes 8 bytes past the end
# of O, one 2 bytes before it, one that computes only on its first (verified) launch, one that
# changes K only during the timed launches. Each fails, named for what it did (never blamed on
# the output's accuracy); the honest control passes, and a built-in variant run after each
# cheat passes (its inputs and neighbours were set up anew).
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
K="$OUTDIR/cheat-kernels"
mkdir -p "$K"
for f in "$HERE"/cheats/cheat_*.cu; do
  cat "$HERE/cheats/row_attention.cuh" "$f" > "$K/$(basename "$f")"
done
export BENCHTOP_EXTRA_KERNELS="$K"
V=cheat_none,cheat_input,naive,cheat_past_end,smem,cheat_before,swizzle,cheat_once,cp_async,cheat_timed_input,wmma
"$BT" run -v "$V" -s 1x2x256x64 --reps 5 --warmup 2 --metrics none --watchdog 20 --format json \
  -o "$OUTDIR/cheats.json" > /dev/null 2> "$OUTDIR/cheats.err"
rc=$?
echo "benchtop run exit code: $rc (expected 1)"
python3 - "$OUTDIR/cheats.json" $rc <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
want = [("cheat_none", "pass", ""), ("cheat_input", "fail", "modified its input Q"),
        ("naive", "pass", ""), ("cheat_past_end", "fail", "wrote 8 bytes past the end of O"),
        ("smem", "pass", ""), ("cheat_before", "fail", "wrote 2 bytes before the start of O"),
        ("swizzle", "pass", ""),
        ("cheat_once", "fail", "the timed launches left 32768 of 32768 output elements unwritten"),
        ("cp_async", "pass", ""),
        ("cheat_timed_input", "fail", "modified its input K during the timed launches"),
        ("wmma", "pass", "")]
bad = 0
for i, (v, st, why) in enumerate(want):
    r = recs[i] if i < len(recs) else None
    ok = (r is not None and r["variant"] == v and r["status"] == st and why in r.get("reason", "")
          and "verification failed" not in r.get("reason", ""))
    bad += not ok
    print("%s %-17s %-6s %s" % ("ok  " if ok else "FAIL", v, r["status"] if r else "missing",
                                r.get("reason", "") if r else ""))
if len(recs) != len(want):
    print("FAIL %d records, want %d" % (len(recs), len(want))); bad += 1
if int(sys.argv[2]) != 1:
    print("FAIL exit code %s, expected 1" % sys.argv[2]); bad += 1
print("cheats: every record as expected" if not bad else "cheats: %d problem(s)" % bad)
sys.exit(1 if bad else 0)
PY
