#!/usr/bin/env bash
# A viewer build (meson -Dgpu=disabled, or no CUDA toolkit): no CUDA library is linked; the
# bundled examples show and diff; what needs CUDA (run, replay, tune, check-kernels, list metrics)
# says so in one line and exits 3, leaving no session file behind.
BT=${1:?usage: test_viewer.sh BENCHTOP EXAMPLES_DIR}
EX=${2:?usage: test_viewer.sh BENCHTOP EXAMPLES_DIR}
fail=0
export XDG_DATA_HOME=$(mktemp -d) XDG_CACHE_HOME=$(mktemp -d) XDG_CONFIG_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_CONFIG_HOME"' EXIT
"$BT" --version | grep -q "viewer build" || { echo "FAIL --version does not say viewer build: $("$BT" --version)"; exit 1; }
libs=$(ldd "$BT" | grep -iE "cuda|cupti|nvrtc|nvperf|cublas|nvidia|nvml")
[ -z "$libs" ] || { echo "FAIL linked CUDA libraries: $libs"; fail=1; }
echo "ok   no CUDA library: $(ldd "$BT" | awk '{print $1}' | tr '\n' ' ')"
one_line_3() { # name command...
  local name=$1; shift
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 3 ] && [ "$(grep -c '' <<< "$err")" -eq 1 ] && grep -q "viewer build" <<< "$err"; then
    echo "ok   $name: $err"
  else
    echo "FAIL $name: exit $rc, want 3 and one line saying viewer build: $err"; fail=1
  fi
}
examples=("$EX"/*.json)
one_line_3 run "$BT" run -v mma -s 2x8x512x64
one_line_3 replay "$BT" replay "${examples[0]}" -o "$XDG_DATA_HOME/replayed.json"
one_line_3 check-kernels "$BT" check-kernels
one_line_3 list-metrics "$BT" list metrics --chip GH100
one_line_3 bench-metrics "$BT" bench-metrics
one_line_3 tune "$BT" tune -v mma -s 2x8x512x64
[ -z "$(find "$XDG_DATA_HOME" -name '*.json')" ] || { echo "FAIL a refused run left a session file"; fail=1; }
for ex in "${examples[@]}"; do
  for f in table json csv md; do
    "$BT" show "$ex" --format "$f" > /dev/null || { echo "FAIL show $ex --format $f"; fail=1; }
  done
done
n=$("$BT" show "${examples[0]}" --format csv | tail -n +2 | grep -c '')
[ "$n" -gt 0 ] || { echo "FAIL show printed no record"; fail=1; }
"$BT" diff "${examples[0]}" "${examples[0]}" > /dev/null || { echo "FAIL diff of an example with itself"; fail=1; }
"$BT" list variants --names | grep -qx mma || { echo "FAIL list variants"; fail=1; }
"$BT" list shapes --names | grep -qx 2x8x512x64 || { echo "FAIL list shapes"; fail=1; }
[ $fail -eq 0 ] && echo "ok   show, diff and list on ${#examples[@]} bundled examples"
exit $fail
