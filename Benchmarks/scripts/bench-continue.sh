#!/usr/bin/env bash
# Continuation figures between two test hosts (root), in one run:
#   - continue latency, from the `continue` request on an open control connection (HandoffClient)
#     to its answer after the route was applied on B, for a cold peer connection and for an open
#     session (p50/p99, N trials each; process start-up excluded);
#   - a plain TCP round trip between the same hosts;
#   - handoffd's RSS on both hosts, idle and every 2,000 of 10,000 continuations.
#   Benchmarks/scripts/bench-continue.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-300}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl hawknotes handoff-continue-bench
SET=cbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
echo_pid=""
cleanup() {
  [ -n "$echo_pid" ] && kill "$echo_pid" 2>/dev/null || true
  end_daemons_and_hosts
}
trap cleanup EXIT
paired_hosts
hawknotes_publish alpha "Lady Beatrice" >/dev/null
id=$(ctl alpha activities --json | json_field activity)
pa=$(daemon_pid alpha); pb=$(daemon_pid beta)

Tests/Rigs/testhosts.sh exec ${SET}1 "$BIN/handoff-continue-bench" echo 7400 > "$WORK/echo.out" &
echo_pid=$!
for _ in $(seq 1 100); do grep -q ready "$WORK/echo.out" 2>/dev/null && break; sleep 0.05; done
sock="$WORK/beta/run/control.sock"
echo "== $N trials each, release build, hosts ${SET}1 -> ${SET}2"
Tests/Rigs/testhosts.sh exec ${SET}2 "$BIN/handoff-continue-bench" tcp "$(Tests/Rigs/testhosts.sh addr ${SET}1)" 7400 "$N"
"$BIN/handoff-continue-bench" continue "$sock" alpha "$id" "$N" cold
"$BIN/handoff-continue-bench" continue "$sock" alpha "$id" "$N" open
echo "== memory (alpha pid $pa, beta pid $pb), 20,000 continuations on an open session"
"$BIN/handoff-continue-bench" continue "$sock" alpha "$id" 20000 open "$pa" "$pb"

echo "== scenes (alpha): save latency, restore time and size of 1,000 scenes"
"$BIN/handoff-continue-bench" scenes "$WORK/alpha/run/control.sock" 1000
stop_daemons alpha
start_daemon 1 alpha
grep "scenes restored" "$WORK/alpha/handoffd.log" | tail -1 | sed 's/.*\(scene.count=[0-9]*\).*\(scene.restoreMillis=[0-9]*\).*/restore at start: \1 \2/'
bytes=$(du -sb "$WORK/alpha/state/scenes" | cut -f1)
scenes=$(ctl alpha scenes --json | grep -c '"scene"')
echo "store: $bytes bytes for $scenes scenes, $((bytes / scenes)) bytes per scene (database and WAL)"
