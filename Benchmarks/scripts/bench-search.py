#!/usr/bin/python3
"""Search figures, run inside beta's test host (Benchmarks/scripts/bench-search.sh): through the control
socket (a persistent connection: the daemon's own time plus one local round trip), through GNOME
Shell's interface on the session bus (GetInitialResultSet then GetResultMetas, what the Shell
asks per key press), through `handoffctl search` (process start to exit), and a remote activity
published on alpha -> found by search on beta, measured from beta's remoteActivitiesChanged.

    bench-search.py BETA_SOCKET ALPHA_SOCKET HANDOFFCTL N
"""
import json
import socket
import subprocess
import sys
import time
import uuid

import dbus

QUERIES = ["lady", "bea", "captain", "salt lan", "ash", "winter clock", "mira", "gear", "lantern", "orrin",
           "river", "storm", "glass", "harbour", "ledger", "map", "widow", "pell", "signal", "crow"]


class Control:
    """The control socket's JSON lines (docs/CONTROL.md)."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.f = self.s.makefile("rb")
        self.n = 0
        self.events = []

    def send(self, op, **args):
        self.n += 1
        args.update({"op": op, "id": self.n})
        self.s.sendall(json.dumps(args).encode() + b"\n")
        return self.n

    def answer(self, want):
        while True:
            line = json.loads(self.f.readline())
            if "event" in line:
                self.events.append((time.perf_counter(), line))
                continue
            if line.get("id") == want:
                if not line.get("ok"):
                    raise RuntimeError(line)
                return line.get("result")

    def call(self, op, **args):
        return self.answer(self.send(op, **args))


def stats(name, ms, target=None):
    ms = sorted(ms)
    p = lambda q: ms[min(len(ms) - 1, max(0, int(round(q * len(ms))) - 1))]
    t = f"   (target {target})" if target else ""
    print(f"{name:58s} n={len(ms)} p50={p(0.5):.3f} ms p99={p(0.99):.3f} ms max={ms[-1]:.3f} ms{t}", flush=True)


def main():
    beta_socket, alpha_socket, handoffctl, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    beta = Control(beta_socket)
    # Warm up: the first query of each prefix builds SQLite's statement and pages.
    for q in QUERIES:
        beta.call("search", query=q)
    # The door's own cost, to tell the daemon's search time from it: a `status` round trip.
    ms = []
    for i in range(n):
        t = time.perf_counter()
        beta.call("status")
        ms.append((time.perf_counter() - t) * 1000)
    stats("status -> answer, control socket (the door alone)", ms)
    ms = []
    for i in range(n):
        t = time.perf_counter()
        beta.call("search", query=QUERIES[i % len(QUERIES)])
        ms.append((time.perf_counter() - t) * 1000)
    stats("search -> results, control socket (daemon + 1 round trip)", ms, "<= 2 ms in the daemon")
    # What a search costs besides SQLite's matching and ranking: a query that matches nothing.
    ms = []
    for i in range(n):
        t = time.perf_counter()
        beta.call("search", query="zzqx%d" % i)
        ms.append((time.perf_counter() - t) * 1000)
    stats("search matching nothing, control socket", ms)
    # The worst case: one or two letters match thousands of items, and bm25 ranks every match.
    ms = []
    for i in range(min(n, 50)):
        t = time.perf_counter()
        beta.call("search", query=["k", "ma", "lo", "t"][i % 4])
        ms.append((time.perf_counter() - t) * 1000)
    stats("broad query (1-2 letters, thousands match), control socket", ms)

    bus = dbus.SessionBus()
    provider = bus.get_object("org.handoffd.Handoff", "/org/handoffd/Handoff/SearchProvider")
    initial = provider.get_dbus_method("GetInitialResultSet", "org.gnome.Shell.SearchProvider2")
    metas = provider.get_dbus_method("GetResultMetas", "org.gnome.Shell.SearchProvider2")
    ms = []
    for i in range(n):
        terms = QUERIES[i % len(QUERIES)].split()
        t = time.perf_counter()
        ids = initial(dbus.Array(terms, signature="s"))
        metas(ids)
        ms.append((time.perf_counter() - t) * 1000)
    stats("GNOME Shell: GetInitialResultSet + GetResultMetas (D-Bus)", ms, "<= 10 ms end to end")

    ms = []
    for i in range(min(n, 100)):
        t = time.perf_counter()
        subprocess.run([handoffctl, "search", "--socket", beta_socket, "--json"] + QUERIES[i % len(QUERIES)].split(),
                       check=True, stdout=subprocess.DEVNULL)
        ms.append((time.perf_counter() - t) * 1000)
    stats("handoffctl search QUERY --json (process start -> exit)", ms)

    # Remote: alpha publishes; beta's search finds it, timed from beta's remoteActivitiesChanged.
    alpha = Control(alpha_socket)
    watcher = Control(beta_socket)
    watcher.call("watch")
    ms = []
    for i in range(min(n, 40)):
        word = "zq" + uuid.uuid4().hex[:10]
        activity = {"id": str(uuid.uuid4()).upper(), "version": 1, "type": "org.hawknotes.bookDetail",
                    "userInfo": {"bookID": "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"}, "required": [], "keywords": [],
                    "handoff": True, "search": True, "needsSave": False, "title": "Reading " + word}
        watcher.events.clear()
        alpha.call("publish", activity=activity, keep=True)
        # The listing: beta's event that alpha's offers changed with this activity in them.
        while True:
            line = json.loads(watcher.f.readline())
            if line.get("event") == "remoteActivitiesChanged" and line.get("peer") == "alpha":
                listed = time.perf_counter()
                break
        while not any(h.get("kind") == "remote" for h in beta.call("search", query=word)):
            if time.perf_counter() - listed > 5:
                raise RuntimeError("not found within 5 s")
        ms.append((time.perf_counter() - listed) * 1000)
        alpha.call("resign", activity=activity["id"])
    stats("published on alpha -> found on beta, after it is listed", ms, "<= 10 ms")


if __name__ == "__main__":
    main()
