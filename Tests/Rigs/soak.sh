#!/usr/bin/env bash
# A long day: N test hosts (default 5) each with avahi-daemon and handoffd (release
# build), all paired with each other and working at once (publishes, continues, pushes, scene
# saves: Tests/Rigs/chaos_workload.py), while one daemon is restarted every 3 minutes, a spare
# machine "x" pairs with n1 and unpairs again every 2 minutes, and an advert rotates every 30 s.
# Each daemon's RSS, descriptors, threads and database size are printed every minute; the run
# fails on a failed operation, RSS growth over 5 % after the first 5 minutes, descriptors or
# threads that grow, an `error` line in a log, or a database over 64 MiB (Tests/Rigs/soak-probe.py).
#   Tests/Rigs/soak.sh [DURATION] [N]     (root; DURATION: 60m by default, or e.g. 2m, 90s;
#                                       BENCH_BIN=DIR: binaries built elsewhere)
# CI runs `Tests/Rigs/soak.sh 2m` (figures every 15 s, one restart, one pairing).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
DURATION=${1:-60m}
N=${2:-5}
source Tests/Rigs/lib-daemons.sh
SECONDS_TOTAL=$(duration_seconds "$DURATION")
[[ "$SECONDS_TOTAL" =~ ^[0-9]+$ ]] && [ "$SECONDS_TOTAL" -ge 60 ] || { echo "soak: DURATION is at least 60s (e.g. 2m, 60m)"; exit 64; }
[ "$N" -ge 3 ] || { echo "soak: N is at least 3"; exit 64; }
bench_start handoffd handoffctl
SET=soak
WORK=$(mktemp -d /tmp/handoffd-soak.XXXXXX)
names=(x)
for i in $(seq 1 "$N"); do names+=("n$i"); done

finish() { end_rig "${names[@]}"; }
trap finish EXIT

started=$SECONDS
Tests/Rigs/testhosts.sh up "$SET" $((N + 1)) >/dev/null
for i in $(seq 1 "$N"); do start_daemon "$i" "n$i"; done
start_daemon $((N + 1)) x
for i in $(seq 1 "$N"); do
  for j in $(seq $((i + 1)) "$N"); do pair_daemons "n$i" "n$j" >/dev/null; done
done
echo "soak: $N daemons paired with each other and a spare in $((SECONDS - started)) s"
# Restarted daemons are started by the probe (nsenter), logging where start_daemon's did.
python3 Tests/Rigs/soak-probe.py "$WORK" "$SET" "$N" "$BIN" "$SECONDS_TOTAL"
