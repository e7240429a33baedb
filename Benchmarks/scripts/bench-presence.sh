#!/usr/bin/env bash
# Presence between two paired test hosts (root), release build, N trials (40):
#   - B's handoffd SIGTERMed -> A's peerAbsent for B (B's goodbye on the link), beside A's
#     peerRemoved (the mDNS path: B's advert withdrawn);
#   - B's handoffd started again, state kept -> A's peerPresent for B (B dials A's last-known
#     address at start), beside A's peerAppeared (the mDNS path: B's advert probed, announced,
#     resolved).
# Times are from the moment this script sends SIGTERM or launches handoffd (with nsenter, in B's
# namespaces: process start-up is included in "present"), to the moment `handoffctl watch` on A
# printed the event. p50 / p90 / max in milliseconds.
#   Benchmarks/scripts/bench-presence.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-40}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl
SET=pbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
WATCH=""
finish() {
  [ -n "$WATCH" ] && kill "$WATCH" 2>/dev/null || true
  end_daemons_and_hosts
}
trap finish EXIT
paired_hosts

present_on_alpha() { ctl alpha peers --json | tr -d '\n' | tr '}' '\n' | grep '"name" : "beta"' | grep -q '"present" : true'; }
until_true 10 "alpha sees beta present" present_on_alpha
# handoffd is launched in B's namespaces by nsenter itself, as bench-edges.sh launches handoffctl:
# through Tests/Rigs/testhosts.sh (a bash script) it took 5 ms more, which were the script's.
beta_host=$(Tests/Rigs/testhosts.sh pid "${SET}2")

# A's events, each stamped on arrival (bash's clock, no fork per line).
EVENTS="$WORK/events"
: > "$EVENTS"
ctl alpha watch --json | while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >> "$EVENTS" &
WATCH=$!
sleep 0.2

# event_after NAME T: the arrival time of A's first event NAME for beta after T, or nothing
# (`watch --json` prints one event per line).
event_after() {
  awk -v t="$2" -v ev="\"event\" *: *\"$1\"" '$0 ~ ev && $0 ~ /"peer" *: *"beta"/ && $1 > t { print $1; exit }' "$EVENTS"
}
wait_event() {  # wait_event NAME T: prints the delay in ms
  local at="" end=$((SECONDS + 15))
  while [ -z "$at" ]; do
    [ $SECONDS -lt $end ] || { echo "bench: no $1 for beta after $2" >&2; tail -20 "$EVENTS" >&2; exit 1; }
    sleep 0.005
    at=$(event_after "$1" "$2")
  done
  awk -v a="$at" -v t="$2" 'BEGIN { printf "%.2f\n", (a - t) * 1000 }'
}

: > "$WORK/absent"; : > "$WORK/removed"; : > "$WORK/present"; : > "$WORK/appeared"
for i in $(seq 1 "$N"); do
  pid=$(daemon_pid beta)
  t=$EPOCHREALTIME
  kill -TERM "$pid"
  wait "$(cat "$WORK/beta/launcher.pid")" 2>/dev/null || true
  wait_event peerAbsent "$t" >> "$WORK/absent"
  wait_event peerRemoved "$t" >> "$WORK/removed"
  t=$EPOCHREALTIME
  nsenter -t "$beta_host" -m -n -- "$BIN/handoffd" --config "$WORK/beta/handoffd.yaml" 2>>"$WORK/beta/handoffd.log" &
  echo $! > "$WORK/beta/launcher.pid"
  wait_event peerPresent "$t" >> "$WORK/present"
  wait_event peerAppeared "$t" >> "$WORK/appeared"
  until_true 10 "beta answering" sh -c "'$BIN/handoffctl' status --socket '$WORK/beta/run/control.sock' >/dev/null 2>&1"
  [ -z "${BENCH_VERBOSE:-}" ] || echo "trial $i: absent $(tail -1 "$WORK/absent") removed $(tail -1 "$WORK/removed") present $(tail -1 "$WORK/present") appeared $(tail -1 "$WORK/appeared")"
done

stats() {  # stats FILE: p50 p90 max
  sort -n "$1" | awk '{ v[NR] = $1 } END { p50 = v[int((NR + 1) * 0.5)]; p90 = v[int(NR * 0.9 + 0.5)]; printf "p50 %8.2f   p90 %8.2f   max %8.2f", p50, p90, v[NR] }'
}
echo "== $N trials, release build, A = ${SET}1 (alpha), B = ${SET}2 (beta); ms"
printf '%-58s %s\n' "B restarted -> A: peerPresent (the link; target <= 50)" "$(stats "$WORK/present")"
printf '%-58s %s\n' "B restarted -> A: peerAppeared (mDNS only)" "$(stats "$WORK/appeared")"
printf '%-58s %s\n' "B SIGTERM  -> A: peerAbsent (goodbye; target <= 10)" "$(stats "$WORK/absent")"
printf '%-58s %s\n' "B SIGTERM  -> A: peerRemoved (mDNS only)" "$(stats "$WORK/removed")"
