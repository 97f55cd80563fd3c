#!/usr/bin/env bash
# Kernels that cheat (tests/gpu/cheats/, never shipped; each is row_attention.cuh, a correct
# attention, plus its cheat): one that changes its input Q, one that writes 8 bytes past the end
# of O, one 2 bytes before it, one that computes only on its first (verified) launch, one that
# changes K only during the timed launches, three that compute on one launch in 2, 8 and 64
# (under the default protocol, --cold-l2 and --graph). Each fails, named for what it did (never blamed on
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
for n in 2 8 64; do
  { cat "$HERE/cheats/row_attention.cuh"; echo "#define CHEAT_EVERY $n"; cat "$HERE/cheats/every_n.cuh"; } > "$K/cheat_every_$n.cu"
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
first=$?
# Skipped work under each protocol: one launch in N computes; the control and built-ins pass.
# The two shapes differ in D, so each cheat is a fresh module whose launch count starts at its
# verification launch.
EV=cheat_none,cheat_every_2,mma,cheat_every_8,fa3,cheat_every_64,wmma
every=0
for proto in default --cold-l2 --graph; do
  extra=(); [ "$proto" != default ] && extra=("$proto")
  "$BT" run -v "$EV" -s 1x2x256x64,2x8x512x128:causal --reps 50 --warmup 3 --metrics none --watchdog 20 \
    "${extra[@]}" --format json -o "$OUTDIR/every-${proto#--}.json" > /dev/null 2> "$OUTDIR/every-${proto#--}.err"
  rc=$?
  python3 - "$OUTDIR/every-${proto#--}.json" $rc "$proto" <<'PY2' || every=1
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
bad = 0
for r in recs:
    v = r["variant"]
    cheat = v.startswith("cheat_every")
    ok = (r["status"] == "fail" and "did not all compute" in r.get("reason", "")) if cheat else r["status"] == "pass"
    bad += not ok
    print("%s %-8s %-15s %-40s %-6s %s" % ("ok  " if ok else "FAIL", sys.argv[3], v, str(r["shape"])[:40], r["status"], r.get("reason", "")[:150]))
if len(recs) != 14 or int(sys.argv[2]) != 1:
    print("FAIL %d records (want 14), exit %s (want 1)" % (len(recs), sys.argv[2])); bad += 1
sys.exit(1 if bad else 0)
PY2
done
[ $first -eq 0 ] && [ $every -eq 0 ]
