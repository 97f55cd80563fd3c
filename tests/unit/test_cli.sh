#!/usr/bin/env bash
# The command line on a machine without a GPU: --help/--version exit 0; usage errors are one
# line and exit 2; a command that needs a GPU says so in one line and exits 3.
BT=${1:?usage: test_cli.sh BENCHTOP}
fail=0
expect() { # name want_rc want_lines(0 = any) cmd...
  local name=$1 want=$2 lines=$3; shift 3
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  local n=$(printf '%s' "$err" | grep -c '')
  if [ $rc -ne $want ] || { [ $lines -gt 0 ] && [ "$n" -ne $lines ]; }; then
    echo "FAIL $name: exit $rc (want $want), $n stderr lines (want $lines): $err"; fail=1
  else
    echo "ok   $name: exit $rc ${err:+($err)}"
  fi
}
export XDG_DATA_HOME=$(mktemp -d) XDG_CACHE_HOME=$(mktemp -d)
expect help 0 0 "$BT" --help
expect version 0 0 "$BT" --version
"$BT" --version | grep -q "^benchtop " || { echo "FAIL version text"; fail=1; }
expect unknown-option 2 1 "$BT" --bogus
expect run-no-args 2 1 "$BT" run
expect run-bad-shape 2 1 "$BT" run -v naive -s 2x8x512
expect run-bad-variant 2 1 "$BT" run -v nope -s 2x8x512x64
expect run-bad-knob 2 1 "$BT" run -v smem --knob pad=3 -s 2x8x512x64
expect run-foreign-knob 2 1 "$BT" run -v naive --knob pad=8 -s 2x8x512x64
expect run-bad-reps 2 1 "$BT" run -v naive -s 2x8x512x64 --reps 0
expect run-bad-format 2 1 "$BT" run -v naive -s 2x8x512x64 --format xml
expect run-bad-timing 2 1 "$BT" run -v naive -s 2x8x512x64 --timing wall
# A viewer build (no CUDA) refuses what needs CUDA before looking at the values.
viewer=false
"$BT" --version | grep -q "viewer build" && viewer=true
if $viewer; then
  expect check-kernels-viewer 3 1 "$BT" check-kernels --arch sm_xx
else
  expect check-kernels-bad-arch 2 1 "$BT" check-kernels --arch sm_xx
fi
expect list-nothing 2 1 "$BT" list
expect list-unknown 2 1 "$BT" list everything
expect list-chip-on-variants 2 1 "$BT" list variants --chip GH100
expect show-two-files 2 1 "$BT" show a.json b.json
expect diff-one-file 2 1 "$BT" diff a.json
expect diff-bad-pct 2 1 "$BT" diff a.json b.json --fail-above -3
expect mistyped-command 2 1 "$BT" rnu
expect help-unknown 2 1 "$BT" help nope
# Every command, hidden ones included, answers --help and -h on stdout with exit 0, whatever
# else is on the line.
for c in $("$BT" --help | sed -n 's/^  benchtop \([a-z-][a-z-]*\).*/\1/p') bench-metrics generate worker; do
  out=$("$BT" "$c" --bogus-before-help -h 2> "$XDG_CACHE_HOME/err"); rc=$?
  if [ $rc -ne 0 ] || [ -s "$XDG_CACHE_HOME/err" ] || ! grep -q "^usage: benchtop $c" <<< "$out"; then
    echo "FAIL $c -h: exit $rc, $(cat "$XDG_CACHE_HOME/err"), stdout: $(head -n 1 <<< "$out")"; fail=1
  else
    echo "ok   $c -h"
  fi
  "$BT" help "$c" | grep -q "^usage: benchtop $c" || { echo "FAIL help $c prints no usage line"; fail=1; }
done
expect list-help 0 0 "$BT" list --help
# One wording for every usage error, from one place.
want="benchtop run: unknown option --set; see benchtop run --help"
got=$("$BT" run --set x 2>&1 >/dev/null)
[ "$got" = "$want" ] || { echo "FAIL unknown option: '$got', want '$want'"; fail=1; }
want="benchtop list: option --device needs N; see benchtop list --help"
got=$("$BT" list metrics --device 2>&1 >/dev/null)
[ "$got" = "$want" ] || { echo "FAIL missing value: '$got', want '$want'"; fail=1; }
want="benchtop run: --reps must be a whole number from 1 to 100000, not '0'; see benchtop run --help"
got=$("$BT" run -v naive -s 2x8x512x64 --reps 0 2>&1 >/dev/null)
[ "$got" = "$want" ] || { echo "FAIL bad value: '$got', want '$want'"; fail=1; }
[ "$("$BT" list variants --names | head -n 1)" = naive ] || { echo "FAIL list variants --names"; fail=1; }
"$BT" list shapes --names causal | grep -qv causal && { echo "FAIL list shapes SUBSTRING"; fail=1; }
if ! nvidia-smi > /dev/null 2>&1; then
  expect run-no-gpu 3 1 "$BT" run -v naive -s 2x8x512x64
  [ -z "$(ls "$XDG_DATA_HOME/benchtop/sessions" 2>/dev/null)" ] || { echo "FAIL run-no-gpu left a session file"; fail=1; }
fi
exit $fail
