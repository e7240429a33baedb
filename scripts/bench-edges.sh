#!/usr/bin/env bash
# The edges a person meets first (issue 26), between two paired test hosts (root), release build:
#   - `handoffctl status` from process start to exit, the daemon running: launched in the test
#     host through nsenter, as a person's shell would, timed on CLOCK_MONOTONIC (N trials);
#   - `handoffctl --help` the same way (no daemon, no socket: the start-up alone);
#   - a push to a live handler on the other host: from an open client's `send` on A to the
#     handler's read on B, and from `handoffctl send` launched on A to that read;
#   - handoffd's idle RSS on both hosts, 10 s after it started;
#   - the binaries' sizes as built and as packaged (stripped of debug info), and the .deb's if
#     scripts/package-deb.sh made one.
# min / median / p90 in milliseconds. Presence (SIGTERM -> peerAbsent, restart -> peerPresent) is
# scripts/bench-presence.sh; continuation latency scripts/bench-continue.sh.
#   scripts/bench-edges.sh [N]          (BENCH_BIN=DIR: binaries built elsewhere, before/after)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
N=${1:-40}
source scripts/lib-daemons.sh
bench_start handoffd handoffctl
SET=ebench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
trap end_daemons_and_hosts EXIT
paired_hosts
anchor=$(scripts/testhosts.sh pid "${SET}1")

# Each command launched N times; the clock read before fork and after the child is reaped.
timed() {  # timed LABEL COMMAND...
  python3 - "$N" "$@" <<'PY'
import subprocess, sys, time
n, label, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # page cache warm
ms = []
for _ in range(n):
    t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ms.append((time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t) / 1e6)
    if r.returncode != 0:
        sys.exit(f"bench: {label} exited {r.returncode}")
ms.sort()
print(f"{label:<44} min {ms[0]:6.2f}  median {ms[len(ms) // 2]:6.2f}  p90 {ms[int(len(ms) * 0.9)]:6.2f} ms  (N={n})")
PY
}
in_alpha=(nsenter -t "$anchor" -m -n --)
timed "handoffctl status, start -> exit" "${in_alpha[@]}" "$BIN/handoffctl" status --socket "$WORK/alpha/run/control.sock"
timed "handoffctl --help, start -> exit" "${in_alpha[@]}" "$BIN/handoffctl" --help
timed "nsenter alone (/bin/true), start -> exit" "${in_alpha[@]}" /bin/true
# The daemon's part of `status`: the request and its answer on a connection already open.
python3 - "$N" "$WORK/alpha/run/control.sock" <<'PY'
import socket, sys, time
n, path = int(sys.argv[1]), sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
f = s.makefile("rb")
ms = []
for i in range(n + 1):
    t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    s.sendall(b'{"id":%d,"op":"status"}\n' % (i + 1))
    f.readline()
    if i: ms.append((time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t) / 1e6)
ms.sort()
print(f"{'status on an open connection (daemon side)':<44} min {ms[0]:6.2f}  median {ms[len(ms) // 2]:6.2f}  p90 {ms[int(len(ms) * 0.9)]:6.2f} ms  (N={n})")
PY

# A push to a live handler on beta (a client registered with `handle`, as an app is): from the
# write of the `send` request on alpha to the handler's read of its `continue` event, and from
# `handoffctl send` launched on alpha (nsenter) to the same read. One clock: both hosts share this
# kernel's CLOCK_MONOTONIC. The handler is a process of its own that stamps each read and hands
# the stamp over a pipe, and the pusher sleeps on that pipe: a handler thread in the pusher's
# process, with the pusher polling for its stamp every 0.2 ms, took the CPU and the interpreter's
# lock from the two daemons and the handler while they worked, and the clock started before the
# request's JSON was made (0.86-0.90 -> 0.69-0.74 ms, one build, one sitting: docs/ARCHITECTURE.md,
# "Threads and blocking").
ctl alpha publish --character "Lady Beatrice" >/dev/null
id=$(ctl alpha activities --json | json_field activity)
type=$(ctl alpha activities --json | json_field type)
python3 - "$N" "$WORK/alpha/run/control.sock" "$WORK/beta/run/control.sock" "$id" "$type" "$anchor" "$BIN/handoffctl" <<'PY'
import json, os, select, socket, subprocess, sys, time
n, alpha, beta, activity, kind, anchor, ctl = int(sys.argv[1]), *sys.argv[2:]
now = lambda: time.clock_gettime_ns(time.CLOCK_MONOTONIC)

HANDLER = r"""
import json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
f = s.makefile("rb")
s.sendall((json.dumps({"id": 1, "op": "handle", "types": [sys.argv[2]], "name": "bench"}) + "\n").encode())
answer = json.loads(f.readline())
if not answer.get("ok"):
    sys.exit(f"bench: beta refused the handler: {answer}")
os.write(1, b"ready\n")
next_id = 1
while True:
    raw = f.readline()
    t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    if not raw:
        break
    m = json.loads(raw)
    if m.get("event") == "continue":
        os.write(1, b"%d\n" % t)
        next_id += 1
        s.sendall((json.dumps({"id": next_id, "op": "handled", "token": m["token"], "accepted": True}) + "\n").encode())
    elif m.get("event") is None and not m.get("ok", True):
        sys.exit(f"bench: the handler was refused: {m}")
"""
# Unbuffered: select() below sees what is unread, none of it held in a reader's buffer.
handler = subprocess.Popen([sys.executable, "-c", HANDLER, beta, kind], stdout=subprocess.PIPE, bufsize=0)
stamps = handler.stdout
if stamps.readline() != b"ready\n":
    sys.exit("bench: the handler on beta did not start")

def seen(what):
    # The handler's stamp of its read; nothing within 10 s (or the handler gone) ends the bench.
    if not select.select([stamps], [], [], 10)[0]:
        sys.exit(f"bench: the handler on beta never saw {what}")
    line = stamps.readline()
    if not line:
        sys.exit(f"bench: the handler on beta ended before {what}")
    return int(line)

def report(label, ms):
    ms.sort()
    print(f"{label:<44} min {ms[0]:6.2f}  median {ms[len(ms) // 2]:6.2f}  p90 {ms[int(len(ms) * 0.9)]:6.2f} ms  (N={len(ms)})")

# handoffd takes at most 5 pushes a second to one peer (docs/SECURITY.md): one every 0.22 s.
last = [0.0]
def paced():
    wait = last[0] + 0.22 - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    last[0] = time.monotonic()

pusher = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
pusher.connect(alpha)
answers = pusher.makefile("rb")
push = []
for i in range(n + 1):
    paced()
    line = (json.dumps({"id": i + 1, "op": "send", "activity": activity, "to": "beta"}) + "\n").encode()
    t = now()
    pusher.sendall(line)
    handled = seen(f"a push ({activity} of {kind})")
    if i:
        push.append((handled - t) / 1e6)
    answer = json.loads(answers.readline())
    assert answer.get("ok"), f"send failed: {answer}"
report("push -> live handler on beta (open client)", push)

cli = []
for i in range(n):
    paced()
    t = now()
    p = subprocess.Popen(["nsenter", "-t", anchor, "-m", "-n", "--", ctl, "send", activity, "--to", "beta", "--socket", alpha],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cli.append((seen("handoffctl send") - t) / 1e6)
    if p.wait() != 0:
        sys.exit("bench: handoffctl send failed")
report("handoffctl send start -> handled on beta", cli)
handler.kill()
handler.wait()
PY

# Idle RSS: 10 s after each daemon started.
for name in alpha beta; do
  pid=$(daemon_pid "$name")
  up=$(ctl "$name" status --json | sed -n 's/.*"uptimeSeconds" : \([0-9]*\).*/\1/p')
  [ "${up:-0}" -ge 10 ] || sleep $((10 - ${up:-0}))
  rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
  threads=$(awk '/^Threads/ { print $2 }' "/proc/$pid/status")
  awk -v r="$rss" -v t="$threads" -v n="$name" 'BEGIN { printf "%-44s %6.1f MiB, %s threads\n", "handoffd " n " idle RSS (after 10 s)", r / 1024, t }'
done

for b in handoffd handoffctl; do
  cp "$BIN/$b" "$WORK/$b.stripped"
  strip --strip-all "$WORK/$b.stripped"
  awk -v b="$b" -v a="$(stat -c %s "$BIN/$b")" -v s="$(stat -c %s "$WORK/$b.stripped")" \
    'BEGIN { printf "%-44s %6.1f MB as built, %6.1f MB as packaged\n", b, a / 1e6, s / 1e6 }'
done
deb=$(scripts/package-deb.sh --path)
if [ -f "$deb" ]; then
  awk -v d="$(basename "$deb")" -v s="$(stat -c %s "$deb")" 'BEGIN { printf "%-44s %6.1f MB (%s)\n", ".deb", s / 1e6, d }'
else
  echo ".deb: none built (scripts/package-deb.sh)"
fi
