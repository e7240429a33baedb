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
# `send` request on alpha to the handler's read of its `continue` event, and from `handoffctl send`
# launched on alpha (nsenter) to the same read. One clock: both hosts share this kernel's
# CLOCK_MONOTONIC.
ctl alpha publish --character "Lady Beatrice" >/dev/null
id=$(ctl alpha activities --json | json_field activity)
type=$(ctl alpha activities --json | json_field type)
python3 - "$N" "$WORK/alpha/run/control.sock" "$WORK/beta/run/control.sock" "$id" "$type" "$anchor" "$BIN/handoffctl" <<'PY'
import json, socket, subprocess, sys, threading, time
n, alpha, beta, activity, kind, anchor, ctl = int(sys.argv[1]), *sys.argv[2:]
now = lambda: time.clock_gettime_ns(time.CLOCK_MONOTONIC)

class Client:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.f = self.s.makefile("rb")
        self.next = 0
    def send(self, op, **args):
        self.next += 1
        self.s.sendall((json.dumps(dict(args, id=self.next, op=op)) + "\n").encode())
    def line(self):
        return json.loads(self.f.readline())

handler, pusher = Client(beta), Client(alpha)
handler.send("handle", types=[kind], name="bench")
assert handler.line().get("ok"), "beta refused the handler"
seen = []  # the handler's read of each continue event
ready = threading.Event()
def handle():
    while True:
        m = handler.line()
        if m.get("event") == "continue":
            seen.append(now())
            handler.send("handled", token=m["token"], accepted=True)
        elif m.get("event") is None and not m.get("ok", True):
            sys.exit(f"bench: the handler was refused: {m}")
threading.Thread(target=handle, daemon=True).start()

def report(label, ms):
    ms.sort()
    print(f"{label:<44} min {ms[0]:6.2f}  median {ms[len(ms) // 2]:6.2f}  p90 {ms[int(len(ms) * 0.9)]:6.2f} ms  (N={len(ms)})")

def until_seen(count, what):
    deadline = time.monotonic() + 10
    while len(seen) < count:
        if time.monotonic() > deadline:
            sys.exit(f"bench: the handler on beta never saw {what}; alpha answered {pusher.line()}")
        time.sleep(0.0002)

# handoffd takes at most 5 pushes a second to one peer (docs/SECURITY.md): one every 0.22 s.
last = [0.0]
def paced():
    wait = last[0] + 0.22 - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    last[0] = time.monotonic()

push = []
for i in range(n + 1):
    paced()
    before = len(seen)
    t = now()
    pusher.send("send", activity=activity, to="beta")
    until_seen(before + 1, f"a push ({activity} of {kind})")
    if i:
        push.append((seen[-1] - t) / 1e6)
    answer = pusher.line()
    assert answer.get("ok"), f"send failed: {answer}"
report("push -> live handler on beta (open client)", push)

cli = []
for i in range(n):
    paced()
    before = len(seen)
    t = now()
    p = subprocess.Popen(["nsenter", "-t", anchor, "-m", "-n", "--", ctl, "send", activity, "--to", "beta", "--socket", alpha],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    until_seen(before + 1, "handoffctl send")
    cli.append((seen[-1] - t) / 1e6)
    if p.wait() != 0:
        sys.exit("bench: handoffctl send failed")
report("handoffctl send start -> handled on beta", cli)
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
