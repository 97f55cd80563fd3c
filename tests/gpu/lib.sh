# Shared by the GPU shell tests. $1 of each test is the benchtop binary.
BT=${1:?usage: $0 BENCHTOP}
OUTDIR=${GPU_TEST_OUT:-$(mktemp -d)}
mkdir -p "$OUTDIR"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$OUTDIR/cache}
export XDG_DATA_HOME=${XDG_DATA_HOME:-$OUTDIR/data}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Exit 77 (skipped, one line) when benchtop finds no GPU.
require_gpu() {
  local out rc
  out=$("$BT" run -v naive -s 1x1x1x64 --reps 1 --warmup 0 --metrics none --format json \
        --force -o "$OUTDIR/probe.json" 2>&1); rc=$?
  if [ $rc -eq 3 ]; then echo "SKIP $(basename "$0"): $(echo "$out" | head -n1)"; exit 77; fi
}

# The TUI driven through tmux, on a server of its own: tui_start NAME WIDTH HEIGHT COMMAND;
# snap SUFFIX captures the screen to $OUTDIR/NAME-SUFFIX.txt; keys types keys one by one;
# wait_screen REGEX SECONDS SUFFIX fails the test unless the screen shows REGEX in time;
# run_until_idle PATTERN presses r and waits (up to 120 s) for PATTERN and "idle", then snaps
# "results"; tui_stop ends the server.
tui_start() {
  TUI_NAME=$1 T="tmux -L benchtop-gpu-$1"
  $T kill-server 2> /dev/null
  $T new-session -d -s t -x "$2" -y "$3" "$4"
}
snap() { $T capture-pane -p -t t > "$OUTDIR/$TUI_NAME-$1.txt"; }
keys() { for k in "$@"; do $T send-keys -t t "$k"; sleep 0.15; done; }
tui_stop() { $T kill-server 2> /dev/null; }
wait_screen() {
  for _ in $(seq 1 $(( $2 * 5 ))); do
    snap "$3"; grep -Eq -- "$1" "$OUTDIR/$TUI_NAME-$3.txt" && return 0; sleep 0.2
  done
  echo "FAIL $(basename "$0" .sh): no /$1/ on the screen"; cat "$OUTDIR/$TUI_NAME-$3.txt"; tui_stop; exit 1
}
run_until_idle() {
  keys r
  for _ in $(seq 1 120); do
    sleep 1
    snap running
    grep -q "$1" "$OUTDIR/$TUI_NAME-running.txt" && grep -q "idle" "$OUTDIR/$TUI_NAME-running.txt" && break
  done
  snap results
}
