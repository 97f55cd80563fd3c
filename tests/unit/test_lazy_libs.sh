#!/usr/bin/env bash
# cuBLAS and libnvperf_host are loaded when first used, not linked: linked, their start-up cost
# every command (show, diff, each completion) about 0.7 s. Fails when either is linked again.
#   test_lazy_libs.sh BENCHTOP
BT=${1:?usage: test_lazy_libs.sh BENCHTOP}
needed=$(readelf -d "$BT" | awk '/NEEDED/ { print $5 }') || { echo "FAIL readelf $BT"; exit 1; }
fail=0
for lib in libcublas libcublasLt libnvperf_host; do
  if grep -q "^\[$lib\." <<< "$needed"; then echo "FAIL $lib is linked (load it on first use)"; fail=1
  else echo "ok   $lib is not linked"; fi
done
# The libraries are still found when used: the metric list of a chip goes through libnvperf_host.
if "$BT" list metrics --chip GH100 2> /dev/null | grep -q '^sm__throughput'; then
  echo "ok   list metrics --chip GH100 loads libnvperf_host"
else echo "FAIL list metrics --chip GH100 (libnvperf_host not loaded?)"; fail=1; fi
exit $fail
