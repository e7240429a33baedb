#!/usr/bin/env bash
# What a hostile paired machine does to handoffd through continuation streams, on two test hosts
# (root), release build. The Python peer (Tests/Rigs/conformance-peer.py) pairs with alpha and runs
# each attack for SECONDS; meanwhile beta, a well-behaved paired machine, continues alpha's
# activity again and again. For each attack: alpha's RSS before, at its highest (sampled every
# 100 ms) and after; beta's continue latency (p50 of the continues made during the attack, beside
# the same before any attack); whether alpha still runs.
#   tiny:     one-byte data frames to an app that does not read
#   resume:   rounds of a stream whose app sent 4 MiB the peer never acknowledges, then 250
#             resumes from byte 0
#   unknown:  frames for streams that do not exist, from a peer that reads none of the answers
#   disk:     files too large for alpha's receiving disk (48 MiB tmpfs), from beta: 1 TB (sparse),
#             46 MiB, then 20 MiB; the disk's lowest free space, sampled, beside the reserve kept
#   Benchmarks/scripts/bench-hostile-streams.sh [SECONDS]      (default 10)
#   BENCH_BIN=/path/to/release/bin Benchmarks/scripts/bench-hostile-streams.sh   (another build's binaries)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
SECONDS_EACH=${1:-10}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl hawknotes
# ctl_bg NAME ARGS...: handoffctl in the background as the job itself (its $! is handoffctl's
# PID, which the end stops).
ctl_bg() { local name=$1; shift; exec "$BIN/handoffctl" "$@" --socket "$(control_socket "$name")"; }
SET=hsbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
DAEMON_EXTRA_CONFIG="activity_types:
  - type: org.hawknotes.characterDetail
    payload: Character
  - type: org.hawknotes.bookDetail
    required_keys: [bookID]
  - type: org.example.stream
  - type: org.handoffd.file
    required_keys: [name, size]"
kids=()
INBOX="$WORK/inbox"
finish() {
  for p in "${kids[@]}"; do kill "$p" 2>/dev/null || true; done
  mountpoint -q "$INBOX" && umount "$INBOX"
  end_daemons_and_hosts
}
trap finish EXIT
paired_hosts
PID=$(daemon_pid alpha)
source Tests/Rigs/lib-python-peer.sh
start_peer 1 mallory
pair_peer alpha
say '{"op": "session", "host": "127.0.0.1", "port": 7340}'
hear hello
ctl_bg alpha watch --json > "$WORK/events" &
kids+=($!)

# beta's continues of an activity of alpha's (a character, routed to a scene on beta).
hawknotes_publish alpha "Lady Beatrice" > /dev/null
lady=$(ctl alpha activities --json | json_field activity)
until_true 10 "beta lists alpha's activity" bash -c "'$BIN/handoffctl' activities --peer alpha --json --socket '$(control_socket beta)' | grep -q $lady"
# continues SECONDS OUT: one continue after another for SECONDS, each one's milliseconds to OUT.
continues() {
  local end=$((SECONDS + $1)) t
  : > "$2"
  while [ $SECONDS -lt $end ]; do
    t=$(date +%s%N)
    ctl beta continue alpha "$lady" > /dev/null 2>&1 || echo "failed" >> "$2.failed"
    echo $(( ($(date +%s%N) - t) / 1000 )) >> "$2"
  done
}
p50() { sort -n "$1" | awk '{ a[NR] = $1 } END { if (NR) printf "%.2f ms (%d continues)", a[int((NR + 1) / 2)] / 1000, NR; else print "none" }'; }
# sample_rss: alpha's RSS every 100 ms into $WORK/rss until killed.
sample_rss() { while kill -0 "$PID" 2>/dev/null; do awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$PID/status"; sleep 0.1; done > "$WORK/rss"; }
# attack NAME COMMAND...: the command (the attack) beside beta's continues, then the figures.
attack() {
  local name=$1; shift
  local before; before=$(rss_mib)
  sample_rss & local sampler=$!
  continues "$SECONDS_EACH" "$WORK/during-$name" & local cont=$!
  "$@"
  wait "$cont" || true
  kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true
  sleep 1
  local peak; peak=$(sort -n "$WORK/rss" | tail -1)
  echo "$name: alpha's RSS $before MiB before, $peak MiB at most, $(rss_mib) MiB after (growth $((peak - before)) MiB); beta's continue p50 $(p50 "$WORK/during-$name") during, $(p50 "$WORK/quiet") before; failed continues $(cat "$WORK/during-$name.failed" 2>/dev/null | wc -l); alpha running: $(alive)"
}
# open_stream ID STREAM WINDOW: the peer asks alpha's app for a stream (it fetched the activity).
open_stream() {
  say "{\"op\": \"request\", \"message\": {\"type\": \"streamOpen\", \"stream\": $2, \"activity\": \"$1\", \"window\": $3}, \"timeout\": 15}"
  hear reply
  grep -q streamAccepted <<< "$LINE" || { echo "bench: the stream was not accepted: $LINE" >&2; exit 1; }
}
# offer_echo: an activity on alpha whose app echoes every stream; its id.
offer_echo() {
  ctl_bg alpha stream offer org.example.stream --echo --json > "$WORK/offer-echo.out" 2>>"$WORK/offer.err" &
  kids+=($!)
  local n; for n in $(seq 1 100); do grep -q activity "$WORK/offer-echo.out" 2>/dev/null && break; sleep 0.05; done
  json_field activity < "$WORK/offer-echo.out"
}
fetch() { say "{\"op\": \"request\", \"message\": {\"type\": \"fetch\", \"activity\": \"$1\"}}"; hear reply; }

echo "== release build; alpha (pid $PID) paired with beta and with the hostile peer; $SECONDS_EACH s an attack"
continues "$SECONDS_EACH" "$WORK/quiet"
echo "quiet: beta's continue p50 $(p50 "$WORK/quiet"); alpha's RSS $(rss_mib) MiB"

# An activity on alpha whose app takes its first stream to standard output: a pipe read once, for
# the activity's id, and never again (the app stops reading when it is full).
mkfifo "$WORK/sink.fifo"
ctl_bg alpha stream offer org.example.stream --json < /dev/null > "$WORK/sink.fifo" 2>>"$WORK/offer.err" &
kids+=($!)
exec 9< "$WORK/sink.fifo"
sink=""
while [ -z "$sink" ] && IFS= read -r -t 10 line <&9; do sink=$(json_field activity <<< "$line"); done
[ -n "$sink" ] || { echo "bench: stream offer did not say its activity" >&2; exit 1; }
fetch "$sink"
open_stream "$sink" 1 65536
tiny() { say "{\"op\": \"frames\", \"type\": 1, \"stream\": 1, \"data\": \"x\", \"each_offset\": true, \"seconds\": $SECONDS_EACH}"; hear sent; echo "tiny: $(field sent <<< "$LINE") one-byte frames sent"; }
attack tiny tiny

echo_id=$(offer_echo)
fetch "$echo_id"
big=$(head -c 60000 /dev/zero | tr '\0' 'z')
resume_rounds() {
  local end=$((SECONDS + SECONDS_EACH)) round=0 stream=100
  while [ $SECONDS -lt $end ]; do
    stream=$((stream + 1)); round=$((round + 1))
    open_stream "$echo_id" "$stream" 4194304
    say "{\"op\": \"frames\", \"type\": 1, \"stream\": $stream, \"data\": \"$big\", \"each_offset\": true, \"count\": 70}"; hear sent
    sleep 0.3
    say "{\"op\": \"frames\", \"type\": 5, \"stream\": $stream, \"offset\": 0, \"count\": 250}"; hear sent
  done
  echo "resume: $round rounds of 4 MiB echoed and 250 resumes"
}
attack resume resume_rounds

unknown() {
  say '{"op": "stall"}'; hear stalled
  say "{\"op\": \"frames\", \"type\": 1, \"stream\": 100000, \"data\": \"y\", \"each_stream\": true, \"seconds\": $SECONDS_EACH, \"timeout\": 5}"; hear sent
  echo "unknown: $(field sent <<< "$LINE") frames for streams that do not exist sent"
}
attack unknown unknown
if grep -A3 '"peerAbsent"' "$WORK/events" | grep -q '"stalled"'; then
  echo "unknown: alpha closed the hostile session as stalled"
else
  echo "unknown: alpha did not close the hostile session as stalled"
fi

mkdir -p "$INBOX"
mount -t tmpfs -o size=48m tmpfs "$INBOX"
ctl_bg alpha receive --dir "$INBOX" > "$WORK/receive.out" 2>&1 &
kids+=($!)
for _ in $(seq 1 100); do grep -q Receiving "$WORK/receive.out" 2>/dev/null && break; sleep 0.05; done
truncate -s 1T "$WORK/huge.bin"
head -c $((46 << 20)) /dev/urandom > "$WORK/46m.bin"
head -c $((20 << 20)) /dev/urandom > "$WORK/20m.bin"
( while :; do df -B1 --output=avail "$INBOX" | tail -1; sleep 0.05; done ) > "$WORK/free" & kids+=($!)
disk() {
  local f
  for f in huge.bin 46m.bin 20m.bin; do
    ctl beta send-file "$WORK/$f" --to alpha > "$WORK/send-$f.out" 2>&1 && echo "disk: $f sent: $(tail -1 "$WORK/send-$f.out")" || echo "disk: $f refused: $(tail -1 "$WORK/send-$f.out")"
  done
}
attack disk disk
lowest=$(sort -n "$WORK/free" | head -1)
echo "disk: lowest free space $((lowest >> 20)) MiB of 48 MiB (the reserve kept: 4.8 MiB, a tenth of the disk)"
