#!/usr/bin/env bash
# Continuation stream figures between two test hosts (root), release build, one run:
#   - 1 GiB through one stream, app to app (the continuing app on beta writes, `handoffctl stream
#     offer --discard` on alpha reads), beside plain TCP between the same hosts, and beside
#     `handoffctl send-file` of a 1 GiB file to `handoffctl receive`, onto the disk (beside the
#     disk's own floor: dd writing and syncing the same bytes) and into a tmpfs; each as a ratio
#     to plain TCP;
#   - both daemons' RSS growth during the 1 GiB transfer;
#   - stream open after continue (open session) p50, and a 1-byte echo round trip app -> app;
#   - resume: the link cut (eth0 down on beta) for 3 s at 50 % of a 1 GiB transfer; the time lost
#     beyond the cut, and the bytes checked on arrival (sha256 of a file sent with send-file).
#   Benchmarks/scripts/bench-streams.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-200}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl handoff-stream-bench
SET=sbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
DAEMON_EXTRA_CONFIG="activity_types:
  - type: org.example.stream
  - type: org.handoffd.file
    required_keys: [name, size]"
kids=()
RAM=""
cleanup() {
  for p in "${kids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "$RAM" ] && { sleep 0.2; umount "$RAM" 2>/dev/null || umount -l "$RAM"; }
  end_daemons_and_hosts
}
trap cleanup EXIT
paired_hosts
pa=$(daemon_pid alpha); pb=$(daemon_pid beta)
sock="$WORK/beta/run/control.sock"
offer() {  # offer MODE: an activity on alpha served by `stream offer --MODE`; prints its id
  ctl alpha stream offer org.example.stream "--$1" --json > "$WORK/offer-$1.out" 2>>"$WORK/offer.err" &
  kids+=($!)
  local n
  for n in $(seq 1 100); do grep -q activity "$WORK/offer-$1.out" 2>/dev/null && break; sleep 0.05; done
  local id; id=$(json_field activity < "$WORK/offer-$1.out")
  for n in $(seq 1 100); do ctl beta activities --peer alpha --json | grep -q "$id" && break; sleep 0.05; done
  echo "$id"
}
echo_id=$(offer echo)
sink_id=$(offer discard)
GiB=$((1 << 30))
addr_a=$(Tests/Rigs/testhosts.sh addr ${SET}1)

echo "== release build, hosts ${SET}1 (alpha) <- ${SET}2 (beta), 2 cores"
echo "== plain TCP, 1 GiB beta -> alpha"
Tests/Rigs/testhosts.sh exec ${SET}1 "$BIN/handoff-stream-bench" tcp-sink 7401 > "$WORK/sink.out" &
kids+=($!)
for _ in $(seq 1 100); do grep -q ready "$WORK/sink.out" 2>/dev/null && break; sleep 0.05; done
Tests/Rigs/testhosts.sh exec ${SET}2 "$BIN/handoff-stream-bench" tcp-send "$addr_a" 7401 $GiB | tee "$WORK/tcp.out"

echo "== one stream, 1 GiB app -> app (RSS of alpha $pa and beta $pb)"
"$BIN/handoff-stream-bench" send "$sock" alpha "$sink_id" $GiB "$pa" "$pb" | grep -v '^half' | tee "$WORK/stream.out"
tcp=$(sed -n 's/.* = \([0-9]*\) MB\/s.*/\1/p' "$WORK/tcp.out"); st=$(sed -n 's/^stream:.* = \([0-9]*\) MB\/s.*/\1/p' "$WORK/stream.out")
awk -v s="$st" -v t="$tcp" 'BEGIN { printf "ratio stream / plain TCP: %.2f\n", s / t }'

echo "== handoffctl send-file, 1 GiB, to handoffctl receive"
head -c $GiB /dev/urandom > "$WORK/big.bin"
# send_file WHERE DIR: big.bin from beta to a `receive` on alpha saving in DIR; the figure, as
# a ratio to plain TCP, and whether the bytes arrived as they left. The receiver stops after it.
send_file() {
  ctl alpha receive --dir "$2" --count 1 > "$WORK/receive-$1.out" 2>&1 &
  kids+=($!)
  for _ in $(seq 1 100); do grep -q Receiving "$WORK/receive-$1.out" 2>/dev/null && break; sleep 0.05; done
  ctl beta send-file "$WORK/big.bin" --to alpha --json > "$WORK/send-$1.out"
  local secs; secs=$(sed -n 's/.*"seconds" : \([0-9.]*\).*/\1/p' "$WORK/send-$1.out")
  awk -v w="$1" -v s="$secs" -v b=$GiB -v t="$tcp" 'BEGIN { printf "send-file %s: %d bytes in %.3f s = %.0f MB/s, %.2f of plain TCP (process start to exit of the sender)\n", w, b, s, b / s / 1e6, b / s / 1e6 / t }'
  [ "$(sha256sum < "$WORK/big.bin")" = "$(sha256sum < "$2/big.bin")" ] && echo "sha256 equal" || echo "sha256 DIFFERS"
  rm -f "$2/big.bin"
}
mkdir -p "$WORK/inbox"
send_file "to disk" "$WORK/inbox"
# The disk's own floor: the same bytes written and synced by dd, as receive writes them.
dd if="$WORK/big.bin" of="$WORK/dd.bin" bs=256K conv=fsync 2>&1 | awk '/copied/ { printf "the disk alone (dd, 256 KiB writes, fsync): %s %s\n", $(NF-1), $NF }'
rm -f "$WORK/dd.bin"
# Into memory (tmpfs): the transfer without the disk.
mkdir -p "$WORK/ram"
mount -t tmpfs -o size=1200m tmpfs "$WORK/ram"
RAM=$WORK/ram
send_file "into tmpfs" "$WORK/ram"

echo "== latency, $N trials each (open session)"
"$BIN/handoff-stream-bench" open "$sock" alpha "$echo_id" "$N"
"$BIN/handoff-stream-bench" echo "$sock" alpha "$echo_id" $((N * 10))

echo "== resume: eth0 down on beta for 3 s at 50 % of 1 GiB (a baseline run first)"
"$BIN/handoff-stream-bench" send "$sock" alpha "$sink_id" $GiB > "$WORK/base.out"
"$BIN/handoff-stream-bench" send "$sock" alpha "$sink_id" $GiB > "$WORK/cut.out" &
sender=$!
for _ in $(seq 1 600); do grep -q half "$WORK/cut.out" 2>/dev/null && break; sleep 0.01; done
Tests/Rigs/testhosts.sh exec ${SET}2 ip link set eth0 down
sleep 3
Tests/Rigs/testhosts.sh exec ${SET}2 ip link set eth0 up
wait "$sender"
b=$(sed -n 's/^stream:.* in \([0-9.]*\) s.*/\1/p' "$WORK/base.out"); c=$(sed -n 's/^stream:.* in \([0-9.]*\) s.*/\1/p' "$WORK/cut.out")
grep '^stream' "$WORK/cut.out"
awk -v b="$b" -v c="$c" 'BEGIN { printf "without a cut %.3f s, with a 3 s cut %.3f s: time lost beyond the cut %.3f s\n", b, c, c - b - 3 }'
grep -q "finished" "$WORK/cut.out" && echo "the cut stream finished cleanly (every byte acknowledged)" || echo "the cut stream did NOT finish"
