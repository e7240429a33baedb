#!/usr/bin/env python3
"""A push to a live handler on beta, for Benchmarks/scripts/bench-edges.sh (which starts the hosts, the
daemons and the floor's relays, and passes their paths):

  bench-push.py N ALPHA_SOCKET BETA_SOCKET ACTIVITY TYPE ANCHOR HANDOFFCTL FLOOR_A FLOOR_B \
      [NIO_A NIO_B TASK_A TASK_B]
  bench-push.py N ALPHA_SOCKET BETA_SOCKET ACTIVITY TYPE      (the first measure alone, for
                                                               Benchmarks/scripts/bench-push-work.sh)

- push -> live handler: from the write of the `send` request on an open connection to alpha to
  the handler's read of its `continue` event on beta (a client registered with `handle`, as an
  app is). One clock: both hosts share this kernel's CLOCK_MONOTONIC.
- the same with both daemons woken 1 ms before each push (a `status` on an open connection to
  each): what the push costs when the cores have not just slept. The bench paces its pushes
  0.22 s apart (a peer takes at most 5 a second), and after ~10 ms idle this machine's cores wake
  slowly and cold.
- `handoffctl send` launched on alpha (nsenter, as a person's shell would) -> the same read; when
  this script runs in alpha's namespaces (bench-edges runs it there), also launched directly, as
  a shell on the machine launches it (no setns per command), the two alternating.
- the floor: the same pusher and handler with two relays in C in place of the daemons
  (Benchmarks/scripts/push-relay.c: unix socket -> TCP over the veth -> unix socket), cold and woken the
  same way. Push minus floor is the daemons' part.
- the floor on SwiftNIO (NIO_A NIO_B, TASK_A TASK_B: handoff-push-relay's sockets): the same
  relays on NIO, copying from the channel handler (`--direct`), and with each read passed
  through a task and an actor on the event loop, as handoffd passes a message (cold and woken).
  What a daemon on NIO pays before any work of its own: push minus this floor is our own work.

The handler is a process of its own that stamps each read and hands the stamp over a pipe on
which the pusher sleeps: a handler thread in the pusher's process, with the pusher polling for
its stamp every 0.2 ms, took the CPU and the interpreter's lock from the daemons and the handler
while they worked, and the clock started before the request's JSON was made (0.86-0.90 ->
0.69-0.74 ms, one build, one sitting: docs/PERFORMANCE.md, "Threads and blocking").
"""
import json
import os
import select
import socket
import subprocess
import sys
import time

n, alpha, beta, activity, kind = int(sys.argv[1]), *sys.argv[2:6]
push_only = len(sys.argv) == 6
if not push_only:
    anchor, ctl, floor_a, floor_b = sys.argv[6:10]
    nio_floors = sys.argv[10:14]
now = lambda: time.clock_gettime_ns(time.CLOCK_MONOTONIC)

# argv: SOCKET TYPE (registers for TYPE and answers each offer), or SOCKET alone (the floor: every
# line it reads is a push).
HANDLER = r"""
import json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
f = s.makefile("rb")
daemon = len(sys.argv) > 2
if daemon:
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
    if not daemon:
        os.write(1, b"%d\n" % t)
        continue
    m = json.loads(raw)
    if m.get("event") == "continue":
        os.write(1, b"%d\n" % t)
        next_id += 1
        s.sendall((json.dumps({"id": next_id, "op": "handled", "token": m["token"], "accepted": True}) + "\n").encode())
    elif m.get("event") is None and not m.get("ok", True):
        sys.exit(f"bench: the handler was refused: {m}")
"""


class Handler:
    def __init__(self, *args):
        # Unbuffered: select() below sees what is unread, none of it held in a reader's buffer.
        self.process = subprocess.Popen([sys.executable, "-c", HANDLER, *args], stdout=subprocess.PIPE, bufsize=0)
        if self.process.stdout.readline() != b"ready\n":
            sys.exit(f"bench: the handler on {args[0]} did not start")

    def seen(self, what):
        # The handler's stamp of its read; nothing within 10 s (or the handler gone) ends the bench.
        if not select.select([self.process.stdout], [], [], 10)[0]:
            sys.exit(f"bench: the handler never saw {what}")
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"bench: the handler ended before {what}")
        return int(line)

    def end(self):
        self.process.kill()
        self.process.wait()


def connected(path):
    # Every answer within 10 s, or the bench ends (a timeout, not a hang).
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    return s, s.makefile("rb")


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


def pushes(handler, pusher, answered, wake=None):
    """n pushes (one more first, not counted); `wake` runs 1 ms before each."""
    sock, answers = pusher
    ms = []
    for i in range(n + 1):
        paced()
        if wake:
            wake()
            time.sleep(0.001)
        line = (json.dumps({"id": i + 1, "op": "send", "activity": activity, "to": "beta"}) + "\n").encode()
        t = now()
        sock.sendall(line)
        handled = handler.seen(f"a push ({activity} of {kind})")
        if i:
            ms.append((handled - t) / 1e6)
        if answered:
            answer = json.loads(answers.readline())
            assert answer.get("ok"), f"send failed: {answer}"
    return ms


handler = Handler(beta, kind)
pusher = connected(alpha)
wakers = [connected(alpha), connected(beta)]


def wake_daemons():
    for s, _ in wakers:
        s.sendall(b'{"id":1,"op":"status"}\n')
    for _, f in wakers:
        if not json.loads(f.readline()).get("ok"):
            sys.exit("bench: status failed")


report("push -> live handler on beta (open client)", pushes(handler, pusher, True))
if push_only:
    handler.end()
    sys.exit(0)
report("  the same, daemons woken 1 ms before", pushes(handler, pusher, True, wake_daemons))

def same_netns(pid):
    try:
        return os.stat("/proc/self/ns/net").st_ino == os.stat(f"/proc/{pid}/ns/net").st_ino
    except OSError:
        return False


send = [ctl, "send", activity, "--to", "beta", "--socket", alpha]
launchers = [("handoffctl send start -> handled on beta", ["nsenter", "-t", anchor, "-m", "-n", "--"] + send)]
if same_netns(anchor):
    launchers.append(("  the same launched in alpha, no nsenter", send))
cli = [[] for _ in launchers]
for i in range(n):
    for k in range(len(launchers)):
        j = (i + k) % len(launchers)
        paced()
        t = now()
        p = subprocess.Popen(launchers[j][1], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cli[j].append((handler.seen("handoffctl send") - t) / 1e6)
        if p.wait() != 0:
            sys.exit("bench: handoffctl send failed")
for (label, _), ms in zip(launchers, cli):
    report(label, ms)
handler.end()

# The floors: relay b takes the relays' TCP connection, then the handler's; relay a connects on
# the pusher's connection.
def floor(label, path_a, path_b, woken):
    floor_pusher = connected(path_a)
    floor_handler = Handler(path_b)

    def wake_relays():
        floor_pusher[0].sendall(b"wake\n")
        floor_handler.seen("a wake-up line")

    report(label, pushes(floor_handler, floor_pusher, False))
    if woken:
        report("  the same, relays woken 1 ms before", pushes(floor_handler, floor_pusher, False, wake_relays))
    floor_handler.end()


floor("floor: the same pushes through two relays", floor_a, floor_b, True)
if nio_floors:
    floor("floor on NIO: two relays, no tasks", *nio_floors[0:2], False)
    floor("floor on NIO: each read via a task, an actor", *nio_floors[2:4], True)
