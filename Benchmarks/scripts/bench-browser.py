#!/usr/bin/env python3
"""The measurements of Benchmarks/scripts/bench-browser.sh, run inside alpha's test host: alpha's
Chromium over DevTools on its loopback, beta's Firefox through the browser driver started in
beta's host, both daemons over their control sockets (files, reachable from either host).
Times are CLOCK_MONOTONIC, one clock for both hosts (one kernel)."""
import importlib.util
import json
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "Tests", "Rigs"))
from handoff_probe import Conn, cpu_seconds, fail, rss_mib  # noqa: E402

spec = importlib.util.spec_from_file_location("driver", os.path.join(REPO, "Tests", "Rigs", "browser-driver.py"))
driver = importlib.util.module_from_spec(spec)
spec.loader.exec_module(driver)

work, hostset, n, switching, ext, host_binary = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
now = time.monotonic


def figures(name, values):
    v = sorted(values)
    pick = lambda q: v[min(len(v) - 1, int(q * len(v)))] * 1000
    print(f"{name}: n={len(v)} p50={pick(0.5):.1f} ms p90={pick(0.9):.1f} ms min={v[0] * 1000:.1f} ms")


def wait(what, condition, seconds=30, every=0.002):
    deadline = now() + seconds
    while not condition():
        if now() > deadline:
            fail(f"timed out waiting for {what}")
        time.sleep(every)  # polls the condition; it stands in for nothing


alpha, beta = Conn(work, "alpha"), Conn(work, "beta")
chromium = driver.Chromium(9222)
firefox = subprocess.Popen(
    [os.path.join(REPO, "Tests", "Rigs", "testhosts.sh"), "exec", hostset + "2", "/usr/bin/python3",
     os.path.join(REPO, "Tests", "Rigs", "browser-driver.py"), "firefox", "9223", ext],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
if json.loads(firefox.stdout.readline()).get("ready") is not True:
    fail("beta's Firefox did not start")


def firefox_tabs():
    firefox.stdin.write(json.dumps({"cmd": "tabs"}) + "\n")
    firefox.stdin.flush()
    return json.loads(firefox.stdout.readline()).get("tabs", [])


def handlers(conn):
    return conn.request("status").get("result", {}).get("liveHandlers", 0)


wait("both browsers' hosts", lambda: handlers(alpha) == 1 and handlers(beta) == 1, 60, 0.05)


def remote_titles():
    return [a.get("title") for a in beta.request("activities", remote=True).get("result", [])]


def alpha_activity(title):
    for a in alpha.request("activities").get("result", []):
        if a.get("title") == title:
            return a["activity"]
    return None


print(f"== {n} trials, release build, hosts {hostset}1 (alpha, Chromium) -> {hostset}2 (beta, Firefox)")
# The tabs open (and loaded) first: a trial is a person switching to one of them.
for i in range(n):
    chromium.open(f"http://127.0.0.1:8000/p{i}.html")
wait("the last tab offered", lambda: f"Page {n - 1}" in remote_titles())
pages = {t["url"]: t["targetId"] for t in chromium.p.call("Target.getTargets")["targetInfos"] if t["type"] == "page"}
listed, opened = [], []
for i in range(n):
    title = f"Page {i}"
    start = now()
    chromium.p.call("Target.activateTarget", {"targetId": pages[f"http://127.0.0.1:8000/p{i}.html"]})
    wait(f"beta lists {title}", lambda: title in remote_titles())
    listed.append(now() - start)
    if i % 4 == 0:
        activity = alpha_activity(title)
        url = f"http://127.0.0.1:8000/p{i}.html"
        start = now()
        beta.request("continue", peer="alpha", activity=activity)
        wait(f"beta's Firefox shows {url}", lambda: url in firefox_tabs(), every=0.001)
        opened.append(now() - start)
figures("tab activated on alpha -> listed on beta", listed)
figures("continue on beta -> the URL in beta's Firefox", opened)

pid = None
for entry in os.listdir("/proc"):
    if entry.isdigit():
        try:
            if os.readlink(f"/proc/{entry}/exe") == host_binary and f"{work}/alpha" in open(f"/proc/{entry}/environ").read():
                pid = int(entry)
        except OSError:
            pass
if pid is None:
    fail("alpha's native host is not running")
print(f"native host idle: pid {pid} rss {rss_mib(pid):.1f} MiB")
for t in range(3):
    chromium.open(f"http://127.0.0.1:8000/p{n + t}.html")
targets = [t for t in chromium.p.call("Target.getTargets")["targetInfos"] if t["type"] == "page" and "/p" in t["url"]][-3:]
cpu0, start, peak, k = cpu_seconds(pid), now(), 0.0, 0
while now() - start < switching:
    chromium.p.call("Target.activateTarget", {"targetId": targets[k % len(targets)]["targetId"]})
    k += 1
    peak = max(peak, rss_mib(pid))
    time.sleep(max(0, start + k * 0.1 - now()))  # ten switches a second, on a schedule
cpu = cpu_seconds(pid) - cpu0
print(f"native host while switching tabs 10 times a second for {switching} s ({k} switches): "
      f"rss {rss_mib(pid):.1f} MiB (peak {peak:.1f}), cpu {cpu:.2f} s = {100 * cpu / switching:.2f} % of a core")
firefox.stdin.close()
firefox.wait(timeout=10)
