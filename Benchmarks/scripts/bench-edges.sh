#!/usr/bin/env bash
# The edges a person meets first, between two paired test hosts (root), release build:
#   - `handoffctl status` from process start to exit, the daemon running: launched in the test
#     host through nsenter, as a person's shell would, timed on CLOCK_MONOTONIC (N trials);
#     The same launched by a process already in the test host, as a shell on a machine is (no
#     setns per command), beside /bin/true launched the same way;
#   - `handoffctl --help` the same way (no daemon, no socket: the start-up alone), `handoffctl
#     publish` (one-shot, as status), and `handoffctl scenes` (a command that runs on Swift's
#     concurrency pool and one event loop, as pair does, but exits by itself; watch and handle
#     run their tasks on that loop),
#     and nsenter alone; all but publish interleaved (Benchmarks/scripts/bench-launch.py);
#   - a push to a live handler on the other host: from an open client's `send` on A to the
#     handler's read on B (also with both daemons woken 1 ms before), from `handoffctl send`
#     launched on A to that read, and the floor of the same pushes with no daemon: relays in C,
#     and relays on SwiftNIO (handoff-push-relay), without and with a task per read
#     (Benchmarks/scripts/bench-push.py);
#   - handoffd's idle RSS on both hosts, 10 s after it started;
#   - the binaries' sizes as built and as packaged (stripped of debug info), and the .deb's if
#     scripts/dev/package-deb.sh made one.
# min / median / p90 in milliseconds. Presence (SIGTERM -> peerAbsent, restart -> peerPresent) is
# Benchmarks/scripts/bench-presence.sh; continuation latency scripts/bench-continue.sh.
#   Benchmarks/scripts/bench-edges.sh [N]          (BENCH_BIN=DIR: binaries built elsewhere, before/after)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-40}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl hawknotes handoff-push-relay
SET=ebench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
trap end_daemons_and_hosts EXIT
paired_hosts
anchor=$(Tests/Rigs/testhosts.sh pid "${SET}1")

# Each command launched N times, the rows interleaved (Benchmarks/scripts/bench-launch.py: this VM's speed
# drifts within a minute, and rows timed one after another compared minutes, not commands).
in_alpha=(nsenter -t "$anchor" -m -n --)
sock="$WORK/alpha/run/control.sock"
python3 Benchmarks/scripts/bench-launch.py "$N" \
  "handoffctl status, start -> exit" "${in_alpha[@]}" "$BIN/handoffctl" status --socket "$sock" :: \
  "handoffctl --help, start -> exit" "${in_alpha[@]}" "$BIN/handoffctl" --help :: \
  "handoffctl scenes (async), start -> exit" "${in_alpha[@]}" "$BIN/handoffctl" scenes --socket "$sock" :: \
  "nsenter alone (/bin/true), start -> exit" "${in_alpha[@]}" /bin/true
# The same commands launched by a process already in the test host: a person's shell on a machine
# enters no namespace per command. On this VM nsenter added 1.6-2.4 ms to each launch (medians,
# the rows below; docs/PERFORMANCE.md, "handoffctl's start"). Interleaved with the same command
# through nsenter, from the same launcher, so that the difference is nsenter's, in one sitting.
"${in_alpha[@]}" python3 "$REPO/Benchmarks/scripts/bench-launch.py" "$N" \
  "in the test host: handoffctl status" "$BIN/handoffctl" status --socket "$sock" :: \
  "in the test host: the same through nsenter" "${in_alpha[@]}" "$BIN/handoffctl" status --socket "$sock" :: \
  "in the test host: /bin/true" /bin/true
# One-shot, as status, but after the others: each publish has both daemons tell the other, which
# would fall on the command launched next.
python3 Benchmarks/scripts/bench-launch.py "$N" \
  "handoffctl publish, start -> exit" "${in_alpha[@]}" "$BIN/handoffctl" publish --type org.hawknotes.bookDetail \
  --info bookID=E34747BE-30DC-4DD8-B191-BC6C56B9B9A3 --title "The Burning Swift" --socket "$sock"
# The daemon's part of `status`: the request and its answer on a connection already open.
python3 - "$N" "$WORK/alpha/run/control.sock" <<'PY'
import socket, sys, time
n, path = int(sys.argv[1]), sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
f = s.makefile("rb")
ms = []
for i in range(n + 1):
    t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    s.sendall(b'{"id":%d,"op":"status"}\n' % (i + 1))
    f.readline()
    if i: ms.append((time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t) / 1e6)
ms.sort()
print(f"{'status on an open connection (daemon side)':<44} min {ms[0]:6.2f}  median {ms[len(ms) // 2]:6.2f}  p90 {ms[int(len(ms) * 0.9)]:6.2f} ms  (N={n})")
PY

# A push to a live handler on beta, cold and with the daemons woken 1 ms before, `handoffctl send`
# to the same handler, and the floors of the same pushes (two relays in C in place of the
# daemons; two on SwiftNIO, copying at once and through a task each): Benchmarks/scripts/bench-push.py says
# how each is timed.
publish_pushed
clang -O2 -Wall -Werror -o "$WORK/push-relay" Benchmarks/scripts/push-relay.c
# relays NAME PORT RELAY...: relay b on beta (ready once it prints so), then relay a on alpha.
relays() {
  local name=$1 port=$2
  shift 2
  Tests/Rigs/testhosts.sh exec "${SET}2" "$@" b "$WORK/$name-b.sock" "$port" > "$WORK/$name-b.out" &
  until_true 10 "the $name relay on beta" grep -qs ready "$WORK/$name-b.out"
  Tests/Rigs/testhosts.sh exec "${SET}1" "$@" a "$WORK/$name-a.sock" "$(Tests/Rigs/testhosts.sh addr "${SET}2")" "$port" &
  until_true 10 "the $name relay on alpha" test -S "$WORK/$name-a.sock"
}
relays floor 7431 "$WORK/push-relay"
relays nio 7432 "$BIN/handoff-push-relay" --direct
relays task 7433 "$BIN/handoff-push-relay"
# In alpha's namespaces: `handoffctl send` is launched there both through nsenter and directly.
"${in_alpha[@]}" python3 "$REPO/Benchmarks/scripts/bench-push.py" "$N" "$WORK/alpha/run/control.sock" "$WORK/beta/run/control.sock" "$push_id" "$push_type" "$anchor" \
  "$BIN/handoffctl" "$WORK/floor-a.sock" "$WORK/floor-b.sock" "$WORK/nio-a.sock" "$WORK/nio-b.sock" \
  "$WORK/task-a.sock" "$WORK/task-b.sock"

# Idle RSS: 10 s after each daemon started.
for name in alpha beta; do
  pid=$(daemon_pid "$name")
  up=$(ctl "$name" status --json | sed -n 's/.*"uptimeSeconds" : \([0-9]*\).*/\1/p')
  [ "${up:-0}" -ge 10 ] || sleep $((10 - ${up:-0}))
  rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
  threads=$(awk '/^Threads/ { print $2 }' "/proc/$pid/status")
  awk -v r="$rss" -v t="$threads" -v n="$name" 'BEGIN { printf "%-44s %6.1f MiB, %s threads\n", "handoffd " n " idle RSS (after 10 s)", r / 1024, t }'
done

for b in handoffd handoffctl; do
  cp "$BIN/$b" "$WORK/$b.stripped"
  strip --strip-all "$WORK/$b.stripped"
  awk -v b="$b" -v a="$(stat -c %s "$BIN/$b")" -v s="$(stat -c %s "$WORK/$b.stripped")" \
    'BEGIN { printf "%-44s %6.1f MB as built, %6.1f MB as packaged\n", b, a / 1e6, s / 1e6 }'
done
deb=$(scripts/dev/package-deb.sh --path)
if [ -f "$deb" ]; then
  awk -v d="$(basename "$deb")" -v s="$(stat -c %s "$deb")" 'BEGIN { printf "%-44s %6.1f MB (%s)\n", ".deb", s / 1e6, d }'
else
  echo ".deb: none built (scripts/dev/package-deb.sh)"
fi
