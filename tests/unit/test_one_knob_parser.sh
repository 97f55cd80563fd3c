#!/usr/bin/env bash
# kernels/knobs.c is the only knob parser and formatter: no other source file compares whole
# "k=v,..." settings as text (strcmp on a record's, entry's or candidate's .knobs), splits knob
# text itself (strtok_r or strchr for '=' / ',' on it) or writes "k=v" from a knob's name and
# value. Settings are compared by value (KnobValues_equal, KnobText_same). A heuristic over the
# source tree: a hit names the file and line to move onto kernels/knobs.h.
ROOT=${1:?usage: test_one_knob_parser.sh SOURCE_ROOT}
cd "$ROOT" || exit 1
RE="strn?cmp\([^;()]*(->|\.)knobs[,)]|strchr\([^)]*knob[^)]*, *'[=,]'\)|strtok_r\([^)]*knob|\"%s=%s\", [a-z>.\[\]-]*(knobs|kd)"
hits=$(grep -rnE "$RE" --include='*.c' --include='*.h' bench cmd common cupti kernels sessions tui |
       grep -v '^kernels/knobs\.c:')
if [ -n "$hits" ]; then
  echo "FAIL: knob text handled outside kernels/knobs.c (use kernels/knobs.h):"
  echo "$hits"
  exit 1
fi
echo "PASS one knob parser and formatter (kernels/knobs.c)"
