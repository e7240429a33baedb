#!/usr/bin/env bash
# What a hostile paired machine does to handoffd, measured on one test host (root),
# release build: the Python peer (Tests/Rigs/conformance-peer.py, written from the docs) pairs with
# alpha, then
#   burst:  opens N sessions as fast as it can (alpha's LimitNOFILE set to the unit's 1024):
#           sessions held, alpha's descriptors (peak, after), whether alpha is still running;
#   flood:  sends M pushes of 60 KB on one session: alpha's peak RSS and its RSS 10 s later;
#   stall:  stops reading its session and asks for lists (about 7 KB each) until alpha's writes
#           wait: how long 5 local publishes take meanwhile (and, to compare, 5 before any
#           session is open), and how long until alpha reports the peer absent (and why).
# Runs against any build of handoffd that has `pair` (the pairing is done the way that build's
# handoffctl asks for), so the same script measures before and after a change.
#   Benchmarks/scripts/bench-hostile.sh [BURST] [FLOOD]      (defaults 1100 and 4000)
#   HANDOFF_BIN=/path/to/release/bin Benchmarks/scripts/bench-hostile.sh      (another build's binaries)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
BURST=${1:-1100}
FLOOD=${2:-4000}
source Tests/Rigs/lib-daemons.sh
# HANDOFF_BIN=DIR measures the binaries there instead (another build, e.g. before a change).
if [ -n "${HANDOFF_BIN:-}" ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
  BIN=$HANDOFF_BIN
  LOG_LEVEL=notice
else
  bench_start handoffd handoffctl
fi
SET=hbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
WATCH=""
finish() {
  [ -n "$WATCH" ] && kill "$WATCH" 2>/dev/null || true
  end_daemons_and_hosts
}
trap finish EXIT
Tests/Rigs/testhosts.sh up "$SET" 1 >/dev/null
start_daemon 1 alpha
PID=$(daemon_pid alpha)
prlimit --pid "$PID" --nofile=1024:1024

source Tests/Rigs/lib-python-peer.sh
start_peer 1 hostile
pair_peer alpha
code=$PAIR_CODE
echo "paired with alpha (code $code); alpha: pid $PID, LimitNOFILE 1024, RSS $(rss_mib) MiB, $(fds) descriptors"

ctl alpha watch --json > "$WORK/events" &
WATCH=$!

echo "== burst: $BURST sessions as fast as the peer opens them"
before=$(fds); peak=$before
( while kill -0 "$PID" 2>/dev/null; do fds; sleep 0.05; done ) > "$WORK/fds" &
sampler=$!
say "{\"op\": \"burst\", \"host\": \"127.0.0.1\", \"port\": 7340, \"count\": $BURST, \"settle\": 3}"
hear open_after
result=$LINE
kill $sampler 2>/dev/null || true
peak=$(sort -n "$WORK/fds" | tail -1)
echo "opened $(field opened <<< "$result"), still open 3 s later $(field open_after <<< "$result"); alpha's descriptors: before $before, peak ${peak:-?}, after $(fds); alpha running: $(alive)"
[ "$(alive)" = yes ] || exit 0

echo "== flood: $FLOOD pushes of 60 KB on one session"
say '{"op": "session", "host": "127.0.0.1", "port": 7340}'
hear hello
start_rss=$(rss_mib)
t0=$(date +%s%N)
say "{\"op\": \"flood\", \"count\": $FLOOD, \"bytes\": 60000, \"timeout\": 20}"
hear seconds
result=$LINE
echo "sent $(field sent <<< "$result") in $(ms_since "$t0") ms; alpha's RSS: before $start_rss MiB, peak $(hwm_mib) MiB (VmHWM since start)"
say '{"op": "close"}'; hear closed
gone=$(grep '"peerAbsent"' "$WORK/events" | tail -1 || true)
[ -n "$gone" ] && echo "the flood's session ended: $(field reason <<< "$gone")"
sleep 10  # the scenario's input: RSS is read 10 s after the flood, whatever happens meanwhile
echo "alpha's RSS 10 s later: $(rss_mib) MiB; running: $(alive)"
[ "$(alive)" = yes ] || exit 0

echo "== stall: the peer stops reading and asks for lists"
BOOK="--type org.hawknotes.bookDetail --info bookID=E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"
# slowest_publish TITLE: five local publishes, one after another; the slowest, in ms, in $slowest.
slowest_publish() {
  slowest=0
  for n in 1 2 3 4 5; do
    local t d
    t=$(date +%s%N)
    if timeout 30 "$BIN/handoffctl" publish $BOOK --title "$1 $n" --socket "$WORK/alpha/run/control.sock" > /dev/null; then
      d=$(ms_since "$t")
    else
      d=30000
    fi
    if [ "$d" -gt "$slowest" ]; then slowest=$d; fi
  done
}
# What a publish costs here with no session open, to compare.
slowest_publish "before the stall"
echo "5 local publishes, no session open: slowest ${slowest} ms"
for n in 1 2 3 4; do ctl alpha publish $BOOK --title "$(printf 'note %03d %0200d' "$n" 0)" > /dev/null; done
say '{"op": "session", "host": "127.0.0.1", "port": 7340, "rcvbuf": 4096}'
hear hello
say '{"op": "stall"}'; hear stalled
seen=$(wc -l < "$WORK/events")
t0=$(date +%s%N)
say '{"op": "lists", "count": 6000, "timeout": 5}'; hear sent
slowest_publish "while stalled"
echo "5 local publishes while the peer does not read: slowest ${slowest} ms (30000 = hung past the 30 s limit)"
absent=""
for n in $(seq 1 300); do
  absent=$(tail -n +"$((seen + 1))" "$WORK/events" | grep -m1 '"peerAbsent"' || true)
  [ -n "$absent" ] && break
  sleep 0.1
done
if [ -n "$absent" ]; then
  echo "alpha reported the peer absent $(ms_since "$t0") ms after it stopped reading: reason $(field reason <<< "$absent")"
else
  echo "alpha did not report the peer absent within 30 s"
fi
echo "alpha's RSS: $(rss_mib) MiB (peak $(hwm_mib) MiB), descriptors $(fds), running: $(alive)"
