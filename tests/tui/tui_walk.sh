#!/bin/bash
# Walks through the whole TUI in tmux and checks each step against the captured screen:
# every panel, knob editor, shape add/edit/delete, sort, hide columns, mark two records and
# compare, detail, help, every theme, resize to 40x10 and back, quit; then that the process
# exited 0 and the terminal is back in cooked mode.
#   tui_walk.sh BENCHTOP MAKE_SESSION COLS ROWS [SESSION.json]
BT=$1 FIX=$2 COLS=$3 ROWS=$4 SESSION=${5:-}
. "$(dirname "$0")/lib.sh"

if [ -z "$SESSION" ]; then
  SESSION="$TUI_TMP/fixture.json"
  make_fixture "$FIX" "$SESSION"
fi
# The registry's size, not a constant: adding a variant must not break the walk.
NVAR=$("$BT" list variants | grep -cE '^[a-z0-9_]+ ')
NREC=$("$BT" show "$SESSION" --format json 2>/dev/null | grep -c '"variant"' || true)
cp "$SESSION" "$TUI_TMP/before.json"

tui_start "$COLS" "$ROWS" "printf 'BEFORE-MARK\n'; TERM=screen-256color '$BT' '$SESSION'; \
echo EXIT=\$?; stty -a | tr ' ;' '\n\n' | grep -Ex -- '-?(icanon|echo)' | tr '\n' ' '; echo; sleep 600"

wait_for 'Results [0-9]+'
wait_for "Variants [0-9]+/$NVAR"
wait_for 'Shapes [0-9]+/[0-9]+'
wait_for '^ benchtop \| '
screen | grep -q '\[Results' || fail "Results should have the focus at start"
step "main view at ${COLS}x${ROWS}"
if [ "$COLS" -ge 150 ]; then
  wait_for 'latency histogram'
  step "side detail pane on a wide terminal"
fi

# Variants: check one, open the knob editor of smem, change pad, close.
keys Tab; wait_for '\[Variants'
keys g Space; wait_for "Variants [1-9][0-9]*/$NVAR"
keys g j; keys Enter; wait_for 'Knobs: smem'
before=$(screen | grep -A1 'Esc close' | grep -Eo 'pad=[08]' | head -1)
keys Right
for _ in $(seq 1 100); do # a loaded machine (the sanitizer build) may take a while
  after=$(screen | grep -A1 'Esc close' | grep -Eo 'pad=[08]' | head -1)
  [ "$before" != "$after" ] && break
  sleep 0.05
done
[ "$before" != "$after" ] || fail "knob value did not change ($before)"
keys Escape; wait_gone 'Knobs: smem'
step "variants: check, knob editor ($before -> $after)"

# Shapes: check, add, reject a bad one, edit, delete.
keys Tab; wait_for '\[Shapes'
keys g Space; wait_for 'Shapes [1-9]+/'
keys a; wait_for 'add shape'
keys -l '3x5x77x64:causal'; keys Enter; wait_for '3x5x77x64:causal'
keys a; wait_for 'add shape'; keys -l 'nonsense'; keys Enter; wait_for 'expected|must be'
keys Escape; wait_gone 'add shape'
keys e; wait_for 'edit shape'
keys C-u; keys -l '3x5x78x64'; keys Enter; wait_for '3x5x78x64 '
keys d; wait_for 'removed shape 3x5x78x64'
step "shapes: check, add, bad input refused, edit, delete"

# Results: sort by p50 both ways, by TFLOP/s, hide and show a column.
keys Tab; wait_for '\[Results'
keys s; wait_for 'by p50 us asc'
first_asc=$(screen | grep -A1 'variant' | tail -1)
keys s; wait_for 'by p50 us desc'
first_desc=$(screen | grep -A1 'variant' | tail -1)
[ "$first_asc" != "$first_desc" ] || fail "sorting did not reorder rows"
keys l l; keys s; wait_for 'by TFLOP/s desc'
keys H; wait_for 'hid column'
keys A; wait_for 'all columns shown'
keys a; wait_for 'arrival order'
step "results: sort asc/desc, by another column, hide/show"

# Mark two records and compare them.
keys g Space Space; wait_for '2 marked'
keys c; wait_for 'Compare 2 records'
wait_for 'base'
wait_for '[+-][0-9.]+%'
screen | grep -q 'p50 us' || fail "compare lacks the p50 row"
keys l b; wait_for 'baseline:'
keys Escape; wait_for '\[Results'
step "compare: two records side by side, deltas, baseline switch"

# Detail of the selected record.
keys Enter; wait_for 'latency histogram'
wait_for 'Metrics'
keys G; wait_for 'Device and options'
keys Escape; wait_for '\[Results'
step "detail view"

# Help overlay.
keys '?'; wait_for 'compare the marked records'
keys Escape; wait_gone 'compare the marked records'
step "help overlay"

# Themes: cycle through all and come back.
seen="" prev=""
for _ in 1 2 3 4 5; do
  keys t
  # Wait for the next theme's name, not just any: the previous one is still on screen.
  for _ in $(seq 1 $((TUI_WAIT_S * 50))); do
    cur=$(screen | grep -Eo 'theme: [a-z-]+' | head -1 | cut -d' ' -f2)
    [ -n "$cur" ] && [ "$cur" != "$prev" ] && break
    sleep 0.02
  done
  [ -n "$cur" ] && [ "$cur" != "$prev" ] || fail "pressing t did not change the theme (still '$prev')"
  prev=$cur
  seen="$seen $cur"
done
for t in dark light monochrome high-contrast; do
  echo "$seen" | grep -qw -- "$t" || fail "theme $t not seen while cycling ($seen)"
done
step "themes cycled:$seen"

# Resize below the minimum and back.
tmx resize-window -x 40 -y 10
wait_for 'needs 60x16'
tmx resize-window -x "$COLS" -y "$ROWS"
wait_for '\[Results'
wait_for 'Variants'
step "resize to 40x10 (too-small message) and back"

keys q
wait_for '^EXIT='
wait_for '(^| )-?icanon( |$)'
out=$(screen)
echo "$out" | grep -q '^EXIT=0' || fail "exit status: $(echo "$out" | grep EXIT=)"
no_sanitizer_report
echo "$out" | grep -q 'BEFORE-MARK' || fail "terminal not restored (alternate screen still up)"
echo "$out" | grep -Eq '(^| )-(icanon|echo)' && fail "terminal left in raw mode"
echo "$out" | grep -Eq '(^| )icanon( |$)' || fail "stty check did not run"
step "quit: exit 0, screen and tty modes restored"

# The session still loads and holds the same records.
if [ -n "$NREC" ] && [ "$NREC" -gt 0 ]; then
  now=$("$BT" show "$SESSION" --format json 2>/dev/null | grep -c '"variant"')
  [ "$now" = "$NREC" ] || fail "session had $NREC records, now $now"
fi
"$BT" show "$SESSION" >/dev/null 2>&1 || fail "benchtop show cannot read the session after the TUI"
step "session intact"
echo "PASS"
