#!/usr/bin/env bash
# benchtop against PyTorch SDPA (BENCHMARKS.md), on the GPU machine from the repo root:
#   bash research/compare-sdpa.sh BENCHTOP [OUT.json] [more compare_sdpa.py options]
# Times benchtop's mma and fa3 (best passing knobs of a small sweep) and PyTorch SDPA's cuDNN,
# FlashAttention and efficient backends on the ten target shapes (fp16, L2 flushed, median), prints
# the Markdown report on stdout and writes OUT.json (default compare-sdpa.json).
set -eu
if [ $# -lt 1 ]; then
  echo "usage: bash research/compare-sdpa.sh BENCHTOP [OUT.json] [--variants mma,fa3] [--shapes ...]" >&2
  exit 2
fi
bin=$1; shift
out=compare-sdpa.json
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then out=$1; shift; fi
exec python3 "$(dirname "$0")/compare_sdpa.py" --benchtop "$bin" --json "$out" "$@"
