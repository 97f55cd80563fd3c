# Shared by the GPU shell tests. $1 of each test is the benchtop binary.
BT=${1:?usage: $0 BENCHTOP}
OUTDIR=${GPU_TEST_OUT:-$(mktemp -d)}
mkdir -p "$OUTDIR"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$OUTDIR/cache}
export XDG_DATA_HOME=${XDG_DATA_HOME:-$OUTDIR/data}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Exit 77 (skipped, one line) when benchtop finds no GPU.
require_gpu() {
  local out rc
  out=$("$BT" run -v naive -s 1x1x1x64 --reps 1 --warmup 0 --metrics none --format json \
        -o "$OUTDIR/probe.json" 2>&1); rc=$?
  if [ $rc -eq 3 ]; then echo "SKIP $(basename "$0"): $(echo "$out" | head -n1)"; exit 77; fi
}
