#!/usr/bin/env python3
"""The long day of Tests/Rigs/soak.sh: N paired machines working at once (chaos_workload.py)
while one daemon is restarted every few minutes, a spare machine ("x") pairs with n1 and unpairs
again, and adverts rotate. Every SAMPLE seconds: each daemon's RSS, descriptors, threads and
database size; at the end, the figures and every promise checked.

    soak-probe.py WORK SET N BIN SECONDS

Promises (a healthy wire): no operation fails (the machine being restarted is left out of the
work while it restarts: its clients and the others' requests to it would fail by design); RSS
grows by at most 5 % after the first 5 minutes (runs of 20 minutes or more; shorter runs print it);
descriptors and threads end where they were after the warm-up; no `error` line in any log; the
database stays under 64 MiB.
"""
import glob
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chaos_workload import DEADLINES, Workload  # noqa: E402
from handoff_probe import FIRST_BOOK, Conn, fail, fd_count, gone, now, rss_mib, status_field  # noqa: E402

WORK, SET, N, BIN, SECONDS = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
NAMES = [f"n{i}" for i in range(1, N + 1)]
LONG = SECONDS >= 1200
SAMPLE = 60 if LONG else 15
WARMUP = 300 if LONG else 30
RESTART_EVERY = 180 if LONG else 50
PAIR_EVERY = 120 if LONG else 40
ROTATE_EVERY = 30 if LONG else 20
DB_LIMIT_MIB = 64


def anchor(name):
    return subprocess.run(["Tests/Rigs/testhosts.sh", "pid", f"{SET}{name[1:]}"], check=True, capture_output=True, text=True).stdout.strip()


def pid_of(name):
    # One control connection per daemon, kept (a connection each time is a descriptor each time
    # in the daemon, which the descriptor check would count as its leak).
    if name not in control:
        control[name] = Conn(WORK, name)
    return control[name].request("status")["result"]["pid"]


def db_mib(name):
    files = glob.glob(f"{WORK}/{name}/state/*.sqlite*") + glob.glob(f"{WORK}/{name}/state/scenes/**", recursive=True)
    return sum(os.path.getsize(f) for f in files if os.path.isfile(f)) / 2**20


def ctl(*args):
    return subprocess.run([f"{BIN}/handoffctl", *args], capture_output=True, text=True, timeout=60)


def pair_spare():
    script = f'source Tests/Rigs/lib-daemons.sh; BIN={BIN}; WORK={WORK}; pair_daemons n1 x'
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=90)
    if r.returncode != 0:
        fail(f"pairing x with n1 failed: {r.stderr.strip()[-300:]}")


def unpair_spare():
    r = ctl("unpair", "x", "--socket", f"{WORK}/n1/run/control.sock")
    if r.returncode != 0:
        fail(f"n1 could not unpair x: {r.stderr.strip()}")


def restart(name, watchers):
    """SIGTERM, wait for the exit, start again (state kept); back when every other holds it present."""
    machine = load.machines[name]
    load.leave(name)
    pid = pid_of(name)
    os.kill(pid, signal.SIGTERM)
    deadline = now() + 15
    while not gone(pid):
        if now() > deadline:
            fail(f"{name} (pid {pid}) did not exit within 15 s of SIGTERM")
        time.sleep(0.01)
    t = now()
    log = open(f"{WORK}/{name}/handoffd.log", "a")
    subprocess.Popen(["nsenter", "-t", anchor(name), "-m", "-n", "--", f"{BIN}/handoffd", "--config", f"{WORK}/{name}/handoffd.yaml"],
                     stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    while True:
        present = [w for w in watchers if w.name != name and w.first("peerPresent", t, name) is not None]
        if len(present) == N - 1:
            break
        if now() - t > 30:
            missing = [w.name for w in watchers if w.name != name and w not in present]
            views = {m: [p for p in control[m].request("peers")["result"] if p["name"] == name] for m in missing}
            fail(f"{name} restarted, but after 30 s {missing} do not hold it present: {views}")
        time.sleep(0.02)
    control.pop(name).close()
    # Its own watch connection ended with it: a new one, for the next restart's checks.
    i = next(i for i, w in enumerate(watchers) if w.name == name)
    watchers[i].close()
    watchers[i] = Conn(WORK, name, watch=True)
    machine.reconnect()
    load.rejoin(name)
    return now() - t


def error_lines():
    found = []
    for name in NAMES:
        for line in open(f"{WORK}/{name}/handoffd.log", errors="replace"):
            if " error " in line or " critical " in line:
                found.append(f"{name}: {line.strip()}")
    return found


control = {}
watchers = [Conn(WORK, n, watch=True) for n in NAMES]
book = FIRST_BOOK
load = Workload(WORK, NAMES, book)
load.start()
print(f"soak: {N} machines working for {SECONDS:.0f} s; a restart every {RESTART_EVERY} s, x paired and unpaired every "
      f"{PAIR_EVERY} s, a rotation every {ROTATE_EVERY} s; figures every {SAMPLE} s", flush=True)
print(f"soak: {'min':>5} " + " ".join(f"{n + ' RSS/fd/thr/db':>24}" for n in NAMES) + "   ops  failed", flush=True)

samples = []  # (t, {name: (pid, rss, fds, threads, db)})
start = now()
next_sample = start
next_restart = start + RESTART_EVERY
next_pair = start + PAIR_EVERY
next_rotate = start + ROTATE_EVERY
restarts, pairings, rotations, restart_times = 0, 0, 0, []
spare_paired = False
while now() - start < SECONDS:
    t = now()
    if t >= next_sample:
        row = {}
        for n in NAMES:
            pid = pid_of(n)
            row[n] = (pid, rss_mib(pid), fd_count(pid), status_field(pid, "Threads"), db_mib(n))
        samples.append((t - start, row))
        done = len(load.ops)
        failed = sum(o.outcome != "ok" for o in load.ops)
        cells = " ".join(f"{r[1]:7.1f}/{r[2]:3d}/{r[3]:2d}/{r[4]:5.2f}" for r in row.values())
        print(f"soak: {(t - start) / 60:5.1f} {cells}   {done:5d}  {failed:4d}", flush=True)
        next_sample += SAMPLE
    if t >= next_restart:
        victim = NAMES[1 + restarts % (N - 1)]
        restart_times.append(restart(victim, watchers))
        restarts += 1
        next_restart += RESTART_EVERY
    if t >= next_pair:
        if spare_paired:
            unpair_spare()
        else:
            pair_spare()
        spare_paired = not spare_paired
        pairings += 1
        next_pair += PAIR_EVERY
    if t >= next_rotate:
        name = NAMES[rotations % N]
        pid_of(name)
        m = control[name].ask("rotate-advert", 5)
        if m is None or not m.get("ok", "result" in m):
            fail(f"rotate-advert on {name}: {m}")
        rotations += 1
        next_rotate += ROTATE_EVERY
    time.sleep(0.2)
load.stop()

ops = load.ops
bad = [o for o in ops if o.outcome != "ok"]
print(f"soak: {len(ops)} operations, {len(bad)} failed; {restarts} restarts (present again on all after "
      f"{max(restart_times, default=0) * 1000:.0f} ms at worst), {pairings} pairings and unpairings, {rotations} rotations", flush=True)
for o in bad[:5]:
    print(f"soak:   {o.host} {o.op} at {o.start - start:.0f} s: {o.outcome} {o.code}: {o.message}", file=sys.stderr)
if bad:
    fail(f"{len(bad)} operations failed on a healthy wire (deadlines {DEADLINES})")

# Each daemon process's own figures, from the first sample after the warm-up to its last.
for n in NAMES:
    lives = {}
    for t, row in samples:
        if t >= WARMUP:
            lives.setdefault(row[n][0], []).append(row[n])
    for pid, rows in lives.items():
        if len(rows) < 2:
            continue
        first, last = rows[0], rows[-1]
        growth = (last[1] - first[1]) / first[1] * 100
        print(f"soak: {n} (pid {pid}): RSS {first[1]:.1f} -> {last[1]:.1f} MiB ({growth:+.1f} %), fds {first[2]} -> {last[2]}, "
              f"threads {first[3]} -> {last[3]}, database {first[4]:.2f} -> {last[4]:.2f} MiB", flush=True)
        if LONG and growth > 5:
            fail(f"{n}'s RSS grew by {growth:.1f} % after the warm-up (at most 5 %)")
        if last[2] > first[2] + 2:
            fail(f"{n}'s descriptors went from {first[2]} to {last[2]}: a leak")
        if last[3] > first[3] + 2:
            fail(f"{n}'s threads went from {first[3]} to {last[3]}")
        if last[4] > DB_LIMIT_MIB:
            fail(f"{n}'s database is {last[4]:.1f} MiB (at most {DB_LIMIT_MIB})")
errors = error_lines()
if errors:
    fail(f"{len(errors)} error lines in the logs, e.g. {errors[0]}")
print("soak: all promises kept", flush=True)
