#!/usr/bin/env bash
# The runner's fault handling without a GPU, through `benchtop run` and a scripted worker
# (tests/tui/fake_worker.py): a worker that exits mid-record costs that record ("worker
# exited"), one that stops answering is killed by the watchdog, a fresh worker takes the rest,
# every record reaches the session, and the exit code is 1.
BT=${1:?usage: test_runner_faults.sh BENCHTOP FAKE_WORKER}
export BENCHTOP_WORKER=${2:?usage: test_runner_faults.sh BENCHTOP FAKE_WORKER}
export FAKE_CRASH=smem FAKE_HANG=swizzle
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache
t0=$(date +%s)
"$BT" run -v naive,smem,cp_async,swizzle,wmma -s 1x1x64x64 --watchdog 2 --metrics none --format json \
  -o "$T/s.json" > "$T/out.json" 2> "$T/err.txt"
rc=$?
echo "exit $rc after $(( $(date +%s) - t0 )) s"
python3 "$(dirname "$0")/../records.py" expect "$T/s.json" $rc 1 naive=pass "smem=error:worker exited" \
  cp_async=pass swizzle=error:watchdog wmma=pass || exit 1

# Ctrl-C in the middle of a plan: the finished records stay, the one in flight is cancelled,
# nothing after it runs, exit code 130.
export FAKE_CRASH= FAKE_HANG=cp_async
"$BT" run -v naive,smem,cp_async,wmma -s 1x1x64x64 --watchdog 60 --metrics none \
  -o "$T/c.json" > /dev/null 2> "$T/cerr.txt" &
pid=$!
python3 "$(dirname "$0")/../records.py" wait "$T/c.json" 2 10
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
echo "after Ctrl-C: exit $rc; $(cat "$T/cerr.txt" | tr '\n' ' ')"
python3 - "$T/c.json" $rc <<'PY'
import json, sys
recs = [(r["variant"], r["status"]) for r in json.load(open(sys.argv[1]))["records"]]
print(recs)
ok = recs == [("naive", "pass"), ("smem", "pass"), ("cp_async", "cancelled")] and int(sys.argv[2]) == 130
print("PASS runner cancel" if ok else "FAIL runner cancel")
sys.exit(0 if ok else 1)
PY
