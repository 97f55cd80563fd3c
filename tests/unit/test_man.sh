#!/usr/bin/env bash
# The generated man page renders without a groff warning and documents every command and every
# option that `benchtop CMD --help` shows (the two are written from the same table).
BT=${1:?usage: test_man.sh BENCHTOP MANPAGE}
MAN=${2:?usage: test_man.sh BENCHTOP MANPAGE}
command -v man > /dev/null || { echo "man is not installed: skipped"; exit 77; }
fail=0
warnings=$(MANWIDTH=80 man --warnings -l "$MAN" 2>&1 > /dev/null)
[ -z "$warnings" ] || { echo "FAIL man -l warns: $warnings"; fail=1; }
text=$(MANWIDTH=200 man -l "$MAN" 2>/dev/null | col -b)
[ -n "$text" ] || { echo "FAIL man -l $MAN rendered nothing"; exit 1; }
cmds=$("$BT" --help | sed -n 's/^  benchtop \([a-z-]*\).*/\1/p')
[ -n "$cmds" ] || { echo "FAIL no command in benchtop --help"; exit 1; }
for c in $cmds; do
  grep -q "^   benchtop $c" <<< "$text" || { echo "FAIL man page lacks the command $c"; fail=1; }
  for o in $("$BT" "$c" --help | grep -o -- '--[a-z0-9-]*' | sort -u); do
    [ "$o" = --help ] && continue
    grep -q -- "$o" <<< "$text" || { echo "FAIL man page lacks $c $o"; fail=1; }
  done
done
for c in bench-metrics generate worker; do
  if grep -q "benchtop $c" <<< "$text"; then echo "FAIL the hidden command $c is in the man page"; fail=1; fi
done
[ $fail -eq 0 ] && echo "ok: man page renders and documents $(wc -w <<< "$cmds") commands"
exit $fail
