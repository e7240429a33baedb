"""What the probes of Tests/Rigs/scale.sh, chaos.sh and soak.sh share: control connections to the
daemons of a rig (WORK/<name>/run/control.sock), figures, and the processes' counters.

Times are CLOCK_MONOTONIC (one clock for every test host: they share this kernel).
"""
import json
import os
import socket
import sys
import threading
import time

now = time.monotonic
PREFIX = os.path.basename(sys.argv[0]).split("-")[0]


def fail(message):
    print(f"{PREFIX}: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


class ConnectionLost(Exception):
    pass


def connect_when_ready(path, seconds):
    """A daemon just started may tell its peers it is back before its control socket is bound
    (the link comes first): retry until the socket accepts, within SECONDS."""
    deadline = now() + seconds
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except (FileNotFoundError, ConnectionRefusedError) as e:
            s.close()
            if now() > deadline:
                fail(f"{path} did not accept a connection within {seconds} s: {e}")
            time.sleep(0.005)


class Conn:
    """One control connection: requests with ids, answers matched by id, events kept."""

    def __init__(self, work, name, watch=False, wait=10.0):
        self.name = name
        self.s = connect_when_ready(f"{work}/{name}/run/control.sock", wait)
        self.f = self.s.makefile("rb")
        self.next = 0
        self.lock = threading.Lock()
        self.answers = {}
        self.closed = False
        self.events = []  # (monotonic time, event dict)
        self.cv = threading.Condition(self.lock)
        threading.Thread(target=self.read, daemon=True).start()
        if watch:
            self.request("watch")

    def read(self):
        try:
            for raw in self.f:
                t = now()
                m = json.loads(raw)
                with self.cv:
                    if "event" in m:
                        self.events.append((t, m))
                    else:
                        self.answers[m.get("id")] = (t, m)
                    self.cv.notify_all()
        except OSError:
            pass
        with self.cv:
            self.closed = True
            self.cv.notify_all()

    def request(self, op, timeout=30, **args):
        """The answer to OP; fails the probe when none comes within TIMEOUT seconds."""
        m = self.ask(op, timeout, **args)
        if m is None:
            fail(f"{self.name}: no answer to {op} within {timeout} s")
        return m

    def ask(self, op, timeout=30, **args):
        """The answer to OP, or None after TIMEOUT seconds; ConnectionLost if the daemon went."""
        with self.lock:
            self.next += 1
            i = self.next
        try:
            self.s.sendall((json.dumps(dict(args, id=i, op=op)) + "\n").encode())
        except OSError as e:
            raise ConnectionLost(str(e))
        deadline = now() + timeout
        with self.cv:
            while i not in self.answers:
                if self.closed:
                    raise ConnectionLost(f"{self.name} closed the control connection")
                if not self.cv.wait(max(0, deadline - now())):
                    return None
            _, m = self.answers.pop(i)
        return m

    def first(self, event, after, peer=None):
        """Arrival time of the first event EVENT (about PEER, if given) after AFTER, or None."""
        found = None
        with self.lock:
            # From the newest back to AFTER: the probes wait on 49 connections at once, every few
            # milliseconds, and a scan from the oldest event took CPU from the daemons measured.
            for t, m in reversed(self.events):
                if t <= after:
                    break
                if m.get("event") == event and (peer is None or m.get("peer") == peer):
                    found = t
        return found

    def seen(self, event, after, before=float("inf")):
        """Every EVENT between AFTER and BEFORE, as (time, event)."""
        with self.lock:
            return [(t, m) for t, m in self.events if after < t < before and m.get("event") == event]

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


def stats(values):
    v = sorted(values)
    pick = lambda q: v[min(len(v) - 1, int(q * len(v)))]
    return f"p50 {pick(0.5) * 1000:8.1f}   p99 {pick(0.99) * 1000:8.1f}   max {v[-1] * 1000:8.1f} ms  (n={len(v)})"


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_field(pid, key):
    """A number from /proc/PID/status (VmRSS in kB, Threads)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def rss_mib(pid):
    return status_field(pid, "VmRSS") / 1024


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def gone(pid, child=None):
    """The process has exited (a child of ours is reaped here; another's zombie counts as gone)."""
    if child is not None:
        return child.poll() is not None
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        # Reaped between the open and the read: the read fails with ESRCH.
        return True


# The first book of Hawk Notes' library (config/library.json): its content is the app's own, and
# handoffd does not list it.
FIRST_BOOK = "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"


def book_activity(book, title, activity_id):
    """A Hawk Notes book-detail activity (the sample library's first type)."""
    return {"handoff": True, "id": activity_id, "keywords": [], "needsSave": False, "required": [],
            "search": False, "title": title, "type": "org.hawknotes.bookDetail", "userInfo": {"bookID": book}, "version": 1}
