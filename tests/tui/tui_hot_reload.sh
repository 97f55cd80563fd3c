#!/bin/bash
# Hot reload: a kernel file of the kernel path (--kernels DIR) saved in an editor shows on the
# status line within a second ("mine changed: compiling..."), then "rebuilt mine" with its
# registers; a save that does not compile shows the compiler's first error as FILE:LINE and a
# broken declaration its FILE:LINE, each keeping the last good version; a fixed save rebuilds;
# a deleted file is one line; the TUI never stops. With "poll" the same through the polling
# watcher (BENCHTOP_WATCH=poll: no inotify).
#   tui_hot_reload.sh BENCHTOP [poll]
BT=$1 MODE=${2:-inotify}
. "$(dirname "$0")/lib.sh"
export BENCHTOP_WORKER="$(cd "$(dirname "$0")" && pwd)/fake_worker.py" BENCHTOP_EXAMPLES=/nonexistent
unset BENCHTOP_KERNEL_PATH BENCHTOP_EXTRA_KERNELS BENCHTOP_KERNEL_DIR
[ "$MODE" = poll ] && export BENCHTOP_WATCH=poll
# The status line is due within a second of the save; a sanitizer build runs slower.
LIMIT_MS=${RELOAD_LIMIT_MS:-1000}
K="$TUI_TMP/kernels"
"$BT" new mine --from naive -o "$K" >/dev/null || fail "benchtop new mine --from naive"
F="$K/mine.cu"
cp "$F" "$TUI_TMP/good.cu"
S="$TUI_TMP/s.json"
tui_start 200 45 "TERM=screen-256color '$BT' --kernels '$K' '$S'; echo EXIT=\$?; sleep 600"
wait_for 'Variants 0/'
wait_for ' mine '
step "mine is listed"

# save FILE_CONTENT_CMD: writes the file as an editor does (a new file renamed over it).
save() { "$@" > "$F.tmp" && mv "$F.tmp" "$F"; }
# within_limit REGEX: the screen matches within LIMIT_MS of now.
within_limit() {
  local start now
  start=$(date +%s%N)
  while ! screen | grep -Eq -- "$1"; do
    now=$(date +%s%N)
    [ $(((now - start) / 1000000)) -ge "$LIMIT_MS" ] && fail "no /$1/ within $LIMIT_MS ms of the save"
    sleep 0.02
  done
  echo "   ($(( ($(date +%s%N) - start) / 1000000 )) ms)"
}

save sed 's|^// Rung 1 of the ladder: naive.|// Rung 1 of the ladder: naive (edited).|' "$TUI_TMP/good.cu"
within_limit 'mine changed: compiling|rebuilt mine'
wait_for 'rebuilt mine: compiled in [0-9]+ ms.*regs' 60
step "a saved edit rebuilds mine"

# Code that does not compile: the compiler's first error, FILE:LINE, the last good build kept.
save sed 's|^#define NCHUNK (HEAD_DIM / 8).*|#define NCHUNK (HEAD_DIM / 8)\nint broken = ;|' "$TUI_TMP/good.cu"
line=$(grep -n '^int broken = ;' "$F" | cut -d: -f1)
within_limit 'mine changed: compiling|mine\.cu'
wait_for "mine\\.cu:$line: error.*keeps its last good build" 60
step "a compile error shows as mine.cu:$line"

# A broken declaration: its FILE:LINE at once, nothing compiled.
save sed 's|^tolerance 2e-3|tolerance banana|' "$TUI_TMP/good.cu"
line=$(grep -n '^tolerance banana' "$F" | cut -d: -f1)
within_limit "mine\\.cu:$line: .*tolerance.*keeps its last good version"
step "a declaration error shows as mine.cu:$line"

save cat "$TUI_TMP/good.cu"
within_limit 'mine changed: compiling|rebuilt mine'
wait_for 'rebuilt mine: compiled' 60
step "the fixed file rebuilds"

rm -f "$F"
within_limit 'mine\.cu: cannot open.*keeps its last good version'
step "a deleted file is one line"
[ "$(pane_dead)" = 1 ] && fail "benchtop ended"
no_sanitizer_report
keys q; wait_for 'EXIT=0'
step "quit is clean"
echo "PASS tui_hot_reload ($MODE)"
