#!/usr/bin/env bash
# Link latency: loopback, then between two test hosts (network namespaces; root).
# Prints handshake time and 1 KiB session round trips beside a plain TCP round trip, same run.
#   Benchmarks/scripts/bench-link.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1000}
export PATH="/opt/swift/usr/bin:$PATH"
scripts/dev/build-release.sh handoff-link-bench
BIN=$(scripts/dev/build-release.sh --bin-path)/handoff-link-bench

echo "== loopback"
"$BIN" loopback "$N"

echo
echo "== two test hosts"
work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  Tests/Rigs/testhosts.sh down lbench >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
Tests/Rigs/testhosts.sh up lbench 2 >/dev/null
mkdir -m 700 "$work/a" "$work/b"
ka=$("$BIN" keygen "$work/a")
kb=$("$BIN" keygen "$work/b")
addr=$(Tests/Rigs/testhosts.sh addr lbench1)
mkfifo "$work/in"
Tests/Rigs/testhosts.sh exec lbench1 "$BIN" serve "$work/a" 7400 "$kb" < "$work/in" > "$work/serve.out" 2>&1 &
server_pid=$!
exec 3>"$work/in"
for _ in $(seq 1 100); do grep -q '^ready' "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
grep -q '^ready' "$work/serve.out" || { echo "server did not start"; cat "$work/serve.out"; exit 1; }
Tests/Rigs/testhosts.sh exec lbench2 "$BIN" client "$work/b" "$addr" 7400 "$ka" "$N"
exec 3>&-
