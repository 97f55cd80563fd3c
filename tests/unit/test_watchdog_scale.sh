#!/usr/bin/env bash
# The watchdog scales with the kernel (scripted worker, tests/tui/fake_worker.py): a kernel whose
# launches take longer than --watchdog, but which the worker says is progressing (launch_ms),
# gives a passing record, not "hang"; a first launch that never ends is a hang after
# 6 x --watchdog, said as such; a launch that stops well past its measured time is a hang that
# names that time.
BT=${1:?usage: test_watchdog_scale.sh BENCHTOP FAKE_WORKER}
export BENCHTOP_WORKER=${2:?usage: test_watchdog_scale.sh BENCHTOP FAKE_WORKER}
R=$(dirname "$0")/../records.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache
fail=0
# Launches of 2.5 s under a 1 s watchdog: slow, healthy.
FAKE_SLOW=smem FAKE_SLOW_S=2.5 "$BT" run -v naive,smem,wmma -s 1x1x64x64 --watchdog 1 --metrics none \
  -o "$T/slow.json" > /dev/null 2> "$T/slow.err"
rc=$?
python3 "$R" expect "$T/slow.json" $rc 0 naive=pass smem=pass wmma=pass || { cat "$T/slow.err"; fail=1; }
# The first launch never ends: a hang after 6 x 1 s, named as the first launch.
t0=$(date +%s)
FAKE_HANG_FIRST=smem "$BT" run -v naive,smem,wmma -s 1x1x64x64 --watchdog 1 --metrics none \
  -o "$T/first.json" > /dev/null 2> "$T/first.err"
rc=$?
secs=$(( $(date +%s) - t0 ))
python3 "$R" expect "$T/first.json" $rc 1 naive=pass "smem=error:the first launch did not finish within 6 s" wmma=pass || fail=1
[ $secs -le 20 ] || { echo "FAIL: the first-launch hang took $secs s to catch"; fail=1; }
# Slow launches, then one that never ends: a hang naming the measured launch time.
FAKE_SLOW=smem FAKE_SLOW_S=1.5 FAKE_SLOW_HANG=1 "$BT" run -v smem -s 1x1x64x64 --watchdog 1 --metrics none \
  -o "$T/late.json" > /dev/null 2> "$T/late.err"
rc=$?
python3 "$R" expect "$T/late.json" $rc 1 "smem=error:where one launch took 1.5 s" || fail=1
[ $fail -eq 0 ] && echo "PASS watchdog scales with the kernel"
exit $fail
