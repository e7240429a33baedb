#!/usr/bin/env bash
# Many machines on one link: N test hosts (default 50) on one bridge, each with its own
# avahi-daemon and handoffd (release build); the first, "hub", is paired with every other
# ("m2".."mN"). Then Tests/Rigs/scale-probe.py measures, ROUNDS times where it repeats:
#   - the hub restarted (state kept) -> every peer reports it present (the last one);
#   - the hub publishes -> each peer holds the new list (remoteActivitiesChanged);
#   - every peer continues the hub's activity at once: all must succeed;
#   - the hub idle with its N-1 sessions: CPU seconds per minute, RSS;
#   - every advert rotated at once -> the hub lists each peer under its new name.
#   Tests/Rigs/scale.sh [--mesh] [N] [ROUNDS]   (root; BENCH_BIN=DIR: binaries built elsewhere)
# --mesh: every machine paired with every other (N at most 12: N(N-1)/2 pairings), the same
# figures from the hub's side, each peer also holding sessions with all the others.
# The long rig runs outside CI (README, "Benchmarks"); CI runs it with N=10.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
MESH=0
if [ "${1:-}" = --mesh ]; then MESH=1; shift; fi
N=${1:-50}
ROUNDS=${2:-5}
[ "$N" -ge 2 ] || { echo "scale: N is at least 2 (the hub and one peer)"; exit 64; }
[ "$MESH" = 0 ] || [ "$N" -le 12 ] || { echo "scale: --mesh takes N up to 12"; exit 64; }
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl
SET=scale
# SCALE_WORK=DIR: the daemons' state there (default /tmp). Every machine here shares one disk, so
# 49 continues at once queue 49 fsyncs (synchronous=FULL: a routed continue saves its scene before
# it is acknowledged) where 49 machines would each have their own: SCALE_WORK=/dev/shm shows the
# figure without that queue.
WORK=$(mktemp -d "${SCALE_WORK:-/tmp}/handoffd-scale.XXXXXX")
names=(hub)
for i in $(seq 2 "$N"); do names+=("m$i"); done

finish() { end_rig "${names[@]}"; }
trap finish EXIT

started=$SECONDS
Tests/Rigs/testhosts.sh up "$SET" "$N" >/dev/null
for i in $(seq 1 "$N"); do start_daemon "$i" "${names[$((i - 1))]}"; done
echo "scale: $N daemons up in $((SECONDS - started)) s; pairing the hub with $((N - 1)) peers"
for i in $(seq 2 "$N"); do
  pair_daemons hub "m$i" >/dev/null
  (( i % 10 )) || echo "scale: $((i - 1)) paired ($((SECONDS - started)) s)"
done
if [ "$MESH" = 1 ]; then
  for i in $(seq 2 "$N"); do
    for j in $(seq $((i + 1)) "$N"); do pair_daemons "m$i" "m$j" >/dev/null; done
  done
  echo "scale: every peer paired with every other ($((SECONDS - started)) s)"
fi
# Every peer holds a session with the hub before the measurements start.
present_count() { ctl hub peers --json | tr -d '\n' | tr '}' '\n' | grep -c '"present" : true' || true; }
for _ in $(seq 1 300); do [ "$(present_count)" -ge $((N - 1)) ] && break; sleep 0.1; done
[ "$(present_count)" -ge $((N - 1)) ] || { echo "scale: the hub has sessions with $(present_count) of $((N - 1)) peers after 30 s" >&2; exit 1; }
shape="the hub and $((N - 1)) peers"; [ "$MESH" = 0 ] || shape="all paired with each other"
echo "== $N machines ($shape), release build, $ROUNDS rounds; set up in $((SECONDS - started)) s"
python3 Tests/Rigs/scale-probe.py "$WORK" "$N" "$BIN" "$(Tests/Rigs/testhosts.sh pid "${SET}1")" "$ROUNDS"
