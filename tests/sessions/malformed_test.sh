#!/bin/sh
# Every hostile file gives exactly one line on stderr naming the file, nothing on stdout, exit
# status 1 (a bad file), never a crash or a sanitizer report; the file is left untouched.
# Also generated here: a 100 MB string and a 300 MB (sparse) file.
# usage: malformed_test.sh BENCHTOP MALFORMED_DIR WORK_DIR
set -u
bt=$1; dir=$2; work=$3
mkdir -p "$work" || exit 1
# Sanitizer reports must not pass for our own exit status 1.
export ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=98:halt_on_error=1:print_stacktrace=1
fail=0
n=0
check() {
  f=$1
  before=$(cksum 2>/dev/null < "$f")
  "$bt" show "$f" > "$work/out" 2> "$work/err"
  rc=$?
  lines=$(wc -l < "$work/err")
  first=$(head -n 1 "$work/err")
  if [ "$rc" -ne 1 ] || [ "$lines" -ne 1 ] || [ -s "$work/out" ]; then
    echo "FAIL $f: exit $rc, $lines stderr lines, $(wc -c < "$work/out") stdout bytes"
    head -c 2000 "$work/err"
    fail=1
  else
    case "$first" in
      "$f"*) echo "ok   $first" | cut -c1-200 ;;
      *) echo "FAIL $f: message does not name the file: $first"; fail=1 ;;
    esac
  fi
  after=$(cksum 2>/dev/null < "$f")
  [ "$before" = "$after" ] || { echo "FAIL $f: input file was modified"; fail=1; }
  n=$((n + 1))
}

for f in "$dir"/*; do check "$f"; done

# A 100 MB string: parsed (under the 256 MiB limit), then refused by the field's length.
big="$work/string-100mb.json"
{ printf '{"schema":"benchtop.session/1","host":"'; head -c 104857600 /dev/zero | tr '\000' a
  printf '","records":[]}'; } > "$big"
check "$big"
rm -f "$big"
# Larger than SESSION_MAX_BYTES: refused before reading (sparse, so cheap to make).
huge="$work/huge-300mb.json"
rm -f "$huge"
truncate -s 300M "$huge" && check "$huge"
rm -f "$huge"
check "$work/does-not-exist.json"
mkdir -p "$work/a-directory.json" && check "$work/a-directory.json"

# A known-good file must load, so the failures above are the files' fault.
"$bt" show "$(dirname "$0")/minimal.json" > /dev/null || { echo "FAIL minimal.json does not load"; fail=1; }
echo "$n hostile inputs checked"
[ "$n" -ge 15 ] || fail=1
exit $fail
