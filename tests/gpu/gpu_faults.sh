#!/usr/bin/env bash
# Deliberately broken kernels (tests/gpu/kernels/, never shipped): an out-of-bounds write, a
# trap, an endless loop, and a wrong result each end their record with the right reason, the
# worker is replaced, and the records after them still run.
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
export BENCHTOP_EXTRA_KERNELS="$HERE/kernels"
"$BT" run -v test_oob,naive,test_trap,test_hang,test_wrong,swizzle -s 1x2x256x64 --reps 3 --warmup 1 \
   --metrics none --watchdog 3 --format json -o "$OUTDIR/faults.json" > /dev/null 2> "$OUTDIR/faults.err"
rc=$?
echo "benchtop run exit code: $rc (expected 1)"
python3 "$HERE/../records.py" expect "$OUTDIR/faults.json" $rc 1 test_oob=error:cudaErrorIllegalAddress \
  naive=pass test_trap=error test_hang=error:watchdog "test_wrong=fail:verification failed" swizzle=pass
