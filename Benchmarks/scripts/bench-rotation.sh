#!/usr/bin/env bash
# Advert rotation between two paired test hosts (root), release build, N trials (20):
# A's advert is rotated (`handoffctl rotate-advert`: a new random name, SRV host and material),
# and on B two clients of the same avahi-daemon wait for it:
#   - the raw Avahi floor: `avahi-browse -rp` resolving the new instance (probe, announce, resolve);
#   - handoffd: B's peerAppeared for alpha, i.e. the new advert resolved, recognised with alpha's
#     key among B's paired keys, and told to `handoffctl watch` over the control socket.
# Times from the moment this script asks A to rotate; p50 / p90 / max in ms, and the ratio of
# the p50s (target <= 1.1). Then TXT sizes and the CPU cost of recognition (handoff-advert-bench).
#   Benchmarks/scripts/bench-rotation.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-20}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl handoff-advert-bench
SET=rbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
WATCH="" BROWSE=""
finish() {
  [ -n "$WATCH" ] && kill "$WATCH" 2>/dev/null || true
  [ -n "$BROWSE" ] && kill "$BROWSE" 2>/dev/null || true
  end_daemons_and_hosts
}
trap finish EXIT
paired_hosts

EVENTS="$WORK/events" RAW="$WORK/raw"
: > "$EVENTS"; : > "$RAW"
ctl beta watch --json | stamp >> "$EVENTS" &
WATCH=$!
Tests/Rigs/testhosts.sh exec "${SET}2" stdbuf -oL avahi-browse -rpk _handoff._tcp 2>/dev/null | stamp >> "$RAW" &
BROWSE=$!
until ctl beta peers --json | tr -d '\n' | grep -q '"advert"'; do sleep 0.05; done

: > "$WORK/floor"; : > "$WORK/ours"
for i in $(seq 1 "$N"); do
  t=$EPOCHREALTIME
  name=$(ctl alpha rotate-advert --json | json_field name)
  [ -n "$name" ] || { echo "bench: rotate-advert gave no name" >&2; exit 1; }
  # avahi-browse -p: "=;interface;protocol;name;type;domain;host;address;port;txt" once resolved.
  wait_line "$RAW" "$t" " =;[^;]*;[^;]*;$name;_handoff._tcp;" >> "$WORK/floor"
  wait_line "$EVENTS" "$t" '"event" *: *"peerAppeared".*"peer" *: *"alpha"|"peer" *: *"alpha".*"event" *: *"peerAppeared"' >> "$WORK/ours"
  [ -z "${BENCH_VERBOSE:-}" ] || echo "trial $i: raw $(tail -1 "$WORK/floor") handoffd $(tail -1 "$WORK/ours")"
done

stats() {  # stats FILE: p50 p90 max
  sort -n "$1" | awk '{ v[NR] = $1 } END { p50 = v[int((NR + 1) * 0.5)]; p90 = v[int(NR * 0.9 + 0.5)]; printf "p50 %8.2f   p90 %8.2f   max %8.2f", p50, p90, v[NR] }'
}
p50() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) * 0.5)] }'; }
echo "== $N rotations of alpha's advert, release build, seen on beta; ms from the rotate request"
printf '%-56s %s\n' "raw Avahi floor: avahi-browse resolves the new name" "$(stats "$WORK/floor")"
printf '%-56s %s\n' "handoffd: beta recognises alpha (peerAppeared)" "$(stats "$WORK/ours")"
awk -v a="$(p50 "$WORK/ours")" -v b="$(p50 "$WORK/floor")" 'BEGIN { printf "ratio of the p50s: %.3f (target <= 1.1)\n", a / b }'
echo
"$BIN/handoff-advert-bench"
