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
python3 - "$T/s.json" $rc <<'PY'
import json, sys
recs = {r["variant"]: r for r in json.load(open(sys.argv[1]))["records"]}
want = {"naive": ("pass", ""), "smem": ("error", "worker exited"), "cp_async": ("pass", ""),
        "swizzle": ("error", "watchdog"), "wmma": ("pass", "")}
bad = 0
for v, (st, why) in want.items():
    r = recs.get(v)
    ok = r is not None and r["status"] == st and why in r.get("reason", "")
    bad += not ok
    print("%s %-9s %s %s" % ("ok  " if ok else "FAIL", v, r["status"] if r else "missing", (r or {}).get("reason", "")))
if int(sys.argv[2]) != 1: print("FAIL exit code %s, expected 1" % sys.argv[2]); bad += 1
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || exit 1

# Ctrl-C in the middle of a plan: the finished records stay, the one in flight is cancelled,
# nothing after it runs, exit code 130.
export FAKE_CRASH= FAKE_HANG=cp_async
"$BT" run -v naive,smem,cp_async,wmma -s 1x1x64x64 --watchdog 60 --metrics none \
  -o "$T/c.json" > /dev/null 2> "$T/cerr.txt" &
pid=$!
for _ in $(seq 1 100); do
  n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['records']))" "$T/c.json" 2> /dev/null || echo 0)
  [ "$n" -ge 2 ] && break
  sleep 0.1
done
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
