#!/usr/bin/env bash
# Discovery across a router, release build, N trials (20) per topology, all in one run:
#   link       two test hosts on one link: mDNS only (the floor);
#   reflector  two subnets joined by a router namespace running an Avahi reflector;
#   dns        two subnets joined by a router namespace running BIND 9 with a dynamic zone
#              (handoffd's wide_area:, poll_seconds 1).
# Each trial: A's advert is rotated (`handoffctl rotate-advert`: a new service, new name), and the
# time until B's `handoffctl watch` shows peerAppeared for A (the new advert found and recognised).
# Trials start at random moments (0-1 s apart), so that the zone's poll phase is not fixed.
# p50 / p90 / max in milliseconds.
#   Benchmarks/scripts/bench-wide-area.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-20}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl
ROOT=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
SET="" WORK="" WATCH=""
finish() {
  [ -n "$WATCH" ] && kill "$WATCH" 2>/dev/null || true
  [ -n "$SET" ] && end_daemons_and_hosts
  rm -rf "$ROOT"
}
trap finish EXIT

# measure LABEL: N rotations of alpha's advert, each until beta's peerAppeared for alpha.
measure() {
  local label=$1 events="$WORK/events" i t
  : > "$events"
  ctl beta watch --json | stamp >> "$events" &
  WATCH=$!
  wait_listed beta alpha
  for i in $(seq 1 "$N"); do
    # Trials start at a random point of the zone's poll cycle (1 s), not right after a poll.
    sleep "0.$(printf '%03d' $((RANDOM % 1000)))"
    t=$EPOCHREALTIME
    ctl alpha rotate-advert --json > /dev/null
    wait_line "$events" "$t" '"event" *: *"peerAppeared".*"peer" *: *"alpha"|"peer" *: *"alpha".*"event" *: *"peerAppeared"' >> "$ROOT/$label.ms"
    [ -z "${BENCH_VERBOSE:-}" ] || echo "$label trial $i: $(tail -1 "$ROOT/$label.ms")"
  done
  kill "$WATCH" 2>/dev/null || true
  WATCH=""
}

# topology LABEL SET [routed]: fresh hosts and daemons, alpha and beta paired, then measure.
topology() {
  local label=$1 shape=${3:-}
  SET=$2 WORK="$ROOT/$label"
  mkdir -p "$WORK"
  Tests/Rigs/testhosts.sh up "$SET" 2 $shape >/dev/null
  case "$label" in
    reflector) Tests/Rigs/testhosts.sh reflector "$SET" start ;;
    dns)
      Tests/Rigs/testhosts.sh named "$SET" start
      Tests/Rigs/testhosts.sh named "$SET" key > "$WORK/wide-area.key"
      chmod 600 "$WORK/wide-area.key"
      ;;
  esac
  local i name
  for i in 1 2; do
    name=$([ "$i" = 1 ] && echo alpha || echo beta)
    DAEMON_EXTRA_CONFIG=""
    if [ "$label" = dns ]; then
      local addr; addr=$(Tests/Rigs/testhosts.sh addr "$SET$i")
      DAEMON_EXTRA_CONFIG=$(printf 'wide_area:\n  domain: handoff.test\n  server: %s.254\n  key_file: %s\n  poll_seconds: 1\n' "${addr%.*}" "$WORK/wide-area.key")
    fi
    start_daemon "$i" "$name"
  done
  pair_daemons alpha beta > /dev/null
  measure "$label"
  end_daemons_and_hosts
  SET=""
}

topology link wabl
topology reflector wabr routed
topology dns wabd routed

stats() {  # stats FILE: p50 p90 max
  sort -n "$1" | awk '{ v[NR] = $1 } END { p50 = v[int((NR + 1) * 0.5)]; p90 = v[int(NR * 0.9 + 0.5)]; printf "p50 %8.2f   p90 %8.2f   max %8.2f", p50, p90, v[NR] }'
}
echo "== $N trials each, release build: A's advert rotated -> B's peerAppeared for A; ms"
printf '%-58s %s\n' "one link, mDNS (the floor)" "$(stats "$ROOT/link.ms")"
printf '%-58s %s\n' "two subnets, Avahi reflector on the router" "$(stats "$ROOT/reflector.ms")"
printf '%-58s %s\n' "two subnets, unicast DNS-SD (BIND 9, poll 1 s)" "$(stats "$ROOT/dns.ms")"
