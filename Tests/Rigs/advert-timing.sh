#!/usr/bin/env bash
# What a stranger can time: alpha and beta (paired) on two test hosts and a stranger on
# a third that watches every `_handoff._tcp` advert with python3-zeroconf (Tests/Rigs/stranger-browse.py,
# not Avahi, not handoffd). A scripted person publishes on alpha at chosen moments for DURATION;
# Tests/Rigs/advert-timing-probe.py then checks, from the stranger's record alone, that alpha's TXT
# rewrites do not follow the publishes, and that a rotation's goodbye and the new name's
# announcement do not come in the same second more often than chance; and prints what a peer
# without a session waits for a change (publish -> the next record on the wire).
#   Tests/Rigs/advert-timing.sh [DURATION] [REWRITE_MEAN] [ROTATION_MEAN]
#     (root; defaults: 10m, 30 s (handoffd's default), 60 s; BENCH_BIN=DIR: binaries built elsewhere)
# CI runs `Tests/Rigs/advert-timing.sh 60s 2 12`.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
DURATION=${1:-10m}
MEAN=${2:-30}
ROTATION=${3:-60}
source Tests/Rigs/lib-daemons.sh
SECONDS_TOTAL=$(duration_seconds "$DURATION")
[[ "$SECONDS_TOTAL" =~ ^[0-9]+$ ]] && [ "$SECONDS_TOTAL" -ge 30 ] || { echo "advert-timing: DURATION is at least 30s (e.g. 100s, 10m)"; exit 64; }
/usr/bin/python3 -c 'import zeroconf' 2>/dev/null || { echo "advert-timing: python3-zeroconf is missing; run scripts/install-deps.sh"; exit 1; }
bench_start handoffd handoffctl
SET=timing
WORK=$(mktemp -d /tmp/handoffd-timing.XXXXXX)
STRANGER=""

finish() {
  exec 9>&- 2>/dev/null || true
  [ -n "$STRANGER" ] && kill "$STRANGER" 2>/dev/null || true
  [ -n "${KEEP_STRANGER:-}" ] && cp "$WORK/stranger.jsonl" "$KEEP_STRANGER" 2>/dev/null || true
  end_rig alpha beta
}
trap finish EXIT

Tests/Rigs/testhosts.sh up "$SET" 3 >/dev/null
DAEMON_EXTRA_CONFIG="advert_rewrite_seconds: $MEAN
advert_rotation_seconds: $ROTATION"
start_daemon 1 alpha
start_daemon 2 beta
pair_daemons alpha beta >/dev/null
# The stranger's record: one JSON line per change it saw, stamped with the wall clock (one clock
# for every test host: they share this kernel).
# It browses until its standard input closes: a pipe this script holds open (fd 9) until it ends.
mkfifo "$WORK/stranger.in"
exec 9<> "$WORK/stranger.in"
setsid Tests/Rigs/testhosts.sh exec "${SET}3" /usr/bin/python3 "$REPO/Tests/Rigs/stranger-browse.py" \
  < "$WORK/stranger.in" > "$WORK/stranger.jsonl" 2> "$WORK/stranger.err" &
STRANGER=$!
for _ in $(seq 1 100); do grep -q '"browsing"' "$WORK/stranger.jsonl" && break; sleep 0.1; done
grep -q '"browsing"' "$WORK/stranger.jsonl" || { echo "advert-timing: the stranger did not start: $(cat "$WORK/stranger.err")"; exit 1; }
echo "advert-timing: alpha and beta paired, the stranger browsing; a person publishes on alpha for $SECONDS_TOTAL s (rewrites every $MEAN s on average, rotations every $ROTATION s)"
python3 Tests/Rigs/advert-timing-probe.py "$WORK" "$SECONDS_TOTAL" "$MEAN"
