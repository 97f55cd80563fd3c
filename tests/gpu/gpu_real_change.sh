#!/usr/bin/env bash
# A real change of about 3 % is still called slower, at a small and a large shape: (1) a knob
# sweep finds two settings whose p50s differ by 2-6 %; (2) interleaved rounds, each setting its
# own process, confirm the difference; (3) `diff --match` of one round's two sessions must call
# the slower setting slower (and every round pair must not call it faster).
#   gpu_real_change.sh BENCHTOP
set -u
. "$(dirname "$0")/lib.sh"
require_gpu
fail=0
check() { # variant shape knob-sweep options...
  local v=$1 s=$2; shift 2
  local w=$OUTDIR/rc-$v-${s//[:x]/_}
  mkdir -p "$w"
  "$BT" run -v "$v" -s "$s" "$@" --metrics none --format json --force -o "$w/sweep.json" > "$w/sweep.out" 2>&1
  local pair
  pair=$(python3 - "$w/sweep.json" <<'PY'
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["records"] if r["status"] == "pass"]
best = None
for a in recs:
    for b in recs:
        ratio = b["timing"]["p50"] / a["timing"]["p50"]
        if 1.02 <= ratio <= 1.06 and (best is None or abs(ratio - 1.03) < abs(best[0] - 1.03)):
            best = (ratio, a["knobs"], b["knobs"])
print("%s %s %.4f" % (best[1], best[2], best[0]) if best else "none")
PY
)
  [ "$pair" = none ] && { echo "FAIL gpu_real_change $v $s: no two settings 2-6 % apart"; fail=1; return; }
  read -r ka kb ratio <<< "$pair"
  local ka_opts=() kb_opts=()
  IFS=, read -ra kv <<< "$ka"; for x in "${kv[@]}"; do ka_opts+=(-k "$x"); done
  IFS=, read -ra kv <<< "$kb"; for x in "${kv[@]}"; do kb_opts+=(-k "$x"); done
  for r in 1 2 3 4; do
    for side in A B; do
      [ $((r % 2)) -eq 0 ] && { [ $side = A ] && side=B || side=A; }
      local opts=("${ka_opts[@]}"); [ $side = B ] && opts=("${kb_opts[@]}")
      "$BT" run -v "$v" -s "$s" "${opts[@]}" --metrics none --format json --force -o "$w/$side-$r.json" > /dev/null 2>&1
    done
  done
  python3 - "$w" "$v" "$s" "$ka" "$kb" "$ratio" "$BT" <<'PY' || fail=1
import json, statistics, subprocess, sys
w, v, s, ka, kb, sweep_ratio, bt = sys.argv[1:8]
p50 = lambda f: json.load(open(f))["records"][0]["timing"]["p50"]
ratios = [p50("%s/B-%d.json" % (w, r)) / p50("%s/A-%d.json" % (w, r)) for r in range(1, 5)]
inter = statistics.median(ratios)
verdicts = []
for r in range(1, 5):
    out = subprocess.run([bt, "diff", "--format", "json", "%s/A-%d.json" % (w, r), "%s/B-%d.json" % (w, r),
                          "--match", "%s %s vs %s %s" % (v, ka.replace(",", " "), v, kb.replace(",", " "))],
                         capture_output=True, text=True)
    try:
        m = json.loads(out.stdout)["matched"][0]
        verdicts.append((m["verdict"], m["dp50_pct"], m["dp50_ci_pct"]))
    except (ValueError, KeyError, IndexError):
        verdicts.append(("error: " + (out.stderr.strip().splitlines() or ["?"])[-1], None, None))
ok = inter > 1.015 and all(x[0] == "slower" for x in verdicts)
print("%s gpu_real_change %s %s: %s vs %s, sweep %+.1f %%, interleaved rounds %+.1f %% (%s), verdicts %s"
      % ("PASS" if ok else "FAIL", v, s, ka, kb, 100 * (float(sweep_ratio) - 1), 100 * (inter - 1),
         " ".join("%+.1f" % (100 * (x - 1)) for x in ratios),
         "; ".join("%s %s" % (x[0], x[2]) for x in verdicts)))
sys.exit(0 if ok else 1)
PY
}
check mma 2x8x512x64 -k block_m=64,128 -k block_n=32,64 -k warps=4,8 -k stages=2,3
if "$BT" list variants | grep -q '^fa3' && [ "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1)" = 9.0 ]; then
  check fa3 4x16x2048x128 -k stages=2,3 -k sched=pingpong,plain,exp -k exp_poly=0,8 -k block_n=128,176
else
  check mma 4x16x2048x128 -k block_m=64,128 -k stages=2,3 -k warps=4,8
fi
exit $fail
