#!/usr/bin/env bash
# A kernel of one's own: `benchtop new mine --from mma -o DIR` writes a copy that the kernel
# path loads (BENCHTOP_KERNEL_PATH or --kernels) with mma's knobs; `new` never overwrites and
# refuses taken or bad names; a user file named like a built-in shadows it with a note; any
# value its declaration allows is accepted by run (scripted worker), others are refused.
# With "compile" as the third argument: check-kernels compiles every preset of mine for sm_89,
# the user's L4, with zero spills (NVRTC, about 40 s; check_kernels compiles mma's presets, the
# same source, for all three architectures).
# usage: test_new_kernel.sh BENCHTOP FAKE_WORKER [compile]
set -u
BT=$1 FAKE=$2 MODE=${3:-quick}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache
unset BENCHTOP_KERNEL_PATH BENCHTOP_EXTRA_KERNELS BENCHTOP_KERNEL_DIR
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
DIR=$TMP/mine

"$BT" new mine --from mma -o "$DIR" > "$TMP/out" 2>&1
check "new writes DIR/mine.cu" '[ $? -eq 0 ] && [ -f "$DIR/mine.cu" ] && grep -q "^wrote $DIR/mine.cu" "$TMP/out"'
check "the copy is named mine and builds on mma" 'grep -q "^name *mine$" "$DIR/mine.cu" && grep -q "^builds_on mma$" "$DIR/mine.cu"'

knobs() { sed -n "/^$1 /,/^[a-z]/p" | grep "^ *knob "; }
BENCHTOP_KERNEL_PATH=$DIR "$BT" list variants > "$TMP/list" 2> "$TMP/err"
check "BENCHTOP_KERNEL_PATH=DIR lists mine" 'grep -q "^mine " "$TMP/list" && [ ! -s "$TMP/err" ]'
check "mine has mma's knobs" '[ -n "$(knobs mma < "$TMP/list")" ] && [ "$(knobs mine < "$TMP/list")" = "$(knobs mma < "$TMP/list")" ]'
"$BT" list variants --kernels "$DIR" --names > "$TMP/names"
check "--kernels DIR lists mine" 'grep -qx mine "$TMP/names"'
check "without the path mine is not there" '! "$BT" list variants --names | grep -qx mine'

cp "$DIR/mine.cu" "$TMP/before"
"$BT" new mine --from naive -o "$DIR" > /dev/null 2> "$TMP/err"; rc=$?
check "new never overwrites (exit 1, file unchanged)" '[ $rc -eq 1 ] && cmp -s "$DIR/mine.cu" "$TMP/before" && grep -q "exists already" "$TMP/err"'
"$BT" new mma --from naive > /dev/null 2>&1; rc=$?
check "new refuses a taken name (exit 2)" '[ $rc -eq 2 ]'
"$BT" new 'x/y' --from naive > /dev/null 2>&1; rc=$?
check "new refuses a bad name (exit 2)" '[ $rc -eq 2 ]'
"$BT" new other --from nosuch > /dev/null 2>&1; rc=$?
check "new refuses an unknown variant (exit 2)" '[ $rc -eq 2 ]'
"$BT" new mine2 --from mine --kernels "$DIR" > /dev/null 2>&1
check "new without -o writes to the user kernel directory, which is on the path" '[ -f "$XDG_CONFIG_HOME/benchtop/kernels/mine2.cu" ] && "$BT" list variants --names | grep -qx mine2'
check "a copy of a copy builds on it" 'grep -q "^builds_on mine$" "$XDG_CONFIG_HOME/benchtop/kernels/mine2.cu"'

# A user file declaring a built-in's name shadows it, with one note.
mkdir -p "$TMP/shadow"
"$BT" new smem2 --from smem -o "$TMP/s2" > /dev/null
sed 's/^name .*/name smem/; s/^summary .*/summary my smem/' "$TMP/s2/smem2.cu" > "$TMP/shadow/smem.cu"
"$BT" list variants --kernels "$TMP/shadow" > "$TMP/list" 2> "$TMP/err"
check "shadowing a built-in says so once" '[ "$(grep -c . "$TMP/err")" -eq 1 ] && grep -q "note: $TMP/shadow/smem.cu shadows variant smem of the built-ins" "$TMP/err"'
check "the shadowing file is the one listed" '[ "$(grep -c "^smem " "$TMP/list")" -eq 1 ] && grep -q "^smem  *my smem" "$TMP/list"'

# Knob values: what the declaration allows, no more. A range makes block_m=96 possible.
export BENCHTOP_WORKER=$FAKE
"$BT" run -v mine -s 1x1x128x64 --knob block_m=96 --kernels "$DIR" -o "$TMP/a.json" > /dev/null 2> "$TMP/err"; rc=$?
check "block_m=96 is refused while the declaration lists 64|128|32" '[ $rc -eq 2 ] && grep -q "allowed: 64|128|32" "$TMP/err"'
sed -i 's/^knob block_m BLOCK_M  {64, 128, 32}/knob block_m BLOCK_M 32..128 step 32 default 64/' "$DIR/mine.cu"
"$BT" run -v mine -s 1x1x128x64 --knob block_m=96 --metrics none --kernels "$DIR" -o "$TMP/b.json" > /dev/null 2> "$TMP/err"; rc=$?
check "block_m=96 runs once the declaration allows it" '[ $rc -eq 0 ] && grep -q "block_m=96" "$TMP/b.json"'

if [ "$MODE" = compile ]; then
  "$BT" check-kernels --variant mine --arch sm_89 --kernels "$DIR" > "$TMP/ck" 2>&1; rc=$?
  check "check-kernels compiles every preset of mine with zero spills" '[ $rc -eq 0 ] && grep -q " 0 failed$" "$TMP/ck" && ! grep -q "spill [1-9]\|/[1-9]" "$TMP/ck" && grep -q "^mine .*regs" "$TMP/ck"'
  [ $fail -eq 0 ] || cat "$TMP/ck"
fi
exit $fail
