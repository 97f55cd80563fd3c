#!/bin/bash
# The settings file ($XDG_CONFIG_HOME/benchtop/tui.conf): theme, hidden columns and sort order
# survive a restart; comments and lines it does not manage survive a save; a file linked from
# elsewhere stays a link; a malformed file, a FIFO and a huge file each give one line and the
# defaults, never a crash or a hang, and are never rewritten.
#   tui_config.sh BENCHTOP MAKE_SESSION
BT=$1 FIX=$2
. "$(dirname "$0")/lib.sh"
SESSION="$TUI_TMP/fixture.json"
make_fixture "$FIX" "$SESSION"
CONF="$XDG_CONFIG_HOME/benchtop/tui.conf"
run() { tui_fresh; tui_start 100 30 "TERM=screen-256color '$BT' '$SESSION'; echo EXIT=\$?; sleep 600"; }
header() { screen | grep -E '^│ +variant ' | head -1; }

# Change theme, hide p50 (the column cursor starts there), sort by p90.
run
wait_for 'Results [0-9]+'
keys t; wait_for 'theme: high-contrast'
keys H; wait_for 'hid column p50'
keys s; wait_for 'by p90 us asc'
keys q; wait_for '^EXIT=0'
grep -qx 'theme = high-contrast' "$CONF" || fail "theme not saved: $(cat "$CONF")"
grep -qx 'hidden = p50' "$CONF" || fail "hidden columns not saved: $(cat "$CONF")"
grep -qx 'sort = p90 asc' "$CONF" || fail "sort not saved: $(cat "$CONF")"
step "settings written: $(grep -v '^#' "$CONF" | tr '\n' ';')"

# Restart: p50 still hidden, still sorted by p90, and the theme after high-contrast is next.
run
wait_for 'Results [0-9]+, by p90 us asc'
header | grep -q 'p90 us' || fail "no header"
header | grep -q 'p50' && fail "p50 is shown again after a restart"
keys t; wait_for 'theme: light'
keys q; wait_for '^EXIT=0'
step "restart: theme, hidden columns and sort order kept"

# The user's comments and unknown-to-this-key lines stay; only changed keys are rewritten.
printf '# my settings\ntheme = light\n\n# columns I never read\nhidden = knobs, spills\n' >"$CONF"
run
wait_for 'Results [0-9]+'
header | grep -q 'knobs' && fail "knobs should be hidden"
keys A; wait_for 'all columns shown'
keys q; wait_for '^EXIT=0'
grep -qx '# my settings' "$CONF" && grep -qx '# columns I never read' "$CONF" || fail "comments lost: $(cat "$CONF")"
grep -qx 'theme = light' "$CONF" || fail "theme line changed: $(cat "$CONF")"
grep -qx 'hidden =' "$CONF" || fail "hidden not rewritten: $(cat "$CONF")"
step "only the changed key is rewritten; comments kept"

# A settings file linked from a dotfiles directory is written there; the link stays.
mkdir -p "$TUI_TMP/dotfiles"
printf 'theme = dark\n' >"$TUI_TMP/dotfiles/tui.conf"
rm -f "$CONF"; ln -s "$TUI_TMP/dotfiles/tui.conf" "$CONF"
run
wait_for 'Results [0-9]+'
keys t; wait_for 'theme: high-contrast'
keys q; wait_for '^EXIT=0'
[ -L "$CONF" ] || fail "the link was replaced by a file"
grep -qx 'theme = high-contrast' "$TUI_TMP/dotfiles/tui.conf" || fail "link target not updated"
step "a linked settings file: target written, link kept"

# Malformed: one line naming the file and line, defaults, the file untouched after changes.
rm -f "$CONF"
printf 'theme = light\nhidden = p50, nonsense\nsort\n' >"$CONF"
cp "$CONF" "$TUI_TMP/bad.conf"
run
wait_for 'tui.conf:2: hidden: unknown column .nonsense.'
header | grep -q 'p50' || fail "p50 should be shown (the bad line's default)"
keys H; sleep 0.2
keys q; wait_for '^EXIT=0'
cmp -s "$CONF" "$TUI_TMP/bad.conf" || fail "a malformed settings file was rewritten"
no_sanitizer_report
step "malformed file: one line, defaults, file left as it is"

# A FIFO (would block a plain read) and a 1 MB file: refused in one line, no hang.
rm -f "$CONF"; mkfifo "$CONF"
run
wait_for 'tui.conf: not a regular file'
keys q; wait_for '^EXIT=0'
rm -f "$CONF"; head -c 1048576 /dev/zero | tr '\0' '#' >"$CONF"
run
wait_for 'larger than 64 KB'
keys t; sleep 0.2
keys q; wait_for '^EXIT=0'
[ "$(stat -c %s "$CONF")" = 1048576 ] || fail "the oversized file was rewritten"
step "FIFO and oversized file refused without a hang"
echo PASS
