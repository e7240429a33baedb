#!/usr/bin/env python3
"""The phases and checks of Tests/Rigs/chaos.sh: N paired machines (each paired with every
other) working at once (chaos_workload.py) through a bad wire, then the faults one machine can
have. Prints a line per phase and per figure; exits 1 on the first broken promise, saying which.

    chaos-probe.py WORK SET N long|short   (short: CI's version, each phase a few seconds)

Promises checked (docs/CONTROL.md "Deadlines", docs/ARCHITECTURE.md "Presence"):
  - every operation answers within its deadline, success or an error with a code and a message;
    on a healthy wire every one succeeds;
  - through 10 % and 25 % loss no machine reports another absent (pings tolerate loss);
  - after the wire heals, within 10 s: every machine lists every other, holds one session with
    it whose two ends agree (no half-open, no duplicate), and holds its current activity;
  - a machine whose wire is cut is reported absent by every other within the absence bound, also
    by one whose wall clock was just stepped an hour back or forward;
  - nothing acknowledged is lost: each machine's scene holds the last value it acknowledged.
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chaos_workload import DEADLINES, Workload  # noqa: E402
from handoff_probe import FIRST_BOOK, Conn, fail, now  # noqa: E402

WORK, SET, N, LONG = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "long"
NAMES = [f"n{i}" for i in range(1, N + 1)]
HOST = {f"n{i}": f"{SET}{i}" for i in range(1, N + 1)}
# A peer that stops answering is found absent within 11 s (docs/ARCHITECTURE.md, "Presence"),
# checked with a second more for a loaded 2-core machine, as the deadlines are.
ABSENCE_BOUND = 12.0
CONVERGE = 10.0


def seconds(long, short):
    return long if LONG else short


def wire(target, *action):
    subprocess.run(["Tests/Rigs/testhosts.sh", "net", target, *action], check=True, stdout=subprocess.DEVNULL)


def report(phase, t0, ops):
    by = {}
    for o in ops:
        by.setdefault(o.op, []).append(o)
    parts = []
    for op, os_ in sorted(by.items()):
        ok = [o for o in os_ if o.outcome == "ok"]
        slow = max(o.seconds for o in os_)
        codes = sorted({o.code for o in os_ if o.outcome == "failed"})
        parts.append(f"{op} {len(ok)}/{len(os_)} ok (max {slow * 1000:.0f} ms{', failed: ' + ' '.join(codes) if codes else ''})")
    print(f"chaos: {phase:<22} {now() - t0:5.0f} s   " + ", ".join(parts), flush=True)


def check_ops(phase, ops, healthy):
    for o in ops:
        if o.outcome == "no-answer":
            fail(f"{phase}: {o.op} on {o.host} had no answer within its deadline ({DEADLINES[o.op]} s)")
        if o.outcome == "failed" and (not o.code or not o.message):
            fail(f"{phase}: {o.op} on {o.host} failed without a code and a message: {o.code!r} {o.message!r}")
        # A continue of an activity its machine replaced meanwhile (two publishes since the
        # continuing machine read it) is the workload's own race, answered clearly: not-found.
        if o.outcome == "failed" and healthy and not (o.op == "continue" and o.code == "not-found"):
            fail(f"{phase}: {o.op} on {o.host} failed on a healthy wire: {o.code}: {o.message}")


def absences(after, before=float("inf"), about=None):
    found = []
    for w in watchers.values():
        for t, m in w.seen("peerAbsent", after, before):
            if about is None or m.get("peer") == about:
                found.append((w.name, m.get("peer"), m.get("reason"), t))
    return found


def run_phase(name, long, short, setup=None, healthy=False, no_absence=False):
    """The workload through SECONDS of a wire set up by SETUP."""
    if setup:
        setup()
    load.phase = name
    t0 = now()
    time.sleep(seconds(long, short))
    load.phase = name + " (after)"
    ops = load.of_phase(name)
    report(name, t0, ops)
    check_ops(name, ops, healthy)
    if no_absence:
        gone = absences(t0, now())
        if gone:
            fail(f"{name}: {len(gone)} peerAbsent through a lossy wire, e.g. {gone[0][0]} said {gone[0][1]} ({gone[0][2]})")


def views():
    """What each machine holds: its peers by name, and its remote activities by peer."""
    peers, remote = {}, {}
    for n, c in control.items():
        peers[n] = {p["name"]: p for p in c.request("peers")["result"]}
        remote[n] = {}
        for a in c.request("activities", remote=True)["result"]:
            remote[n].setdefault(a["peer"], set()).add(a["activity"])
    return peers, remote


def disagreement():
    """Why the machines have not converged, or None."""
    peers, remote = views()
    for a in NAMES:
        for b in NAMES:
            if a == b:
                continue
            p = peers[a].get(b)
            if not p or not p.get("paired"):
                return f"{a} does not hold {b} as paired"
            if not p.get("present") or not p.get("listed"):
                return f"{a} holds {b} present={p.get('present')} listed={p.get('listed')}"
            if p.get("sessions") != 1:
                return f"{a} holds {p.get('sessions')} sessions with {b}"
            q = peers[b].get(a) or {}
            if p.get("address") != q.get("localAddress"):
                return f"{a}'s session with {b} ends at {p.get('address')}, {b}'s at {q.get('localAddress')} (half-open)"
            want = load.current.get(b)
            if want and want not in remote[a].get(b, set()):
                local = [x["activity"] for x in control[b].request("activities")["result"]]
                return (f"{a} does not hold {b}'s current activity {want}: it holds {sorted(remote[a].get(b, set()))}, {b} has "
                        f"{local}; {a}'s view of {b}: {p}, {b}'s of {a}: {q}")
    return None


def converge(after):
    """Within CONVERGE seconds of AFTER (the workload paused): every promise of a healed wire."""
    load.pause()
    t = now()
    while True:
        why = disagreement()
        if why is None:
            break
        if now() - after > CONVERGE:
            fail(f"not converged {now() - after:.1f} s after the wire healed: {why}")
        time.sleep(0.1)
    print(f"chaos: converged                 {(now() - after) * 1000:5.0f} ms after healing (checked from {(t - after) * 1000:.0f} ms)", flush=True)
    load.resume()


def daemon_pid(name):
    return control[name].request("status")["result"]["pid"]


control = {n: Conn(WORK, n) for n in NAMES}
watchers = {n: Conn(WORK, n, watch=True) for n in NAMES}
book = FIRST_BOOK
load = Workload(WORK, NAMES, book)
load.start()
print(f"chaos: {N} machines, each paired with the {N - 1} others; the workload runs on all", flush=True)

# The wire: healthy, lossy, slow, cut; after each bad one, the machines must converge.
run_phase("healthy", 30, 5, healthy=True)
run_phase("10% loss", 600, 15, lambda: wire(SET, "loss", "10"), no_absence=True)
run_phase("25% loss", 120, 15, lambda: wire(SET, "loss", "25"), no_absence=True)
wire(SET, "heal")
converge(now())
run_phase("256 kbit/s", 60, 8, lambda: wire(SET, "slow", "256kbit"))
wire(SET, "heal")
converge(now())
run_phase("outage", 30, 8, lambda: wire(SET, "down"))
wire(SET, "heal")
converge(now())

def cut(lost):
    """LOST's wire cut until every other machine reports it absent: when each did."""
    t = now()
    wire(HOST[lost], "down")
    while True:
        seen = {w: t2 for w, p, _, t2 in absences(t, about=lost)}
        if len(seen) == N - 1:
            return {w: t2 - t for w, t2 in seen.items()}
        if now() - t > ABSENCE_BOUND + 5:
            fail(f"{lost}'s wire cut: {sorted(set(NAMES) - set(seen) - {lost})} still hold it present after {ABSENCE_BOUND + 5:.0f} s")
        time.sleep(0.05)


# One machine's wire cut: every other reports it absent within the bound; back after healing.
lost = NAMES[-1]
worst = max(cut(lost).values())
print(f"chaos: {lost}'s wire cut -> absent on all {N - 1} others   {worst * 1000:5.0f} ms (bound {ABSENCE_BOUND:.0f} s)", flush=True)
if worst > ABSENCE_BOUND:
    fail(f"{lost} was found absent after {worst:.1f} s, past the bound of {ABSENCE_BOUND:.0f} s")
wire(HOST[lost], "heal")
converge(now())

# One daemon stopped (SIGSTOP) as a hung or suspended process, then continued: the others find
# it absent within the bound and fail what they ask of it; all converge after SIGCONT.
frozen = NAMES[-2]
pid = daemon_pid(frozen)
load.phase = "SIGSTOP"
t0 = now()
os.kill(pid, signal.SIGSTOP)
time.sleep(seconds(20, 14))
os.kill(pid, signal.SIGCONT)
converge(now())
# Its own clients waited on it: their operations are not the others' to answer.
ops = [o for o in load.of_phase("SIGSTOP") if o.host != frozen]
report(f"SIGSTOP {frozen}", t0, ops)
check_ops("SIGSTOP", ops, healthy=False)
seen = {w for w, p, _, _ in absences(t0, about=frozen)}
if len(seen) < N - 1:
    fail(f"{frozen} was stopped for {seconds(20, 14):.0f} s, yet {sorted(set(NAMES) - seen - {frozen})} never held it absent")

# avahi-daemon killed on one machine (and started again, as systemd would), several times: the
# sessions do not depend on it, so every operation still succeeds.
unlucky = NAMES[1]
load.phase = "avahi killed"
t_avahi = now()
for k in range(6 if LONG else 2):
    t0 = now()
    subprocess.run(["Tests/Rigs/testhosts.sh", "avahi", HOST[unlucky], "kill"], check=True)
    subprocess.run(["Tests/Rigs/testhosts.sh", "avahi", HOST[unlucky], "start"], check=True)
    converge(now())
    gone = absences(t0, now())
    if gone:
        fail(f"avahi-daemon killed on {unlucky}: the link does not depend on it, yet {gone[0][0]} said {gone[0][1]} absent")
    time.sleep(max(0, seconds(30, 3) - (now() - t0)))
report("avahi killed", t_avahi, load.of_phase("avahi killed"))
check_ops("avahi killed", load.of_phase("avahi killed"), healthy=True)

# The wall clock of one daemon (n3, started with Tests/Rigs/wallclock-step.c preloaded: CLOCK_MONOTONIC
# and CLOCK_BOOTTIME untouched) stepped back an hour, then forward an hour, as NTP, a person or a restored virtual
# machine would: no peer is reported absent for it, it still finds a gone peer absent within the
# bound, and all converge.
stepped = NAMES[2]
clock = f"{WORK}/{stepped}/wallclock-step"
load.phase = "clock steps"
t_clock = now()
for offset in ("-3600", "+3600"):
    t0 = now()
    open(clock, "w").write(offset + "\n")
    time.sleep(seconds(10, 3))
    gone = absences(t0, now())
    if gone:
        fail(f"{stepped}'s wall clock stepped {offset} s: {gone[0][0]} said {gone[0][1]} absent ({gone[0][2]})")
    # A peer that goes silent meanwhile is still found absent by the stepped machine, in time.
    took = cut(lost)[stepped]
    print(f"chaos: {stepped}'s wall clock {offset} s: no false absence; {lost} cut -> absent on {stepped} {took * 1000:5.0f} ms", flush=True)
    if took > ABSENCE_BOUND:
        fail(f"{stepped}'s wall clock stepped {offset} s: it found {lost} absent after {took:.1f} s, past the bound")
    wire(HOST[lost], "heal")
    converge(now())
open(clock, "w").write("0\n")
ops = load.of_phase("clock steps")
report("clock steps", t_clock, ops)
check_ops("clock steps", ops, healthy=False)

load.stop()
# Nothing acknowledged is lost: every machine's scene holds the last value it acknowledged.
for n, m in load.machines.items():
    if m.saved is None:
        continue
    storage = control[n].request("scene", scene=m.scene)["result"].get("storage") or {}
    held = (storage.get("scene") or {}).get("counter")
    if held != m.saved:
        fail(f"{n}'s scene holds counter={held!r}, but {m.saved} was acknowledged")
total = len(load.ops)
failed = sum(o.outcome == "failed" for o in load.ops)
print(f"chaos: all promises kept; {total} operations, {failed} failed with a clear error, none unanswered", flush=True)
