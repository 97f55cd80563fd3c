#!/usr/bin/env bash
# Configuring against a CUDA toolkit older than the minimum fails in one clear line. No old
# toolkit is installable here, so a fake toolkit root reports one: include/cuda.h with only
# CUDA_VERSION in it (what meson.build reads).
#   toolkit_version_test.sh SOURCE_ROOT
set -u
src=${1:?usage: toolkit_version_test.sh SOURCE_ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

fake_toolkit() { # dir version
  mkdir -p "$1/include" "$1/lib64"
  printf '#define CUDA_VERSION %s\n' "$2" > "$1/include/cuda.h"
}

# 12.4 and 11.8: refused, naming the found version, the minimum and where it looked.
for v in 12060:12.6 12040:12.4 11080:11.8; do
  num=${v%%:*} name=${v#*:}
  fake_toolkit "$tmp/cuda-$name" "$num"
  out=$(meson setup "$tmp/build-$name" "$src" -Dtoolkit_root="$tmp/cuda-$name" 2>&1)
  rc=$?
  errors=$(printf '%s\n' "$out" | grep -c 'ERROR')
  line=$(printf '%s\n' "$out" | grep 'ERROR')
  if [ $rc -eq 0 ]; then
    echo "FAIL: CUDA $name was accepted"; fail=1
  elif [ "$errors" -ne 1 ] || ! printf '%s' "$line" | grep -q "is $name; benchtop needs CUDA >= 12.8" ||
       ! printf '%s' "$line" | grep -qF "$tmp/cuda-$name"; then
    echo "FAIL: CUDA $name: expected one line naming $name and 12.8, got:"; printf '%s\n' "$out" | tail -5
    fail=1
  else
    echo "ok: CUDA $name refused: ${line#*ERROR: }"
  fi
done

# The minimum itself passes the version check (and then fails on the missing libraries, which
# is not this test's business: only that the refusal above is the version's).
fake_toolkit "$tmp/cuda-12.8" 12080
out=$(meson setup "$tmp/build-12.8" "$src" -Dtoolkit_root="$tmp/cuda-12.8" 2>&1)
if printf '%s' "$out" | grep -q 'benchtop needs CUDA'; then
  echo "FAIL: CUDA 12.8 was refused as too old"; fail=1
else
  echo "ok: CUDA 12.8 passes the version check"
fi
exit $fail
