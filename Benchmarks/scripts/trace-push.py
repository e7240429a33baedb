#!/usr/bin/env python3
"""Where a push's time goes, hop by hop, from `perf script` output (Benchmarks/scripts/trace-push.sh):

  trace-push.py PERF_SCRIPT_OUTPUT ALPHA_PID BETA_PID PUSHER_PID

Each push starts at the pusher's send (sendto) of the `send` request on its connection to alpha
and ends at the handler's read (recvfrom) of the `continue` event from beta. Between, on the same
clock: alpha's read of the request and its write to beta (on the thread that read it), beta's read
of the push and its write to the handler. Each segment is printed as min / median / p90 over the
pushes, then, where handoffd ran under uprobes (`hoffpush:*` events), each probe's time from the
daemon's read, for the probes that fired between that read and the daemon's write.
"""
import re
import statistics
import sys

LINE = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)$")
READS, WRITES = {0, 45, 47}, {1, 20, 44, 46}
SEND, RECVFROM = 44, 45


def events(path):
    """(time µs, process, thread, event, details) of each line, in order."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                _, pid, tid, t, name, rest = m.groups()
                out.append((float(t) * 1e6, int(pid), int(tid), name, rest))
    return out


def syscall(e):
    m = re.match(r"NR (\d+)", e[4])
    return int(m.group(1)) if m else -1


def entered(e, numbers):
    return e[3].endswith("sys_enter") and syscall(e) in numbers


def exited(e, numbers):
    return e[3].endswith("sys_exit") and syscall(e) in numbers


class Trace:
    def __init__(self, evs, alpha, beta, pusher):
        self.ev, self.alpha, self.beta, self.pusher = evs, alpha, beta, pusher
        # The handler: the process other than ours that reads with recvfrom (a Python client).
        self.handler = next((e[1] for e in evs if exited(e, {RECVFROM}) and e[1] not in (alpha, beta, pusher)), None)
        self.tgid = {e[2]: e[1] for e in evs}

    def first(self, i, test, within=50_000.0):
        """Index of the first event from i on that passes test, within `within` µs."""
        t0 = self.ev[i][0]
        for j in range(i, len(self.ev)):
            if self.ev[j][0] - t0 > within:
                return None
            if test(self.ev[j]):
                return j
        return None

    def wake(self, start, end, process):
        """µs from the wake-up of a thread of process to its switch-in, between two events."""
        w = None
        for j in range(start, end):
            e = self.ev[j]
            m = re.search(r"\bpid=(\d+)", e[4]) if e[3] == "sched:sched_wakeup" else None
            if m and self.tgid.get(int(m.group(1))) == process:
                w = (j, int(m.group(1)))
                break
        if w is None:
            return None
        s = self.first(w[0], lambda e: e[3] == "sched:sched_switch" and f"next_pid={w[1]} " in e[4])
        return None if s is None or s > end else self.ev[s][0] - self.ev[w[0]][0]

    def hop(self, i, process):
        """(read, write) indexes of the daemon that takes the message sent at event i."""
        r = self.first(i, lambda e: e[1] == process and exited(e, READS))
        if r is None:
            return None
        tid = self.ev[r][2]
        w = self.first(r, lambda e: e[2] == tid and entered(e, WRITES))
        return None if w is None else (r, w)

    def probes(self, read, write, label, into):
        seen = set()
        for j in range(read, write):
            e = self.ev[j]
            if e[3].startswith("hoffpush:") and e[2] == self.ev[read][2] and e[3] not in seen:
                seen.add(e[3])
                into.setdefault(f"{label}: read -> {e[3][9:]}", []).append(e[0] - self.ev[read][0])

    def pushes(self):
        rows, probes = [], {}
        # The first push, bench-push.py's first use of its connections, is not counted there
        # (it makes one more than asked): nor here.
        anchors = [i for i, e in enumerate(self.ev) if e[1] == self.pusher and entered(e, {SEND})][1:]
        for a in anchors:
            ha = self.hop(a, self.alpha)
            hb = ha and self.hop(ha[1], self.beta)
            h = hb and self.first(hb[1], lambda e: e[1] == self.handler and exited(e, {RECVFROM}))
            if not h:
                continue
            t = lambda j: self.ev[j][0]
            row = {
                "pusher's send -> alpha's read": t(ha[0]) - t(a),
                "alpha: read -> write (its work)": t(ha[1]) - t(ha[0]),
                "alpha's write -> beta's read": t(hb[0]) - t(ha[1]),
                "beta: read -> write (its work)": t(hb[1]) - t(hb[0]),
                "beta's write -> the handler's read": t(h) - t(hb[1]),
                "in all: send -> the handler's read": t(h) - t(a),
                "  of which alpha woken -> on a core": self.wake(a, ha[0], self.alpha),
                "  of which beta woken -> on a core": self.wake(ha[1], hb[0], self.beta),
            }
            rows.append(row)
            self.probes(ha[0], ha[1], "alpha", probes)
            self.probes(hb[0], hb[1], "beta", probes)
        return len(anchors), rows, probes


def line(label, values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return f"  {label:<44} (not seen)"
    return f"  {label:<44} min {v[0]:6.0f}  median {statistics.median(v):6.0f}  p90 {v[int(len(v) * 0.9)]:6.0f} µs  (n={len(v)})"


def main():
    path, alpha, beta, pusher = sys.argv[1], *map(int, sys.argv[2:5])
    trace = Trace(events(path), alpha, beta, pusher)
    if trace.handler is None:
        sys.exit("trace-push: no handler's read in the trace (did the pushes run?)")
    sent, rows, probes = trace.pushes()
    if not rows:
        sys.exit(f"trace-push: none of the {sent} pushes could be followed to the handler's read")
    print(f"{len(rows)} of {sent} pushes followed from the pusher's send to the handler's read")
    for label in rows[0]:
        print(line(label, [r[label] for r in rows]))
    if probes:
        print("uprobes on handoffd (each one's first firing, from the daemon's read; a probe costs a trap):")
        for label, values in sorted(probes.items(), key=lambda kv: (kv[0].split(":")[0] != "alpha", statistics.median(kv[1]))):
            print(line(label, values))


if __name__ == "__main__":
    main()
