#!/usr/bin/env bash
# check-kernels --record / --recorded / --audit: a build the record holds (same variant, knobs,
# D, dtype, arch, source hash, NVRTC) is taken from it; the audit compiles a sample again and a
# record that disagrees with the compiler fails; a changed kernel is compiled; a record is
# written only when every build passed, atomically; a malformed record is one line and exit 2.
#   test_check_record.sh BENCHTOP
BT=${1:?usage: test_check_record.sh BENCHTOP}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { # DESCRIPTION CONDITION
  if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; sed 's/^/     /' "$T/out" "$T/err" | head -20; fail=1; fi
}
ck() { "$BT" check-kernels -a sm_80 --all-knobs "$@" > "$T/out" 2> "$T/err"; }

ck -v smem --record "$T/r.tsv"; rc=$?
check "a sweep of smem writes its 4 builds" '[ $rc -eq 0 ] && [ "$(grep -vc "^#" "$T/r.tsv")" -eq 4 ] && grep -q "4 builds recorded" "$T/out"'
ck -v smem --recorded "$T/r.tsv" --audit 0; rc=$?
check "audit 0: every build taken from the record, none compiled" '[ $rc -eq 0 ] && grep -q "4 taken from the record" "$T/out" && grep -q "^check-kernels: 0 builds" "$T/out"'
ck -v smem --recorded "$T/r.tsv" --audit 1; rc=$?
check "audit 1: every build compiled again, as recorded" '[ $rc -eq 0 ] && [ "$(grep -c "audit: as recorded" "$T/out")" -eq 4 ]'
ck -v smem --recorded "$T/r.tsv" --audit 2 --seed 7 > /dev/null; cp "$T/out" "$T/a7"
ck -v smem --recorded "$T/r.tsv" --audit 2 --seed 7
check "the same seed audits the same builds" 'diff <(grep -o "^smem.*D=[0-9]*" "$T/a7") <(grep -o "^smem.*D=[0-9]*" "$T/out") > /dev/null'

# A forged record: one build's registers changed.
awk -F'\t' 'BEGIN { OFS = "\t" } !/^#/ && !done { $8 = $8 + 1; done = 1 } { print }' "$T/r.tsv" > "$T/forged.tsv"
ck -v smem --recorded "$T/forged.tsv" --audit 1; rc=$?
check "a record the compiler disagrees with fails its audit (exit 1)" '[ $rc -eq 1 ] && [ "$(grep -c "FAIL differs from the record" "$T/out")" -eq 1 ]'

# A kernel changed since the record: its builds are compiled, not taken.
DIR=$T/k
"$BT" new mine --from smem -o "$DIR" > /dev/null 2>&1 || { echo "FAIL new mine"; exit 1; }
ck -v mine --kernels "$DIR" --record "$T/m.tsv"; rc=$?
check "a user kernel's sweep is recorded" '[ $rc -eq 0 ] && [ "$(grep -vc "^#" "$T/m.tsv")" -eq 4 ]'
echo "// changed" >> "$DIR/mine.cu"
ck -v mine --kernels "$DIR" --recorded "$T/m.tsv" --audit 0; rc=$?
check "a changed kernel is compiled (4 not in the record)" '[ $rc -eq 0 ] && grep -q "0 taken from the record.*4 not in it" "$T/out" && grep -q "^check-kernels: 4 builds" "$T/out"'

ck -v mine --kernels "$DIR" --recorded "$T/m.tsv" --only-recorded; rc=$?
check "--only-recorded: a changed kernel fails uncompiled (exit 1)" '[ $rc -eq 1 ] && [ "$(grep -c "FAIL not in the record" "$T/out")" -eq 4 ] && ! grep -q "regs" "$T/out"'

# A record of another NVRTC: every build compiled, none fails for being absent.
sed "s/\tnvrtc-[^\t]*\t/\tnvrtc-99.9\t/" "$T/m.tsv" > "$T/other.tsv"
ck -v mine --kernels "$DIR" --recorded "$T/other.tsv" --only-recorded; rc=$?
check "a record of another NVRTC: every build compiled, exit 0" '[ $rc -eq 0 ] && grep -q "holds no build of nvrtc-" "$T/out" && grep -q "^check-kernels: 4 builds" "$T/out"'

# A failing build: the record is not written, the one there is kept.
cp "$T/m.tsv" "$T/m.before"
echo "#error broken on purpose" >> "$DIR/mine.cu"
ck -v mine --kernels "$DIR" --record "$T/m.tsv"; rc=$?
check "a failed build writes no record and keeps the old one (exit 1)" '[ $rc -eq 1 ] && cmp -s "$T/m.tsv" "$T/m.before" && grep -q "not written: a build failed" "$T/err"'
ck -v smem --record "$T/no/such/dir/r.tsv"; rc=$?
check "an unwritable record path: exit 1, one line" '[ $rc -eq 1 ] && grep -q "not written" "$T/err"'

# Malformed records: one line naming the file, exit 2, nothing built.
printf 'smem\tpad=0\t64\tfp16\tsm_80\tabc\tnvrtc-13.0\t147\t24576\t0\textra\n' > "$T/bad1"
printf 'smem\tpad=0\t64\tfp16\tsm_80\tabc\tnvrtc-13.0\t147\tlots\t0\n' > "$T/bad2"
printf 'smem\tpad=0\t64\tfp16\n' > "$T/bad3"
printf 'smem\t\t64\tfp16\tsm_80\tabc\tnvrtc-13.0\t147\t24576\t0\n' > "$T/bad4"
head -c 17000000 /dev/zero | tr '\0' 'x' > "$T/huge"
mkdir "$T/adir"
for bad in bad1 bad2 bad3 bad4 huge adir missing; do
  ck -v smem --recorded "$T/$bad"; rc=$?
  check "record $bad: one line naming it, exit 2" '[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "$bad" "$T/err" && ! grep -q "regs" "$T/out"'
done
ck -v smem --audit 3; rc=$?
check "--audit without --recorded: exit 2" '[ $rc -eq 2 ]'
"$BT" check-kernels -v smem --record "$T/x.tsv" > "$T/out" 2> "$T/err"; rc=$?
check "--record without --all-knobs: exit 2" '[ $rc -eq 2 ] && [ ! -e "$T/x.tsv" ]'
exit $fail
