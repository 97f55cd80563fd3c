#!/bin/bash
# Idle CPU over 10 s with results on screen (ps and /proc; fails above 1 %), and keypress to
# redraw latency over 30 key presses (median must be under TUI_LATENCY_MS, default 50).
#   tui_perf.sh BENCHTOP MAKE_SESSION
BT=$1 FIX=$2
. "$(dirname "$0")/lib.sh"
LIMIT_MS=${TUI_LATENCY_MS:-50}
SESSION="$TUI_TMP/fixture.json"
make_fixture "$FIX" "$SESSION" 3

tui_start 100 30 "TERM=screen-256color exec '$BT' '$SESSION'"
wait_for 'Results 99'
pid=$(pane_pid)
[ -n "$pid" ] || fail "no pid"
sleep 1
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks); s0=$(date +%s%N)
sleep 10
t1=$(ticks); s1=$(date +%s%N)
cpu=$(awk -v t="$((t1 - t0))" -v hz="$hz" -v ns="$((s1 - s0))" 'BEGIN { printf "%.2f", 100 * (t / hz) / (ns / 1e9) }')
echo "idle CPU over 10 s: ${cpu}% (ps says: $(ps -o %cpu=,time= -p "$pid" | xargs))"
awk -v c="$cpu" 'BEGIN { exit !(c > 1.0) }' && fail "idle CPU ${cpu}% is above 1%"
step "idle CPU ${cpu}%"

# Latency: j moves the cursor; the "N/99" position on the border changes with the redraw.
samples=""
for i in $(seq 1 30); do
  want=" $((i + 1))/99 "
  start=$(date +%s%N)
  keys j
  while ! screen | grep -qF -- "$want"; do
    [ $((($(date +%s%N) - start) / 1000000)) -gt 2000 ] && fail "no redraw for key $i"
  done
  samples="$samples $((($(date +%s%N) - start) / 1000))"
done
read -r median max <<<"$(echo $samples | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]/1000, a[NR]/1000}')"
echo "keypress to redraw (incl. tmux capture): median ${median} ms, max ${max} ms, goal < ${LIMIT_MS} ms"
awk -v m="$median" -v l="$LIMIT_MS" 'BEGIN { exit !(m > l) }' && fail "median latency ${median} ms"
step "latency"
keys q
echo PASS
