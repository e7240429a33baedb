#!/usr/bin/env python3
"""The measurements of Tests/Rigs/scale.sh, over the daemons' control sockets.

    scale-probe.py WORK N BIN HUB_ANCHOR ROUNDS

WORK/<name>/run/control.sock for the hub ("hub") and its peers ("m2".."mN"); the hub's host is
entered with `nsenter -t HUB_ANCHOR -m -n` to start it again. Each peer's events come from a
`watch` connection of its own, stamped on arrival (CLOCK_MONOTONIC, one clock for every host:
they share this kernel). Prints one line per figure; exits 1 when an operation fails or a
deadline passes, saying which.
"""
import os
import signal
import subprocess
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handoff_probe import FIRST_BOOK, Conn as _Conn, book_activity, cpu_seconds, fail, gone, now, rss_mib, stats  # noqa: E402

WORK, N, BIN, HUB_ANCHOR, ROUNDS = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
# CI's short run idles for less than the long rig's minute.
IDLE_SECONDS = float(os.environ.get("SCALE_IDLE_SECONDS", "60"))
# Where the restart rounds' CPU goes: with SCALE_PERF_DIR set, each round runs under
# `perf record -a` (every process on this machine) into DIR/restart-N.data.
PERF_DIR = os.environ.get("SCALE_PERF_DIR")
PEERS = [f"m{i}" for i in range(2, N + 1)]


def Conn(name, watch=False):
    return _Conn(WORK, name, watch)


def wait_all(conns, event, after, seconds, peer="hub"):
    """Until every connection has EVENT about PEER after AFTER; their delays after AFTER."""
    deadline = now() + seconds
    seen = {}
    while True:
        # Only the connections still waited on are looked at: the probe shares the cores with
        # the 50 daemons it measures.
        for c in conns:
            if c.name not in seen:
                t = c.first(event, after, peer)
                if t is not None:
                    seen[c.name] = t
        missing = [c.name for c in conns if c.name not in seen]
        if not missing:
            return [seen[c.name] - after for c in conns]
        if now() > deadline:
            fail(f"{len(missing)} of {len(conns)} peers had no {event} for {peer} within {seconds} s: {' '.join(missing[:10])}")
        time.sleep(0.002)


def busy_seconds():
    """CPU time the whole machine spent busy (every process, every core), from /proc/stat."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def hub_pid():
    return Conn("hub").request("status")["result"]["pid"]


watchers = [Conn(p, watch=True) for p in PEERS]

# 1. The hub restarted (state kept): from its launch until every peer reports it present.
restart = []
child = None
for r in range(ROUNDS):
    pid = hub_pid()
    t = now()
    os.kill(pid, signal.SIGTERM)
    wait_all(watchers, "peerAbsent", t, 15)
    deadline = now() + 10
    while not gone(pid, child):
        if now() > deadline:
            fail(f"the hub (pid {pid}) did not exit within 10 s of SIGTERM")
        time.sleep(0.002)
    time.sleep(1)
    perf = None
    if PERF_DIR:
        events = os.environ.get("SCALE_PERF_EVENTS", "-F 4000").split()  # e.g. "-e sched:sched_switch": where threads wait
        perf = subprocess.Popen(["perf", "record", "-q", "-a", "-g", *events, "-o", f"{PERF_DIR}/restart-{r + 1}.data"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)  # perf's own start, before the hub's
    log = open(f"{WORK}/hub/handoffd.log", "a")
    t = now()
    child = subprocess.Popen(["nsenter", "-t", HUB_ANCHOR, "-m", "-n", "--", f"{BIN}/handoffd", "--config", f"{WORK}/hub/handoffd.yaml"],
                             stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    busy0, own0 = busy_seconds(), time.process_time()
    each = sorted(wait_all(watchers, "peerPresent", t, 30))
    busy, own = busy_seconds() - busy0, time.process_time() - own0
    if perf:
        perf.send_signal(signal.SIGINT)
        perf.wait()
    restart.append(each[-1])
    # Which side's dial made each peer see the hub again (the peer's own, after the hub's advert
    # appeared, or the hub's at its start), and the CPU every process used meanwhile.
    own = sum(1 for w in watchers for _, m in w.seen("peerPresent", t) if m.get("peer") == "hub" and m.get("dialled"))
    # Where the last one's time goes: the first peer (the hub's own start) and the spread after.
    print(f"  round {r + 1}: first peer present after {each[0] * 1000:.1f} ms, half after {each[len(each) // 2] * 1000:.1f} ms, "
          f"the last after {each[-1] * 1000:.1f} ms; {own} by the peer's own dial; "
          f"CPU of every process meanwhile {busy * 1000:.0f} ms on {os.cpu_count()} cores, of this probe {own * 1000:.0f} ms")
print(f"{'hub restarted -> all ' + str(len(PEERS)) + ' peers: peerPresent (last one)':<58} {stats(restart)}")

# 2. The hub publishes: until each peer holds its new list (remoteActivitiesChanged).
hub = Conn("hub")
book = FIRST_BOOK
fanout = []
for r in range(ROUNDS):
    activity = book_activity(book, f"Scale {r}", str(uuid.uuid4()).upper())
    t = now()
    answer = hub.request("publish", activity=activity, scene=str(uuid.uuid4()).upper(), keep=True)
    if not answer.get("ok"):
        fail(f"publish on the hub: {answer}")
    fanout += wait_all(watchers, "remoteActivitiesChanged", t, 10)
    time.sleep(0.5)
print(f"{'hub publishes -> listed on each peer (remoteActivitiesChanged)':<58} {stats(fanout)}")

# 3. Every peer continues the hub's activity at once.
clients = [Conn(p) for p in PEERS]
results = [None] * len(clients)
go = threading.Barrier(len(clients) + 1)


def continue_from(i):
    go.wait()
    t = now()
    m = clients[i].request("continue", timeout=30, peer="hub", activity=activity["id"])
    results[i] = (now() - t, m)


threads = [threading.Thread(target=continue_from, args=(i,)) for i in range(len(clients))]
for th in threads:
    th.start()
hub_cpu0, busy0, own0 = cpu_seconds(hub_pid()), busy_seconds(), time.process_time()
go.wait()
for th in threads:
    th.join()
hub_cpu, busy, span = cpu_seconds(hub_pid()) - hub_cpu0, busy_seconds() - busy0, max(d for d, _ in results)
own = time.process_time() - own0
failed = [(clients[i].name, m) for i, (_, m) in enumerate(results) if (m.get("result") or {}).get("outcome") != "continued"]
if failed:
    fail(f"{len(failed)} of {len(clients)} concurrent continues failed, e.g. {failed[0][0]}: {failed[0][1]}")
print(f"{str(len(clients)) + ' concurrent continues of the hub activity (all continued)':<58} {stats([d for d, _ in results])}")
# Where the time goes: here 50 machines share this machine's cores, so the figure above holds the
# queue for them; on real machines only the hub's share is shared.
print(f"{'  CPU meanwhile: the hub / this probe / every process':<58} {hub_cpu * 1000:.0f} ms / {own * 1000:.0f} ms / {busy * 1000:.0f} ms "
      f"in {span * 1000:.0f} ms on {os.cpu_count()} cores")

# 4. The hub idle with its sessions: CPU per minute, RSS.
pid = hub_pid()
c0, t0 = cpu_seconds(pid), now()
time.sleep(IDLE_SECONDS)
per_minute = (cpu_seconds(pid) - c0) * 60 / (now() - t0)
print(f"{'hub idle with ' + str(len(PEERS)) + ' sessions: CPU per minute':<58} {per_minute:.2f} s")
print(f"{'hub RSS with ' + str(len(PEERS)) + ' sessions':<58} {rss_mib(pid):.1f} MiB")

# 5. Every advert rotated at once: until the hub lists each peer under its new name. A rotation
# withdraws the old advert at once and announces the new one after a random gap (1 s to 11 s by
# default: docs/PRIVACY.md), so the figure runs from the last announcement, which each
# daemon's status shows (advertisedAs changes once avahi-daemon says the advert is established).
names = {}
for c in [hub] + clients:
    names[c.name] = c.request("rotate-advert")["result"]["name"]
t = now()
announced = {}
while len(announced) < len(clients):
    for c in clients:
        if c.name not in announced and c.request("status")["result"].get("advertisedAs") == names[c.name]:
            announced[c.name] = now()
    if now() - t > 60:
        fail(f"60 s after the rotations {len(clients) - len(announced)} peers have not announced their new advert")
    # A sweep every 100 ms: asking 49 daemons without a pause takes a core from them and their
    # avahi-daemons (a run without it had pings time out).
    time.sleep(0.1)
last = max(announced.values())
while True:
    listed = {p["name"]: p.get("advert") for p in hub.request("peers")["result"] if p.get("paired")}
    stale = [p for p in PEERS if listed.get(p) != names[p]]
    if not stale:
        break
    if now() - t > 60:
        fail(f"60 s after the rotations the hub still lists {len(stale)} peers under old names: {' '.join(stale[:10])}")
    time.sleep(0.01)
gaps = sorted(a - t for a in announced.values())
print(f"{'all ' + str(N) + ' adverts rotated: rotate -> new advert announced':<58} first {gaps[0]:.1f} s, last {gaps[-1]:.1f} s (the random gap)")
print(f"{'  -> the hub lists every new one':<58} {(now() - last) * 1000:8.1f} ms after the last announcement")
