#!/bin/bash
# What `benchtop run` and htop users expect of the TUI: run options that reach the next run's
# records (scripted worker), the results filter (\, F4) and search (/, n, N), save as by
# extension (.csv, .md, refusal of others, asking before replacing a file), ~ and $VAR in path
# prompts, the marker for columns off screen, F1 and F10.
#   tui_parity.sh BENCHTOP MAKE_SESSION
BT=$1 FIX=$2
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py" BENCHTOP_EXAMPLES=/nonexistent
export HOME="$TUI_TMP/home" OUTDIR="$TUI_TMP/out dir"
mkdir -p "$HOME" "$OUTDIR"
SESSION="$HOME/fixture.json"
make_fixture "$FIX" "$SESSION"
NREC=$("$BT" show "$SESSION" --format json | grep -c '"variant"')
run() { tui_fresh; tui_start "$1" "$2" "TERM=screen-256color '$BT' '$3'; echo EXIT=\$?; sleep 600"; }
header() { screen | grep -E '^│ +variant ' | head -1; }
rows() { screen | grep -A40 -E '^│ +variant ' | grep -E '^│ [ *][a-z]' | grep -Ev '^│ +variant '; }

# Off-screen columns at 80x24: '>' ends the header; none on a wide terminal.
run 80 24 "$SESSION"
wait_for "Results $NREC"
header | grep -Eq '>$' || fail "no marker for the columns off screen: $(header)"
keys 3 l l l l l l l l; wait_for '^│ +variant +<'
step "80x24: '>' marks columns to the right, '<' those scrolled off the left"
keys F1; wait_for 'quit from any view'
keys Escape; wait_gone 'quit from any view'
keys F10; wait_for '^EXIT=0'
step "F1 help, F10 quits"
run 140 30 "$SESSION"
wait_for "Results $NREC"
header | grep -Eq '[<>]' && fail "a marker on a terminal wide enough for every column: $(header)"
step "140 columns: no marker"

# Filter: only mma records; a half-typed comparison says what is wrong and keeps the last good.
keys '\'; wait_for '^ filter:'
keys -l 'variant:mma'; wait_for "Results [0-9]+ of $NREC, filter variant:mma"
[ -n "$(rows)" ] || fail "no rows under the filter"
rows | grep -Ev '^│ [ *]mma ' && fail "a record that is not mma under the filter"
keys -l ' p50<'; wait_for 'expected a number'
keys BSpace BSpace BSpace BSpace; keys Enter; wait_for 'filter variant:mma: [0-9]+ of'
step "filter: $(rows | wc -l) mma records of $NREC"
keys F4; wait_for 'filter: variant:mma'
keys C-u Enter; wait_for "no filter: all $NREC records"
keys '\'; keys -l '!pass'; wait_for "filter !pass"
rows | grep -q ' pass ' && fail "a passing record under !pass"
keys Escape; wait_for "\[Results $NREC\]"
step "filter: F4, Ctrl-U clears, !pass, Esc restores"

# Search: cublas is records 11, 22 and 33 (arrival order); n and N walk them, wrapping.
keys g /; wait_for '^ search:'
keys -l cublas; wait_for " 11/$NREC "
keys Enter; wait_for 'n / N: next'
keys n; wait_for " 22/$NREC "
keys n n; wait_for " 11/$NREC "; wait_for 'wrapped'
keys N; wait_for " 33/$NREC "
keys /; keys -l nothing-like-it; wait_for 'no match for nothing-like-it'
keys Escape; wait_for " 33/$NREC "
step "search: /, n, N, wrap, no match, Esc goes back"

# Save as: ~ and $VAR expand; the extension picks the format; others are refused.
keys S; wait_for 'save as'
keys C-u; keys -l '~/table.csv'; keys Enter; wait_for "exported $NREC records as CSV"
head -1 "$HOME/table.csv" | grep -q '^variant,knobs,shape,' || fail "table.csv is not CSV: $(head -c 200 "$HOME/table.csv")"
[ "$(wc -l <"$HOME/table.csv")" -eq $((NREC + 1)) ] || fail "table.csv rows"
keys S C-u; keys -l '$OUTDIR/table.md'; keys Enter; wait_for 'as Markdown'
grep -q '^| variant' "$OUTDIR/table.md" || fail "table.md is not Markdown"
keys S C-u; keys -l '~/notes.txt'; keys Enter; wait_for '\.json saves the session, \.csv and \.md'
keys Escape
keys S C-u; keys -l '$NO_SUCH_VAR_X/a.json'; keys Enter; wait_for 'NO_SUCH_VAR_X is not set'
keys Escape
[ -e "$HOME/notes.txt" ] && fail "an unknown extension was written"
step "save as: ~/table.csv is CSV, \$OUTDIR/table.md Markdown, .txt and unset \$VAR refused"
echo 'precious' >"$HOME/keep.csv"
keys S C-u; keys -l '~/keep.csv'; keys Enter; wait_for 'keep.csv exists. Replace it'
keys n; wait_for 'not saved'
grep -qx precious "$HOME/keep.csv" || fail "keep.csv replaced after no"
keys S C-u; keys -l '~/keep.csv'; keys Enter; wait_for 'Replace it'
keys y; wait_for 'as CSV'
head -1 "$HOME/keep.csv" | grep -q '^variant,' || fail "keep.csv not replaced after yes"
keys S C-u; keys -l '~/copy.json'; keys Enter; wait_for 'autosave goes there now'
"$BT" show "$HOME/copy.json" >/dev/null || fail "copy.json does not load"
step "save as: asks before replacing another file; .json saves the session"
keys o; wait_for 'Open session'
keys p; wait_for 'open session'
keys -l '~/fixture.json'; keys Enter; wait_for 'opened .*fixture.json'
step "open by typed path with ~"

# Run options reach the next run's records: reps 37, cold L2 on, a fixed seed.
keys O; wait_for 'Run options'
keys Enter C-u; keys -l 0; keys Enter; wait_for 'reps: a whole number from 1 to 100000'
keys C-u; keys -l 37; keys Enter; wait_gone 'reps: '
keys j j Space; wait_for 'next: reps 37 cold-L2'
keys j j j j Enter C-u; keys -l 4242; keys Enter; wait_for 'seed 4242'
keys k Enter C-u; keys -l 'default,bogus name'; keys Enter; wait_for 'not a metric name'
keys Escape; keys j j j l; wait_for 'l2-persist kv'
keys Escape; wait_gone 'Run options'
keys 1 g Space 2 g Space; wait_for 'Variants 1/'
keys r; wait_for 'run finished: 1 records'
keys F10; wait_for '^EXIT=0'
# The fixture was recorded on another GPU than the scripted worker's: the run's record is in the
# new session the exit names.
RAN=$(screen | sed -n 's/^benchtop: session \(.*\) ([0-9]* records)$/\1/p' | tail -1)
[ -n "$RAN" ] && [ "$RAN" != "$SESSION" ] || fail "the run's record did not go to a new session ($RAN)"
last=$("$BT" show "$RAN" --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)["records"][-1]
o = r["options"]
print(o["reps"], o["cold_l2"], o["seed"], r["variant"])')
[ "$last" = "37 True 4242 naive" ] || fail "the run's record has options '$last', not '37 True 4242 naive'"
step "run options in the next record: reps 37, cold L2, seed 4242"
l2p=$("$BT" show "$RAN" --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["records"][-1]["options"].get("l2_persist"))')
[ "$l2p" = kv ] || fail "the run's record has l2_persist '$l2p', not 'kv'"
step "run options: l2-persist kv in the next record"
no_sanitizer_report
echo PASS
