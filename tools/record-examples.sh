#!/usr/bin/env bash
# Re-record the bundled example sessions (sessions/examples/) on a GPU machine with the kernels
# of this tree; run it after every kernel change (tests/sessions/examples_fresh.c fails while an
# example was recorded by other kernel sources). Never hand-edit the examples.
#   tools/record-examples.sh [BENCHTOP] [OUTDIR]     (defaults: build-gpu/benchtop, sessions/examples)
# ladder-2x8x512x64.json: every variant at 2x8x512x64 and 2x8x512x64:causal, headline metrics;
# large-4x16x2048x128.json: every variant at 4x16x2048x128 and its causal form, 30 reps.
# Each session is recorded to a scratch file and checked (every variant and shape present, no
# record errored or failed verification) before it replaces the example, so a bad run leaves
# the old examples in place. BENCHTOP must be built from this tree (tools/build-for-gpu.sh):
# its embedded kernels are what the records' build.source_hash names. Prints the device and date.
set -eu
cd "$(dirname "$0")/.."
BT=${1:-build-gpu/benchtop}
OUT=${2:-sessions/examples}
[ -x "$BT" ] || { echo "record-examples: no benchtop at $BT (tools/build-for-gpu.sh builds one)" >&2; exit 2; }
mkdir -p "$OUT"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# The examples must come from the kernels in this tree, not from a BENCHTOP_KERNEL_DIR copy.
unset BENCHTOP_KERNEL_DIR BENCHTOP_EXTRA_KERNELS

record() { # name shapes [run options...]
  local name=$1 shapes=$2
  shift 2
  echo "record-examples: $name ($shapes)" >&2
  "$BT" run -v all -s "$shapes" --metrics default -o "$scratch/$name" "$@" > "$scratch/$name.out" || {
    cat "$scratch/$name.out" >&2
    echo "record-examples: benchtop run failed for $name: the examples were not replaced" >&2
    exit 1
  }
  python3 - "$scratch/$name" "$shapes" "$BT" <<'PY' || { echo "record-examples: $name not replaced" >&2; exit 1; }
import json, subprocess, sys
path, shapes, bt = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
s = json.load(open(path))
variants = [l.split()[0] for l in subprocess.run([bt, "list", "variants"], capture_output=True,
            text=True, check=True).stdout.splitlines() if l and not l.startswith(" ")]
have = {(r["variant"], r["shape"]["text"] if isinstance(r["shape"], dict) else r["shape"]): r
        for r in s["records"]}
bad = []
for v in variants:
    for sh in shapes:
        r = have.get((v, sh))
        if r is None:
            bad.append(f"{v} {sh}: no record")
        elif r["status"] not in ("pass", "n/a"):
            bad.append(f"{v} {sh}: {r['status']}: {r.get('reason', '')}")
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
na = sorted({r["variant"] for r in s["records"] if r["status"] == "n/a"})
print(f"  {len(s['records'])} records, all passed" + (f" (n/a here: {', '.join(na)})" if na else ""),
      file=sys.stderr)
PY
}

record ladder-2x8x512x64.json 2x8x512x64,2x8x512x64:causal
record large-4x16x2048x128.json 4x16x2048x128,4x16x2048x128:causal --reps 30

for f in ladder-2x8x512x64.json large-4x16x2048x128.json; do
  cp "$scratch/$f" "$OUT/$f.tmp.$$" && mv "$OUT/$f.tmp.$$" "$OUT/$f"
done
python3 - "$OUT/ladder-2x8x512x64.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
d = s["records"][0]["device"]
print(f"recorded on {d['name']} (sm_{d['cc_major']}{d['cc_minor']}, driver {d['driver_version']}, "
      f"runtime {d['runtime_version']}) at {s['created']}, revision {s.get('revision', '?')}")
PY
