#!/usr/bin/env bash
# compare_builds.py on one small variant: a copy of kernels/ compares equal (exit 0, identical
# resources, SASS and PTX); a copy whose naive.cu holds one more entry compares different
# (exit 1, resources and SASS entries named). Usage: test_compare_builds.sh BUILD_DIR
set -u
BUILD=${1:?usage: test_compare_builds.sh BUILD_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cp -r "$HERE/../../kernels" "$TMP/same"
cp -r "$HERE/../../kernels" "$TMP/changed"
printf '\nextern "C" __global__ void extra_entry(float *x) { x[threadIdx.x] += 1.f; }\n' >> "$TMP/changed/naive.cu"
fail=0
out=$(python3 "$HERE/compare_builds.py" --build "$BUILD" --base "$TMP/same" --variant naive --arch sm_80 2>&1); rc=$?
echo "$out" | tail -n 3
if [ $rc -ne 0 ] || ! echo "$out" | grep -q "2 builds compared.*ptx identical 2, res same 2, sass identical 2"; then
  echo "FAIL: an identical copy did not compare identical (rc $rc)"; fail=1
fi
out=$(python3 "$HERE/compare_builds.py" --build "$BUILD" --base "$TMP/same" --head "$TMP/changed" --variant naive --arch sm_80 2>&1); rc=$?
echo "$out" | tail -n 3
if [ $rc -ne 1 ] || ! echo "$out" | grep -q "res DIFFERENT" || ! echo "$out" | grep -q "entries differ"; then
  echo "FAIL: a changed copy did not compare different (rc $rc)"; fail=1
fi
[ $fail -eq 0 ] && echo "compare_builds: 2 checks, 0 failed"
exit $fail
