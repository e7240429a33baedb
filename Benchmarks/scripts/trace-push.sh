#!/usr/bin/env bash
# Where a push to a live handler spends its time, hop by hop (root, two test hosts):
#   Benchmarks/scripts/trace-push.sh [PUSHES] [--probes]     (BENCH_BIN=DIR: binaries built elsewhere)
# bench-edges times the push from end to end; this follows each one through the kernel's
# tracepoints (perf: the syscalls that read and write it, the scheduler's wake-ups) from the
# pusher's send to alpha, through alpha's read and its write to beta, beta's read and its write to
# the handler, to the handler's read, and prints each segment (Benchmarks/scripts/trace-push.py). With
# --probes, uprobes on handoffd's functions along the path (below) split each daemon's work;
# each one costs a trap (a few µs), so the totals grow with them. The pushes are bench-edges'
# (Benchmarks/scripts/bench-push.py: 0.22 s apart, an open client registered with `handle` on beta).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=60
PROBES=false
for a in "$@"; do
  case $a in
    --probes) PROBES=true ;;
    *) [[ "$a" =~ ^[1-9][0-9]*$ ]] || { echo "usage: trace-push.sh [PUSHES] [--probes]" >&2; exit 2; }; N=$a ;;
  esac
done
command -v perf >/dev/null || apt-get install -y -q linux-perf >/dev/null
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl hawknotes
SET=tpush
WORK=$(mktemp -d /tmp/handoffd-tracepush.XXXXXX)
TRACEFS=/sys/kernel/tracing
# The probes' group is ours alone: removed on the way out (a uprobe outlives its tracer).
end_trace() {
  [ -z "${perf_pid:-}" ] || kill -INT "$perf_pid" 2>/dev/null || true
  if [ -e "$TRACEFS/events/hoffpush" ]; then
    echo 0 > "$TRACEFS/events/hoffpush/enable" 2>/dev/null || true
    local i
    for ((i = 0; i < ${#probes[@]}; i += 2)); do echo "-:hoffpush/${probes[i]}" >> "$TRACEFS/uprobe_events" 2>/dev/null || true; done
  fi
  end_daemons_and_hosts
}

# Functions on the push's path (their entries; an async function's first part): alpha takes the
# request, sends the push, seals it; beta opens it, decodes it, dispatches it and writes the event to
# the handler (LiveHandlerRegistry.offer is inlined into the dispatch: no probe of its own).
probes=(
  request '$s14HandoffControl0B7RequestV4line6limitsACSays5UInt8VG_0A4Core11CodecLimitsVtAA0B5ErrorOYKcfC'
  push '$s13HandoffDaemon13ContinuationsC4push10activityID2to0A7Control18ContinuationReportV20FoundationEssentials4UUIDV_SStYaAG0H5ErrorOYKF'
  linkRequest '$s13HandoffDaemon9PeerLinksC7request_2on7timeout0A8Protocol0C7MessageOAIs5Int64VYbXE_0A4Link0K7SessionCs8DurationVtYaAA0C12RequestErrorOYKF'
  seal '$s11HandoffLink14NoiseTransportV4seal_9allocator7NIOCore10ByteBufferVAH_AF0hI9AllocatorVtAA0C5ErrorOYKF'
  open '$s11HandoffLink14NoiseTransportV4open_9allocator7NIOCore10ByteBufferVAH_AF0hI9AllocatorVtAA0C5ErrorOYKF'
  decode '$s15HandoffProtocol11PeerMessageO8decoding6limitsACSays5UInt8VG_0A4Core11CodecLimitsVtAA0cB5ErrorOYKcfC'
  serve '$s13HandoffDaemon10PeerServerV5serve_4from0A8Protocol0C7MessageOSgAH_0A4Link0I7SessionCtYaF'
  dispatch '$s13HandoffDaemon10DispatcherV8dispatch_14preferredScene9requester2atAA15DispatchOutcomeO0A4Core12UserActivityV_20FoundationEssentials4UUIDVSgSSSgAM4DateVtYaF'
  eventOut '$s13HandoffDaemon12SocketOutletC4send5event_ySS_SDySS0A4Core17PropertyListValueOGtF'
  eventLine '$s14HandoffControl0B4LineO5eventySays5UInt8VGSS_SDySS0A4Core17PropertyListValueOGtFZ'
)
trap end_trace EXIT
# add_probe NAME SYMBOL: a uprobe at SYMBOL's file offset in handoffd (its address in the
# executable segment, less the segment's address, plus its offset in the file).
add_probe() {
  local address offset=""
  address=$(nm "$BIN/handoffd" | awk -v s="$2" '$3 == s && !f { print $1; f = 1 }')
  if [ -z "$address" ]; then
    echo "trace-push: no symbol for probe $1 in this handoffd (renamed or inlined); left out" >&2
    return
  fi
  local type file_offset segment size flags rest
  while read -r type file_offset segment _ size _ flags rest; do
    [[ "$type" == LOAD && "$flags$rest" == *E* ]] || continue
    if ((16#$address >= segment && 16#$address < segment + size)); then
      offset=$(printf '0x%x' $((16#$address - segment + file_offset)))
    fi
  done < <(readelf -lW "$BIN/handoffd")
  [ -n "${offset:-}" ] || { echo "trace-push: probe $1's address is in no executable segment; left out" >&2; return; }
  # One left by a run that was killed (SIGKILL skips the trap) would refuse this one.
  echo "-:hoffpush/$1" >> "$TRACEFS/uprobe_events" 2>/dev/null || true
  echo "p:hoffpush/$1 $BIN/handoffd:$offset" >> "$TRACEFS/uprobe_events"
}
if $PROBES; then
  [ -w "$TRACEFS/uprobe_events" ] ||
    { echo "trace-push: --probes needs tracefs at $TRACEFS (mount -t tracefs nodev $TRACEFS)" >&2; exit 1; }
  for ((i = 0; i < ${#probes[@]}; i += 2)); do add_probe "${probes[i]}" "${probes[i + 1]}"; done
fi

paired_hosts
publish_pushed
# The first pushes run code for the first time (lazy bindings, caches): not traced.
push 5 >/dev/null
alpha=$(daemon_pid alpha)
beta=$(daemon_pid beta)
# Every process's reads, writes, sends, receives and epoll waits, and the scheduler's wake-ups and
# switches, but perf's own syscalls (the filter names its PID: the shell's, which exec makes
# perf's); a Python handler's read is recvfrom, NIO's is read.
events=(-e sched:sched_wakeup -e sched:sched_switch)
calls='(id == 0 || id == 1 || id == 20 || id == 44 || id == 45 || id == 232) && common_pid != $$'
$PROBES && events+=(-e 'hoffpush:*')
bash -c "exec perf record -q -a -m 1024 -o '$WORK/perf.data' $(printf "'%s' " "${events[@]}") \
  -e raw_syscalls:sys_enter --filter \"$calls\" -e raw_syscalls:sys_exit --filter \"$calls\" -- sleep 600" >/dev/null 2>&1 &
perf_pid=$!
until_true 10 "perf's start" test -s "$WORK/perf.data"
# Not through `push`: the trace is told the pusher's PID, and a function in the background is a
# shell of its own.
python3 Benchmarks/scripts/bench-push.py "$N" "$WORK/alpha/run/control.sock" "$WORK/beta/run/control.sock" "$push_id" "$push_type" &
pusher=$!
wait "$pusher"
kill -INT "$perf_pid"
wait "$perf_pid" 2>/dev/null || true
perf_pid=""
perf script -i "$WORK/perf.data" -F comm,pid,tid,time,event,trace 2>/dev/null > "$WORK/perf.txt"
python3 Benchmarks/scripts/trace-push.py "$WORK/perf.txt" "$alpha" "$beta" "$pusher"
