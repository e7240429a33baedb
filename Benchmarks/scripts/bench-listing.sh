#!/usr/bin/env bash
# How fast a paired machine sees a new activity, between two test hosts (root):
#   - with a session open: from `publish` on A to `activities --peer` listing it on B (the
#     `changed` push);
#   - without one: the same through the advert (B reads A's sealed tokens, then asks over the
#     link), beside the moment B's handoffd saw A's TXT change (the Avahi floor);
#   - `activities --peer` answered from what B holds.
#   Benchmarks/scripts/bench-listing.sh [N]      (BENCH_VERBOSE=1: each advert trial and B's events)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-200}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl handoff-continue-bench
SET=lbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
trap end_daemons_and_hosts EXIT
paired_hosts
echo "== $N trials each, release build, A = ${SET}1 (alpha), B = ${SET}2 (beta)"
# The advert trials first: a burst of TXT changes (every open trial makes one) leaves B's Avahi
# missing later ones for a while (docs/ARCHITECTURE.md, "Discovery"), which would not measure
# the path but the burst.
"$BIN/handoff-continue-bench" listing "$WORK/alpha/run/control.sock" "$WORK/beta/run/control.sock" alpha beta "$((N / 4))" advert
[ -n "${ADVERT_ONLY:-}" ] || "$BIN/handoff-continue-bench" listing "$WORK/alpha/run/control.sock" "$WORK/beta/run/control.sock" alpha beta "$N" open
