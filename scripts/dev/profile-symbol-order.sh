#!/usr/bin/env bash
# Regenerates Sources/handoffd/symbol-order.txt: the functions handoffd runs, which the linker
# places next to each other (scripts/dev/build-release.sh links with the list). Root, two test hosts.
#   scripts/dev/profile-symbol-order.sh
# Two daemons run a typical life under valgrind's callgrind, which names every function executed:
# first start, pairing, publish, remote lists, continuations cold and on an open session, a push,
# scene saves, invalidation, SIGTERM; then a restart with that state and more continuations.
# Listed: the functions seen that are text symbols defined once (a local name defined in many
# objects, like a merged thunk, would drag all their sections along), in address order.
# Run it again when handoffd changes a lot: a stale list only costs memory, never correctness.
#
# Left as it is: callgrind misses a few functions (code it cannot name; valgrind's CPU has no ADX,
# so BoringSSL's ADX paths). Adding them from `perf record -e page-faults` in three more rounds
# did not change the RSS: what stays resident is mostly the Swift runtime's and Foundation's own
# large sections (the prebuilt static libraries do not have one section per function).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
export PATH="/opt/swift/usr/bin:$PATH"
[ "$(id -u)" -eq 0 ] || { echo "profile: run as root (it makes network namespaces)"; exit 1; }
command -v valgrind >/dev/null || apt-get install -y -q valgrind >/dev/null
ORDER=Sources/handoffd/symbol-order.txt
NO_SYMBOL_ORDER=1 scripts/dev/build-release.sh handoffd handoffctl handoff-continue-bench
REAL_BIN=$(scripts/dev/build-release.sh --bin-path)
SET=prof
WORK=$(mktemp -d /tmp/handoffd-profile.XXXXXX)
BIN=$WORK/bin
mkdir -p "$BIN"
cp "$REAL_BIN/handoffctl" "$BIN/handoffctl"
LOG_LEVEL=notice
# Under callgrind a daemon's stop writes its profile: seconds, not milliseconds.
STOP_SECONDS=180
source Tests/Rigs/lib-daemons.sh
trap end_daemons_and_hosts EXIT
Tests/Rigs/testhosts.sh up "$SET" 2 >/dev/null

# wrap COMMAND...: $BIN/handoffd runs the profiled handoffd under COMMAND.
wrap() {
  printf '#!/bin/sh\nexec %s %s "$@"\n' "$*" "$BIN/handoffd.real" > "$BIN/handoffd"
  chmod +x "$BIN/handoffd"
}

workload() {
  rm -rf "$WORK/alpha" "$WORK/beta"
  start_daemon 1 alpha
  start_daemon 2 beta
  pair_daemons alpha beta >/dev/null
  for name in alpha beta; do ctl "$name" status >/dev/null; ctl "$name" peers >/dev/null; ctl "$name" trust >/dev/null; done
  ctl alpha apps >/dev/null
  hawknotes_publish alpha "Lady Beatrice" >/dev/null
  local id sock="$WORK/beta/run/control.sock"
  id=$(ctl alpha activities --json | json_field activity)
  ctl beta activities --remote >/dev/null
  "$REAL_BIN/handoff-continue-bench" continue "$sock" alpha "$id" 20 cold >/dev/null
  "$REAL_BIN/handoff-continue-bench" continue "$sock" alpha "$id" 200 open >/dev/null
  ctl alpha send "$id" --to beta >/dev/null
  "$REAL_BIN/handoff-continue-bench" scenes "$WORK/alpha/run/control.sock" 20 >/dev/null
  ctl alpha scenes >/dev/null
  ctl alpha invalidate "$id" >/dev/null
  # A restart with the state written: how handoffd starts on every boot after the first.
  stop_daemons alpha beta
  start_daemon 1 alpha
  start_daemon 2 beta
  wait_listed beta alpha
  hawknotes_publish alpha "Lady Beatrice" >/dev/null
  id=$(ctl alpha activities --json | json_field activity)
  "$REAL_BIN/handoff-continue-bench" continue "$sock" alpha "$id" 50 open >/dev/null
  ctl alpha scenes >/dev/null
  stop_daemons alpha beta
}

# symbols BINARY: "address name" of its text symbols defined once.
symbols() {
  nm --defined-only "$1" | awk '$2 ~ /^[tTwW]$/ { count[$3]++; addr[$3] = $1 }
                               END { for (n in count) if (count[n] == 1) print addr[n], n }'
}

# valgrind 3.19 cannot read clang 21's DWARF 5; the symbol table is enough.
objcopy --strip-debug "$REAL_BIN/handoffd" "$BIN/handoffd.real"
mkdir -p "$WORK/cg"
wrap valgrind -q --tool=callgrind --demangle=no "--callgrind-out-file=$WORK/cg/callgrind.%p"
workload
symbols "$BIN/handoffd.real" > "$WORK/syms"
sed -n 's/^c\{0,1\}fn=([0-9]*) \(.*\)$/\1/p' "$WORK"/cg/callgrind.* > "$WORK/seen"
awk 'NR == FNR { seen[$0] = 1; next } ($2 in seen)' "$WORK/seen" "$WORK/syms" | sort | awk '{print $2}' > "$ORDER"
echo "symbol-order.txt: $(wc -l < "$ORDER") functions"
scripts/dev/build-release.sh handoffd
