#!/usr/bin/env bash
# Hostile kernel files on the kernel path: each costs one line on stderr naming the file and
# the line (and what is wrong), that variant is left out, every built-in still loads, and
# nothing crashes or hangs (a FIFO, a directory, a huge file, NUL bytes, a dangling link,
# an unreadable file). Each file under tests/kernels/hostile/ ends with "// expect: LINE: TEXT".
# usage: test_hostile_decls.sh BENCHTOP HOSTILE_DIR
set -u
BT=$1 SRC=$2
TMP=$(mktemp -d)
trap 'chmod -R u+rwx "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
export XDG_CONFIG_HOME=$TMP/config XDG_CACHE_HOME=$TMP/cache
fail=0
BUILTINS="naive smem swizzle cp_async wmma_qk wmma mma fp8 cublas fa3"

# list variants with DIR as the kernel path; sets OUT, ERR, RC
list() {
  OUT=$(BENCHTOP_KERNEL_PATH=$1 timeout 20 "$BT" list variants 2> "$TMP/err")
  RC=$?
  ERR=$(cat "$TMP/err")
}

builtins_listed() {
  for v in $BUILTINS; do
    grep -q "^$v " <<< "$OUT" || { echo "FAIL ($1): built-in $v not listed"; return 1; }
  done
}

# one file alone: exactly the expected line
check_one() { # file-in-dir expected-line expected-text
  local path=$1 line=$2 text=$3 name
  list "$(dirname "$path")"
  name=$(basename "$path")
  if [ $RC -ne 0 ]; then echo "FAIL ($name): exit $RC"; fail=1; fi
  if [ "$(grep -c . <<< "$ERR")" -ne 1 ]; then echo "FAIL ($name): expected one line, got:"; echo "$ERR"; fail=1; return; fi
  case "$ERR" in
  "benchtop: $path:$line: "*"$text"*) ;;
  *) echo "FAIL ($name): expected 'benchtop: $path:$line: ...$text...', got: $ERR"; fail=1 ;;
  esac
  builtins_listed "$name" || fail=1
}

n=0
for f in "$SRC"/*.cu; do
  expect=$(grep -a -o '// expect: .*' "$f" | sed 's|// expect: ||')
  line=${expect%%: *} text=${expect#*: }
  d=$TMP/one$n; mkdir -p "$d"; cp "$f" "$d/"
  check_one "$d/$(basename "$f")" "$line" "$text"
  n=$((n + 1))
done
# two files declaring one name: the second is left out, the first loads
d=$TMP/collision; mkdir -p "$d"; cp "$SRC"/collision/*.cu "$d/"
check_one "$d/b_second.cu" 1 "variant dup is already declared by $d/a_first.cu"
grep -q "^dup " <<< "$OUT" || { echo "FAIL (collision): the first dup is not listed"; fail=1; }

# files no declaration parser should ever see: one line each naming the file
special() { # name expected-text
  list "$TMP/s"
  case "$ERR" in
  *"$TMP/s/$1: "*"$2"*) ;;
  *) echo "FAIL ($1): expected '$TMP/s/$1: ...$2', got: $ERR"; fail=1 ;;
  esac
  [ "$(grep -c . <<< "$ERR")" -eq 1 ] || { echo "FAIL ($1): expected one line: $ERR"; fail=1; }
  [ $RC -eq 0 ] || { echo "FAIL ($1): exit $RC"; fail=1; }
  builtins_listed "$1" || fail=1
  rm -rf "$TMP/s"
}
mkdir -p "$TMP/s"; mkfifo "$TMP/s/fifo.cu"; special fifo.cu "not a regular file"
mkdir -p "$TMP/s/dir.cu"; special dir.cu "not a regular file"
mkdir -p "$TMP/s"; truncate -s 6M "$TMP/s/huge.cu"; special huge.cu "bytes, more than the 4194304 allowed"
mkdir -p "$TMP/s"; printf '/* benchtop\nname nul\n\0\n*/\n' > "$TMP/s/nul.cu"; special nul.cu "NUL bytes"
mkdir -p "$TMP/s"; ln -s "$TMP/nowhere" "$TMP/s/dangling.cu"; special dangling.cu "cannot open: No such file"
mkdir -p "$TMP/s"; printf '__device__ int helper;\n' > "$TMP/s/helper.cu"; special helper.cu "no attn_fwd kernel"
if [ "$(id -u)" -ne 0 ]; then
  mkdir -p "$TMP/s"; cp "$SRC/../../../examples/kernels/tiles.cu" "$TMP/s/locked.cu"; chmod 000 "$TMP/s/locked.cu"
  special locked.cu "cannot open: Permission denied"
fi

# all of them in one directory: one line each, the good ones and the built-ins load
d=$TMP/all; mkdir -p "$d"; cp "$SRC"/*.cu "$d/"; mkfifo "$d/fifo.cu"
cp "$SRC/../../../examples/kernels/tiles.cu" "$d/"
list "$d"
want=$(( $(ls "$SRC"/*.cu | wc -l) + 1 ))
got=$(grep -c . <<< "$ERR")
[ "$got" -eq "$want" ] || { echo "FAIL (all): expected $want lines, got $got:"; echo "$ERR"; fail=1; }
[ $RC -eq 0 ] || { echo "FAIL (all): exit $RC"; fail=1; }
builtins_listed all || fail=1
grep -q "^tiles " <<< "$OUT" || { echo "FAIL (all): the good kernel tiles is not listed"; fail=1; }
# nothing on stderr is raw control text
if grep -q $'\x1b' "$TMP/err"; then echo "FAIL (all): an escape character reached stderr"; fail=1; fi

[ $fail -eq 0 ] && echo "hostile declarations: $((n + 8)) cases, all one line each"
exit $fail
