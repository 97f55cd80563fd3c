#!/usr/bin/env bash
# SIGKILL in the middle of a plan leaves a valid session holding every finished record.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
S="$OUTDIR/killed.json"
rm -f "$S"
"$BT" run -v naive,smem,swizzle,cp_async,wmma_qk,wmma,mma -s 2x8x1024x64,2x8x2048x64 --reps 200 --metrics none \
   -o "$S" > /dev/null 2> "$OUTDIR/kill.err" &
pid=$!
python3 "$HERE/../records.py" wait "$S" 3 20
kill -9 $pid; wait $pid 2>/dev/null
pkill -9 -f "benchtop worker" 2>/dev/null
"$BT" show "$S" > "$OUTDIR/kill-show.txt" 2>&1; rc=$?
n=$(python3 "$HERE/../records.py" count "$S")
echo "after SIGKILL: show exit $rc, $n records kept"
[ $rc -eq 0 ] && [ "$n" -ge 3 ] && ls "$OUTDIR"/killed.json.tmp.* 2>/dev/null | wc -l | grep -q '^0$' && echo "PASS gpu_kill" && exit 0
echo "FAIL gpu_kill"; exit 1
