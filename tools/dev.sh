#!/usr/bin/env bash
# The two README commands.
#   tools/dev.sh tui [ARGS...]   install what is missing, build, start the TUI (without a GPU it
#                                opens the newest session or the bundled example)
#   tools/dev.sh sweep [--full]  compile every knob setting of every variant for sm_90 (two
#                                shards side by side) into the record CI audits,
#                                tests/kernels/all-knobs-sm_90.tsv; without --full only the builds
#                                that record lacks (a changed kernel) are compiled
#   tools/dev.sh test            install what is missing, build (plain, ASan+UBSan, and a viewer
#                                build with the toolkit hidden), run the unit and TUI suites in
#                                each and a bounded fuzz run, and end with "N passed, N failed"
# With the CUDA toolkit under /usr/local/cuda (or meson -Dtoolkit_root) the build has GPU
# support; without it, a viewer build (sessions, show, diff, the TUI; running needs a GPU build).
set -u
cd "$(dirname "$0")/.."
BUILD_PKGS="meson ninja-build pkg-config libncurses-dev libcjson-dev libarchive-dev python3"
TEST_PKGS="tmux clang libclang-rt-14-dev procps man-db zsh librsvg2-bin libxml2-utils"

install_missing() { # packages...
  local missing=()
  for p in "$@"; do dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  local SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${missing[@]}" > /dev/null || {
    echo "could not install ${missing[*]}: install them with apt-get and try again" >&2; exit 1; }
}

build() { # dir [meson options...]
  local dir=$1; shift
  [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" > "$dir.setup.log" 2>&1 || {
    cat "$dir.setup.log" >&2; echo "meson setup $dir failed" >&2; exit 1; }
  ninja -C "$dir" > "$dir.ninja.log" 2>&1 || { tail -n 40 "$dir.ninja.log" >&2; echo "build of $dir failed" >&2; exit 1; }
  if grep -q "warning:" "$dir.ninja.log"; then grep "warning:" "$dir.ninja.log" >&2; echo "compiler warnings in $dir" >&2; exit 1; fi
}

# Counts meson's per-test results (testlog.json) into the globals.
PASSED=0 FAILED=0 SKIPPED=0
count() {
  local log=$1/meson-logs/testlog.json
  [ -f "$log" ] || { FAILED=$((FAILED + 1)); return; }
  read -r p f s < <(python3 - "$log" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else: f += 1
print(p, f, s)
PY
)
  PASSED=$((PASSED + p)) FAILED=$((FAILED + f)) SKIPPED=$((SKIPPED + s))
}

case "${1:-}" in
tui)
  shift
  install_missing $BUILD_PKGS
  build build
  exec build/benchtop "$@"
  ;;
test)
  install_missing $BUILD_PKGS $TEST_PKGS
  build build
  build build-asan -Dsanitize=true -Dfuzz=true
  # The viewer build a laptop without CUDA gets: the toolkit hidden (an empty toolkit root), GPU
  # support left to auto; its viewer_build test checks that nothing of CUDA was linked.
  mkdir -p build-viewer.toolkit
  build build-viewer -Dtoolkit_root="$PWD/build-viewer.toolkit"
  build-viewer/benchtop --version | grep -q "viewer build" || {
    echo "build-viewer found a CUDA toolkit outside -Dtoolkit_root: not a viewer build" >&2; exit 1; }
  meson test -C build --suite unit --suite tui --print-errorlogs --num-processes 2
  count build
  # The sanitizer build skips 'slow' (NVRTC compiles of every preset: nothing to sanitize).
  ASAN_OPTIONS=detect_leaks=0 meson test -C build-asan --suite unit --suite tui --no-suite slow \
    --print-errorlogs --num-processes 2
  count build-asan
  meson test -C build-viewer --suite unit --suite tui --print-errorlogs --num-processes 2
  count build-viewer
  # A GPU build without cuDNN: the cudnn variant listed as unavailable, with the reason.
  build build-nocudnn -Dcudnn=disabled
  meson test -C build-nocudnn baseline --print-errorlogs
  count build-nocudnn
  if [ -x tests/fuzz/run-fuzz.sh ] && [ -x build-asan/tests/fuzz/fuzz_session ]; then
    if bash tests/fuzz/run-fuzz.sh build-asan "${FUZZ_SECONDS:-60}"; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
  fi
  echo "$SKIPPED skipped (a test that does not apply to that build)"
  echo "$PASSED passed, $FAILED failed"
  [ $FAILED -eq 0 ]
  ;;
sweep)
  install_missing $BUILD_PKGS
  build build
  RECORD=tests/kernels/all-knobs-sm_90.tsv
  from=()
  [ "${2:-}" != --full ] && [ -f "$RECORD" ] && from=(--recorded "$RECORD" --audit 0)
  tmp=$(mktemp -d) || exit 1
  trap 'rm -rf "$tmp"' EXIT
  for i in 1 2; do
    build/benchtop check-kernels --all-knobs --arch sm_90 --shard $i/2 "${from[@]}" \
      --record "$tmp/$i.tsv" > "$tmp/$i.log" 2>&1 &
  done
  ok=1
  for i in 1 2; do wait -n || ok=0; done
  grep -h "FAIL" "$tmp/1.log" "$tmp/2.log" >&2
  tail -q -n 2 "$tmp/1.log" "$tmp/2.log"
  [ $ok -eq 1 ] || { echo "sweep: a build failed; $RECORD unchanged" >&2; exit 1; }
  # Written beside the record and renamed over it: a rename within one file system is atomic.
  part="$RECORD.tmp.$$"
  { head -n 1 "$tmp/1.tsv"; tail -q -n +2 "$tmp/1.tsv" "$tmp/2.tsv" | LC_ALL=C sort; } > "$part" &&
    mv "$part" "$RECORD" || { rm -f "$part"; echo "sweep: could not write $RECORD" >&2; exit 1; }
  echo "sweep: $(grep -vc '^#' "$RECORD") builds in $RECORD"
  ;;
*)
  echo "usage: tools/dev.sh tui [SESSION.json] | tools/dev.sh test | tools/dev.sh sweep [--full]" >&2
  exit 2
  ;;
esac
