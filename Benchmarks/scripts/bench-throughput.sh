#!/usr/bin/env bash
# Throughput at load between two paired test hosts (root), release build:
#   - continues of alpha's activity on beta, over one session, from one client with 1, 8 and 32
#     requests in flight (target: 5,000 a second), and the latency at that load;
#   - control operations (`activities`, `status`) on beta from 8 clients with 1 and 8 in flight
#     each (target: 20,000 a second), and the latency at that load;
#   - beta's RSS before and after.
#   Benchmarks/scripts/bench-throughput.sh [SECONDS]     (each trial; default 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
T=${1:-10}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl hawknotes handoff-continue-bench
SET=tbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
trap end_daemons_and_hosts EXIT
paired_hosts
hawknotes_publish alpha "Lady Beatrice" >/dev/null
id=$(ctl alpha activities --json | json_field activity)
pb=$(daemon_pid beta)
sock="$WORK/beta/run/control.sock"
rss() { awk '/VmRSS/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$1/status"; }
echo "== $T s per trial, release build, hosts ${SET}1 (alpha) -> ${SET}2 (beta); beta RSS $(rss "$pb")"
for w in 1 8 32; do "$BIN/handoff-continue-bench" throughput "$sock" alpha "$id" "$T" "$w"; done
for w in 1 8; do "$BIN/handoff-continue-bench" control "$sock" 8 "$T" "$w"; done
echo "beta RSS after: $(rss "$pb")"
