#!/bin/bash
# Hostile input to the TUI: escape sequences in a session, its metric names included (the pane's
# title, screen and bell stay benchtop's), a record that never built (its fields read n/a, never -1 or nan), a FIFO theme file
# (never a hang), TERM=dumb (one line, not a blank screen), HOME unset with a session planted in
# /tmp's old fallback (never opened).
#   tui_hostile.sh BENCHTOP
BT=$1
. "$(dirname "$0")/lib.sh"
export BENCHTOP_EXAMPLES=/nonexistent
S="$TUI_TMP/evil.json"
python3 - "$S" <<'PY'
import json, sys
evil = "\x1b]2;PWNED\x07\x1b[2J\x1b[H\rX\x9b31m\u202e\x07"
dev = {"name": "gpu" + evil, "cc_major": 9, "cc_minor": 0}
ok = {"variant": "naive", "knobs": "", "shape": "1x1x64x64", "status": "pass",
      "timing": {"p50": 10.0, "p90": 11.0, "nsamples": 2, "samples": [10.0, 11.0]},
      "build": {"regs": 40, "compile_ms": 120.0, "arch": "sm_90"}, "device": dev,
      "metrics": [{"name": "m" + evil, "value": 5.0, "unit": "u\x1b[2J\x07", "reason": ""}]}
never = {"variant": "smem\x1b]2;PWNED\x07\r\x9b", "knobs": "pad=0" + evil, "shape": "1x1x64x64",
         "status": "error", "reason": "compile: no" + evil}
json.dump({"schema": "benchtop.session/1", "host": "host" + evil, "device": dev,
           "records": [ok, never]}, open(sys.argv[1], "w"))
PY

tui_start 200 40 "TERM=screen-256color '$BT' '$S'; echo EXIT=\$?; sleep 600"
wait_for 'Results 2'
title=$(tmx display -p '#{pane_title}')
case "$title" in *PWNED*) fail "the session set the terminal's title: $title" ;; esac
screen | grep -q 'benchtop |' || fail "the status line was wiped"
screen | grep -q "m?]2;PWNED" || fail "the metric column with an escape in its name is not shown as text"
[ "$(tmx display -p '#{window_bell_flag}')" = 0 ] || fail "the session rang the bell"
step "escape sequences in the session stay on the page as text (title: $title)"
keys j Enter
wait_for 'Esc back'  # the full detail view (the main screen's Detail panel shows Build too)
wait_for 'not built for this record'
screen | grep -q 'not built for this record' || fail "the never-built record's build fields are not n/a"
screen | grep -Eq 'regs -1|nan ms|nan MHz|-1 B' && fail "-1 or nan shown for fields never measured"
step "a record that never built: n/a, not -1 or nan"
keys Escape q
wait_for '^EXIT=0'
no_sanitizer_report

# A FIFO among the themes: listed maybe, never read as a blocking file.
tui_fresh
mkdir -p "$XDG_CONFIG_HOME/benchtop/themes"
mkfifo "$XDG_CONFIG_HOME/benchtop/themes/evil.theme"
tui_start 100 30 "BENCHTOP_THEME=evil TERM=screen-256color '$BT' '$S'; echo EXIT=\$?; sleep 600"
wait_for 'Results 2'
keys t t t t t
sleep 0.3
keys q
wait_for '^EXIT=0'
step "a FIFO theme file: no hang (start-up or cycling themes)"

# TERM=dumb: one line, exit 2.
tui_fresh
tui_start 100 30 "TERM=dumb '$BT' '$S'; echo EXIT=\$?; sleep 600"
wait_for '^EXIT=2'
screen | grep -q 'needs a terminal that can move the cursor' || fail "no one-line refusal for TERM=dumb"
step "TERM=dumb: one line and exit 2"

# HOME unset: the old fallback /tmp/.local/share/benchtop/sessions is never looked at.
planted_dir=/tmp/.local/share/benchtop/sessions
mkdir -p "$planted_dir"
planted="$planted_dir/planted-$$.json"
python3 - "$planted" "PLANTED-$$" <<'PY'
import json, sys
json.dump({"schema": "benchtop.session/1", "host": sys.argv[2], "records": []}, open(sys.argv[1], "w"))
PY
trap 'rm -f "$planted"; tui_cleanup' EXIT
tui_fresh
tui_start 100 30 "env -u HOME -u XDG_DATA_HOME TERM=screen-256color '$BT'; echo EXIT=\$?; sleep 600"
wait_for 'benchtop \|'
screen | grep -q "planted-$$" && fail "HOME unset: opened the session planted in /tmp"
keys q
wait_for '^EXIT='
step "HOME unset: the session planted under /tmp is not opened"
echo PASS
