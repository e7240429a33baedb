#!/usr/bin/env bash
# The Hawk Notes app's figures, release build, real terminals (tmux) in two paired
# test hosts (root):
#   - keypress -> screen painted: from the app reading the key to ncurses' refresh returning, for
#     N keys sent with tmux send-keys (the terminal's own transport is not in it);
#   - launch -> restored screen drawn: from this script starting the app (tmux new-session) to the
#     app's first paint of its restored window, N launches (each ended with `q`);
#   - continue on B -> character drawn on B: from B's app reading `c` to its paint of the
#     continued character, over an open session (A's app shows a character each time), N trials.
# The app writes its timing lines to $HAWKNOTES_TRACE (wall clock, what was drawn).
#   Benchmarks/scripts/bench-hawknotes.sh [N]     (default 40)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-40}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl hawknotes
SET=hbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
tmux_a="" tmux_b=""
finish() {
  for p in $tmux_a $tmux_b; do kill "$p" 2>/dev/null || true; done
  end_daemons_and_hosts
}
trap finish EXIT
paired_hosts

# tmux_on HOST_INDEX ARGS...: tmux in that host, with a server of this script's own.
tmux_on() { local i=$1; shift; Tests/Rigs/testhosts.sh exec "$SET$i" tmux -S "$WORK/tmux$i.sock" "$@"; }
# launch INDEX NAME: the app on that host, tracing into $WORK/NAME.trace.
launch() {
  tmux_on "$1" new-session -d -x 100 -y 30 \
    "exec env HANDOFF_SOCKET=$WORK/$2/run/control.sock HAWKNOTES_LIBRARY=$REPO/config/library.json HAWKNOTES_TRACE=$WORK/$2.trace TERM=xterm-256color $BIN/hawknotes"
}
# until_trace NAME PATTERN COUNT: until the trace holds COUNT lines matching PATTERN (10 s).
until_trace() {
  local n
  for n in $(seq 1 1000); do
    [ "$(grep -c "$2" "$WORK/$1.trace" 2>/dev/null || true)" -ge "$3" ] && return 0
    sleep 0.01
  done
  echo "bench: timed out waiting for $3 x '$2' in $1's trace" >&2; exit 1
}
# stats: p50, p99, max of the numbers on stdin (milliseconds).
stats() { sort -n | awk '{v[NR]=$1} END {if (NR==0) {print "n=0"; exit}; p50=v[int((NR+1)*0.5)]; p99=v[int(NR*0.99)>0?int(NR*0.99):1]; printf "n=%d p50=%.3f ms p99=%.3f ms max=%.3f ms\n", NR, p50, p99, v[NR]}'; }

echo "== release build, A = ${SET}1 (alpha), B = ${SET}2 (beta), $N trials each"

# Launch -> restored screen drawn (alpha).
: > "$WORK/launch.times"
for i in $(seq 1 "$N"); do
  t0=$(date +%s.%N)
  launch 1 alpha
  [ -n "$tmux_a" ] || tmux_a=$(tmux_on 1 display-message -p '#{pid}')
  until_trace alpha "drawn restored" "$i"
  t1=$(grep "drawn restored" "$WORK/alpha.trace" | tail -1 | cut -d' ' -f1)
  echo "$t0 $t1" | awk '{printf "%.3f\n", ($2 - $1) * 1000}' >> "$WORK/launch.times"
  tmux_on 1 send-keys q
  # The server ends with the app's session; the next launch starts another.
  for n in $(seq 1 500); do tmux_on 1 has-session 2>/dev/null || break; sleep 0.01; done
  tmux_a=""
done
echo "launch -> restored screen drawn: $(stats < "$WORK/launch.times")"

# Keypress -> screen painted (alpha).
launch 1 alpha
tmux_a=$(tmux_on 1 display-message -p '#{pid}')
until_trace alpha "drawn restored" "$((N + 1))"
before=$(grep -c '^[0-9.]* key ' "$WORK/alpha.trace" || true)
for i in $(seq 1 "$N"); do
  if [ $((i % 2)) -eq 1 ]; then tmux_on 1 send-keys Down; else tmux_on 1 send-keys Up; fi
  until_trace alpha '^[0-9.]* key ' "$((before + i))"
done
grep '^[0-9.]* key ' "$WORK/alpha.trace" | tail -n "$N" | awk '{print $4}' > "$WORK/key.times"
echo "keypress -> screen painted: $(stats < "$WORK/key.times")"

# Continue on B -> character drawn on B, over an open session.
tmux_on 1 send-keys Down Enter
launch 2 beta
tmux_b=$(tmux_on 2 display-message -p '#{pid}')
until_trace beta "drawn restored" 1
: > "$WORK/continue.times"
for i in $(seq 1 "$N"); do
  # A shows the other of two characters (a new activity, which B lists at once), B's offer line
  # names it, and B continues it.
  if [ $((i % 2)) -eq 1 ]; then tmux_on 1 send-keys Escape Down Enter; who="Captain Orrin Vale"; else tmux_on 1 send-keys Escape Up Enter; who="Lady Beatrice"; fi
  for n in $(seq 1 1000); do tmux_on 2 capture-pane -p | grep -q "Viewing $who.*is open on alpha" && break; sleep 0.01; done
  tmux_on 2 send-keys c
  until_trace beta "drawn continued" "$i"
  tc=$(grep '^[0-9.]* key character("c") ' "$WORK/beta.trace" | tail -1 | cut -d' ' -f1)
  td=$(grep "drawn continued" "$WORK/beta.trace" | tail -1 | cut -d' ' -f1)
  echo "$tc $td" | awk '{printf "%.3f\n", ($2 - $1) * 1000}' >> "$WORK/continue.times"
  tmux_on 2 send-keys Escape
done
echo "continue on B -> character drawn on B: $(stats < "$WORK/continue.times")"
echo "targets: keypress <= 16 ms, launch <= 150 ms, continue <= 50 ms (p50)"
