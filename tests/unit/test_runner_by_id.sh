#!/usr/bin/env bash
# The runner matches a worker's record to its request by the request's id, and checks what the
# record says it ran by value: a scripted worker (tests/tui/fake_worker.py, FAKE_KNOB_ORDER)
# that writes each request's knobs back in another order ("stages=02,...,block_m=064") gets
# every record taken, each under its own entry (plan_index), in the session's one spelling of
# the setting. On one GPU and on two (--devices all, the pool's path).
BT=${1:?usage: test_runner_by_id.sh BENCHTOP FAKE_WORKER}
export BENCHTOP_WORKER=${2:?usage: test_runner_by_id.sh BENCHTOP FAKE_WORKER}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache XDG_CONFIG_HOME=$T/config FAKE_KNOB_ORDER=reverse
fail=0
for devices in "" "all"; do
  out=$T/s${devices}.json
  FAKE_GPUS=2 "$BT" run -v mma,cp_async -s 1x1x64x64 --knob block_m=64,128 --knob stages=3,2 \
    --metrics none ${devices:+--devices $devices} -o "$out" > /dev/null 2> "$T/err.txt"
  rc=$?
  python3 - "$out" "$rc" "${devices:-one GPU}" <<'PY' || fail=1
import json, sys
path, rc, where = sys.argv[1], int(sys.argv[2]), sys.argv[3]
recs = json.load(open(path))["records"]
got = [(r["plan_index"], r["variant"], r["knobs"], r["status"]) for r in recs]
want = [(0, "mma", "block_m=64,block_n=64,warps=4,stages=3,split=1", "pass"),
        (1, "mma", "block_m=128,block_n=64,warps=4,stages=3,split=1", "pass"),
        (2, "mma", "block_m=64,block_n=64,warps=4,stages=2,split=1", "pass"),
        (3, "mma", "block_m=128,block_n=64,warps=4,stages=2,split=1", "pass"),
        (4, "cp_async", "stages=3", "pass"), (5, "cp_async", "stages=2", "pass")]
ok = rc == 0 and got == want
for g in got:
    print(g)
print("%s runner matches by id (%s, exit %d)" % ("PASS" if ok else "FAIL", where, rc))
if not ok:
    print([r["reason"] for r in recs if r["reason"]][:3])
sys.exit(0 if ok else 1)
PY
  [ $fail = 0 ] || cat "$T/err.txt"
done
exit $fail
