#!/usr/bin/env bash
# The shared clipboard's figures between two paired test hosts (root), release build, each host
# with Xvfb and the clipboard agent; the copying and pasting programs are X clients of the probe's
# own (python3-xlib), so that each moment is the X server's:
#   - a copy on alpha (the program takes the clipboard) -> beta's agent owns beta's clipboard;
#   - a paste on beta of 64 KB of text, and of a 10 MB PNG -> the last byte in the pasting program;
#   - bytes alpha sends on its link while 100 copies are made and none pasted, per copy;
#   - beta's agent's idle RSS.
#   Benchmarks/scripts/bench-clipboard.sh [N]      (default 40 copies, N/2 text pastes, 5 image pastes)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-40}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl handoff-clipboard-agent
SET=cbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
displays=()
end() {
  end_daemons_and_hosts
  # A killed Xvfb leaves its lock file in the shared /tmp.
  for d in "${displays[@]}"; do rm -f "/tmp/.X$d-lock" "/tmp/.X11-unix/X$d"; done
}
trap end EXIT
paired_hosts
for i in 1 2; do
  # Abstract sockets only: each host's X server is reached inside its own network namespace.
  Tests/Rigs/testhosts.sh exec ${SET}$i /usr/bin/Xvfb -displayfd 1 -nolisten tcp -nolisten unix >"$WORK/display$i" 2>/dev/null &
  for _ in $(seq 100); do [ -s "$WORK/display$i" ] && break; sleep 0.1; done
  displays+=("$(cat "$WORK/display$i")")
  name=$([ "$i" = 1 ] && echo alpha || echo beta)
  Tests/Rigs/testhosts.sh exec ${SET}$i env DISPLAY=":$(cat "$WORK/display$i")" XDG_RUNTIME_DIR="$WORK/$name" \
    HANDOFF_SOCKET="$WORK/$name/run/control.sock" "$BIN/handoff-clipboard-agent" 2>"$WORK/agent-$name.log" &
  # testhosts.sh's PID; the agent is below it (the probe follows the children).
  echo $! >"$WORK/agent-$name.pid"
done
for name in alpha beta; do
  for _ in $(seq 100); do ctl "$name" clipboard status --json | grep -q '"backend"' && break; sleep 0.1; done
  ctl "$name" clipboard status --json | grep -q '"backend"' || { echo "bench: $name's agent did not start:"; cat "$WORK/agent-$name.log"; exit 1; }
done
Tests/Rigs/testhosts.sh exec ${SET}1 /usr/bin/python3 "$REPO/Benchmarks/scripts/bench-clipboard.py" \
  "$WORK" "$SET" "$N" ":${displays[0]}" ":${displays[1]}" || {
  echo "bench: the clipboards then:"; ctl alpha clipboard status; ctl beta clipboard status
  echo "beta's display offers:"; Tests/Rigs/testhosts.sh exec ${SET}2 env DISPLAY=":${displays[1]}" /usr/bin/xclip -selection clipboard -o -t TARGETS || true
  exit 1; }
