#!/usr/bin/env bash
# The referee of gpu_tune.sh: each contender of a tune (tune_report.py --contenders: the
# exhaustive best and the strategy's pick of every shape) and --knob auto, measured again in
# ROUNDS interleaved rounds (A B auto, A B auto, ...) with fresh inputs each time, so that the
# 2 % verdicts rest on medians over rounds rather than on one record each taken minutes apart
# at another SM clock. Appends to OUTDIR/ref-TAG.json and OUTDIR/refauto-TAG.json.
#   tune_referee.sh BENCHTOP OUTDIR TAG VARIANT REPS [ROUNDS]
set -u
BT=$1 OUTDIR=$2 TAG=$3 V=$4 REPS=$5 ROUNDS=${6:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
list=$OUTDIR/contenders-$TAG.txt
python3 "$HERE/tune_report.py" --contenders "$OUTDIR" "$TAG" > "$list" || exit 1
[ -s "$list" ] || { echo "tune_referee: no contenders for $TAG"; exit 1; }
shapes=$(cut -f1 "$list" | sort -u)
fail=0
for ((r = 1; r <= ROUNDS; r++)); do
  while IFS=$'\t' read -r shape knobs; do
    args=()
    IFS=, read -ra kv <<< "$knobs"
    for x in "${kv[@]}"; do args+=(--knob "$x"); done
    "$BT" run -v "$V" -s "$shape" "${args[@]}" --metrics none --reps "$REPS" \
      --append -o "$OUTDIR/ref-$TAG.json" < /dev/null > /dev/null || fail=1
  done < "$list"
  for shape in $shapes; do
    "$BT" run -v "$V" -s "$shape" --knob auto --metrics none --reps "$REPS" \
      --append -o "$OUTDIR/refauto-$TAG.json" < /dev/null > /dev/null || fail=1
  done
  echo "round $r of $ROUNDS done"
done
exit $fail
