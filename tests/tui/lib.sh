# Shared helpers for the tmux-driven TUI tests (sourced, not run).
# Each test gets its own tmux server (-L), its own XDG dirs, and cleans up after itself.

set -u

TUI_SOCK="benchtop-test-$$-$(date +%s%N)"
TUI_TMP=$(mktemp -d "${TMPDIR:-/tmp}/benchtop-tui.XXXXXX")
TUI_WAIT_S=${TUI_WAIT_S:-8}
export XDG_DATA_HOME="$TUI_TMP/data" XDG_CONFIG_HOME="$TUI_TMP/config" XDG_CACHE_HOME="$TUI_TMP/cache"
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"

tmx() { tmux -L "$TUI_SOCK" -f /dev/null "$@"; }

TUI_SOCKS=""
tui_cleanup() {
  for s in $TUI_SOCKS $TUI_SOCK; do tmux -L "$s" kill-server 2>/dev/null; done
  rm -rf "$TUI_TMP"
}

# A fresh tmux server for the next tui_start (reusing a socket races with its shutdown).
tui_fresh() {
  tmx kill-server 2>/dev/null
  TUI_SOCKS="$TUI_SOCKS $TUI_SOCK"
  TUI_SOCK="benchtop-test-$$-$(date +%s%N)"
}
trap tui_cleanup EXIT

fail() {
  echo "FAIL: $*"
  echo "---- screen ----"
  tmx capture-pane -p 2>/dev/null
  echo "----------------"
  local p
  for p in $(pgrep -P "$(tmx display -p '#{pane_pid}' 2>/dev/null)" 2>/dev/null); do
    echo "---- process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | head -c 200) ----"
    echo "state $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) wchan $(cat "/proc/$p/wchan" 2>/dev/null)"
  done
  if [ -f "$XDG_CONFIG_HOME/benchtop/tui.conf" ]; then
    echo "---- tui.conf ----"
    head -c 2000 "$XDG_CONFIG_HOME/benchtop/tui.conf"
  fi
  exit 1
}

step() { echo "ok: $*"; }

# tui_start COLS ROWS CMD: runs CMD (a shell command line) in a detached pane of that size.
tui_start() {
  local cols=$1 rows=$2
  shift 2
  command -v tmux >/dev/null || { echo "tmux not installed"; exit 77; }
  tmx new-session -d -x "$cols" -y "$rows" "$*" || fail "tmux new-session"
  tmx set-option -g remain-on-exit on >/dev/null 2>&1
}

screen() { tmx capture-pane -p; }

# wait_for REGEX [seconds]: until the screen matches (grep -E).
wait_for() {
  local limit=${2:-$TUI_WAIT_S} start now
  start=$(date +%s%N)
  while :; do
    screen | grep -Eq -- "$1" && return 0
    now=$(date +%s%N)
    [ $(((now - start) / 1000000)) -ge $((limit * 1000)) ] && fail "timed out waiting for /$1/"
    sleep 0.02
  done
}

# wait_gone REGEX: until the screen no longer matches.
wait_gone() {
  local limit=${2:-$TUI_WAIT_S} start now
  start=$(date +%s%N)
  while screen | grep -Eq -- "$1"; do
    now=$(date +%s%N)
    [ $(((now - start) / 1000000)) -ge $((limit * 1000)) ] && fail "still showing /$1/"
    sleep 0.02
  done
}

keys() { tmx send-keys "$@"; }

pane_pid() { tmx display -p '#{pane_pid}'; }
pane_dead() { tmx display -p '#{pane_dead}'; }

# The benchtop process under the pane's shell.
benchtop_pid() {
  local parent
  parent=$(pane_pid)
  pgrep -P "$parent" -x benchtop | head -1
}

# make_fixture FIXTURE_EXE OUT [COPIES]
make_fixture() { "$1" "$2" "${3:-1}" >/dev/null || fail "fixture $1 failed"; }

# Sanitizer reports land on the pane (benchtop's stderr).
no_sanitizer_report() {
  screen | grep -Eq 'Sanitizer|runtime error:' && fail "sanitizer report on screen"
  return 0
}

# Mouse input as an xterm sends it in X10 form (ESC [ M b x y, each +32, 1-based), which is what
# TERM=screen-256color's kmous expects. Columns and rows are 0-based here; below 94 only.
mouse_report() { printf '\033[M%b%b%b' "$(printf '\\%03o' $((32 + $1)))" \
  "$(printf '\\%03o' $((33 + $2)))" "$(printf '\\%03o' $((33 + $3)))"; }
mouse_send() { keys -l "$(mouse_report "$@")"; }
mouse_click() { mouse_send 0 "$1" "$2"; mouse_send 3 "$1" "$2"; }   # press, release
# A fast double click: four reports in one write, as a terminal sends them.
mouse_double() { keys -l "$(mouse_report 0 "$1" "$2")$(mouse_report 3 "$1" "$2")$(mouse_report 0 \
  "$1" "$2")$(mouse_report 3 "$1" "$2")"; }
mouse_wheel() { mouse_send $([ "$1" = up ] && echo 64 || echo 65) "$2" "$3"; }
