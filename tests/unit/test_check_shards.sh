#!/usr/bin/env bash
# check-kernels --shard I/N: the N shards together make every build once (the same lines as one
# unsharded run, none twice), so CI can split the slow all-knobs sweep into parallel tests; a
# malformed shard is one line and exit 2.
#   test_check_shards.sh BENCHTOP
BT=${1:?usage: test_check_shards.sh BENCHTOP}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
"$BT" check-kernels -v smem -a sm_80 --all-knobs | grep -v '^check-kernels:' | sed 's/ *[0-9]* ms$//' | sort > "$T/all"
for i in 1 2 3; do
  "$BT" check-kernels -v smem -a sm_80 --all-knobs --shard $i/3 | grep -v '^check-kernels:' | sed 's/ *[0-9]* ms$//'
done | sort > "$T/shards"
if [ -s "$T/all" ] && cmp -s "$T/all" "$T/shards"; then echo "ok   3 shards make the $(wc -l < "$T/all") builds of one run, once each"
else echo "FAIL shards differ from one run"; diff "$T/all" "$T/shards"; fail=1; fi
for bad in 0/3 4/3 2/0 1/65 x/2 1/2x; do
  "$BT" check-kernels -v smem --shard "$bad" > "$T/out" 2> "$T/err"
  rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ ! -s "$T/out" ]; then echo "ok   --shard $bad: one line, exit 2"
  else echo "FAIL --shard $bad: exit $rc"; cat "$T/err"; fail=1; fi
done
exit $fail
