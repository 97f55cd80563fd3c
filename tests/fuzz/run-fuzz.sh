#!/bin/sh
# Fuzzes the session loader for SECONDS, seeded with tests/malformed, the examples, a small
# valid session and the corpus kept from earlier runs in BUILD_DIR, then kernel declarations
# for a third of that, seeded with the tree's kernel files. Exits non-zero when
# libFuzzer finds a crash, a sanitizer report, a leak, a timeout or a broken invariant; the
# input that did it is left in BUILD_DIR/tests/fuzz/artifacts/.
# usage: tests/fuzz/run-fuzz.sh BUILD_DIR SECONDS   (BUILD_DIR configured with -Dfuzz=true)
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$1; secs=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
fuzzer="$build/tests/fuzz/fuzz_session"
if [ ! -x "$fuzzer" ]; then
  echo "$0: $fuzzer not built (meson setup $build -Dfuzz=true && ninja -C $build)" >&2
  exit 2
fi
work="$build/tests/fuzz"
corpus="$work/corpus"; seeds="$work/seeds"; artifacts="$work/artifacts"
mkdir -p "$corpus" "$seeds" "$artifacts" || exit 2
rm -f "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-*
cp "$src"/tests/malformed/* "$src"/tests/sessions/minimal.json "$seeds"/ 2>/dev/null
for f in "$src"/sessions/examples/*.json; do [ -f "$f" ] && cp "$f" "$seeds"/; done
# Small dictionary of the schema's words helps the mutator reach deep fields.
dict="$work/session.dict"
{
  for w in schema benchtop.session/1 records variant knobs shape status reason created options \
    timing error build clocks device metrics plan variants shapes p50 p90 samples nsamples \
    rel_l2 regs spill_stores name value unit seed reps null true false 2x8x512x64:causal pass \
    fail n/a; do
    printf '"\\"%s\\""\n' "$w"
  done
} > "$dict"
# A non-zero exit or anything left in the artifacts folder is a finding: say so and stop.
stop_on_finding() { # exit-status what
  found=$(ls "$artifacts" 2>/dev/null | wc -l)
  if [ "$1" -ne 0 ] || [ "$found" -ne 0 ]; then
    echo "$0: $2 found a problem (exit $1); inputs in $artifacts:" >&2
    ls -l "$artifacts" >&2
    exit 1
  fi
}
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
"$fuzzer" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2560 \
  -dict="$dict" -artifact_prefix="$artifacts/" -print_final_stats=1 "$corpus" "$seeds"
stop_on_finding $? "the fuzzer"
# Kernel declarations, a third as long again, seeded with every kernel file in the tree.
decl="$build/tests/fuzz/fuzz_decl"
if [ -x "$decl" ]; then
  dcorpus="$work/decl-corpus"; dseeds="$work/decl-seeds"
  mkdir -p "$dcorpus" "$dseeds" || exit 2
  cp "$src"/kernels/*.cu "$src"/examples/kernels/*.cu "$src"/tests/kernels/hostile/*.cu "$dseeds"/ 2>/dev/null
  "$decl" -max_total_time=$((secs / 3 + 1)) -max_len=65536 -timeout=10 -rss_limit_mb=2560 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "$dcorpus" "$dseeds"
  stop_on_finding $? "the declaration fuzzer"
fi
echo "$0: ${secs}s of fuzzing, nothing found"
