#!/usr/bin/env bash
# A bad network and faulty machines: N test hosts (default 5) on one bridge, each with
# its own avahi-daemon and handoffd (release build), every one paired with every other, all
# working at once (publishes, continues, pushes, scene saves: Tests/Rigs/chaos_workload.py) while
# Tests/Rigs/chaos-probe.py breaks the wire and the machines and checks every promise after each:
#   healthy 30 s; 10 % loss 10 min; 25 % loss 2 min; 256 kbit/s 1 min; a 30 s outage; one
#   machine's wire cut; one daemon SIGSTOPped 20 s; avahi-daemon killed every 30 s on one host;
#   one daemon's wall clock stepped an hour back and forward (Tests/Rigs/wallclock-step.c).
# The wire is broken on the test bridge only (Tests/Rigs/testhosts.sh net: nftables and tc in the
# test namespaces; this kernel has no netem).
#   Tests/Rigs/chaos.sh [--short] [N]     (root; ~17 min, --short ~2 min as CI runs it;
#                                       BENCH_BIN=DIR: binaries built elsewhere)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
LENGTH=long
if [ "${1:-}" = --short ]; then LENGTH=short; shift; fi
N=${1:-5}
[ "$N" -ge 3 ] || { echo "chaos: N is at least 3"; exit 64; }
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl
SET=chaos
WORK=$(mktemp -d /tmp/handoffd-chaos.XXXXXX)
names=()
for i in $(seq 1 "$N"); do names+=("n$i"); done

finish() { end_rig "${names[@]}"; }
trap finish EXIT

started=$SECONDS
Tests/Rigs/testhosts.sh up "$SET" "$N" >/dev/null
# n3's wall clock can be stepped: the probe writes seconds such as -3600 to its step file, which
# Tests/Rigs/wallclock-step.c (preloaded) adds to CLOCK_REALTIME; CLOCK_MONOTONIC and CLOCK_BOOTTIME
# are left alone, as a real step leaves them.
clang -shared -fPIC -O2 -Wall -Werror -o "$WORK/wallclock-step.so" Tests/Rigs/wallclock-step.c -ldl
for i in $(seq 1 "$N"); do
  if [ "$i" = 3 ]; then
    mkdir -p "$WORK/n3"; echo 0 > "$WORK/n3/wallclock-step"
    DAEMON_ENV="LD_PRELOAD=$WORK/wallclock-step.so WALLCLOCK_STEP_FILE=$WORK/n3/wallclock-step" start_daemon "$i" "n$i"
  else
    start_daemon "$i" "n$i"
  fi
done
for i in $(seq 1 "$N"); do
  for j in $(seq $((i + 1)) "$N"); do pair_daemons "n$i" "n$j" >/dev/null; done
done
echo "chaos: $N daemons up and paired with each other in $((SECONDS - started)) s"
python3 Tests/Rigs/chaos-probe.py "$WORK" "$SET" "$N" "$LENGTH"
