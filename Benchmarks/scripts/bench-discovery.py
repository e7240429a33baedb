#!/usr/bin/env python3
"""Discovery latency between two test hosts (real avahi-daemons in network namespaces).

Prints min/median/max over N trials of:
  - new service on A -> resolved on B, through our layer (handoff-discovery-probe on both hosts);
  - the same through avahi-publish on A and a kept-open `avahi-browse -r -p` on B (the raw floor);
  - TXT update on A -> the new TXT seen on B through our layer.

Timestamps are CLOCK_MONOTONIC, comparable across network namespaces on one kernel. Needs root.
Usage: Benchmarks/scripts/bench-discovery.py [--trials N] [--probe PATH]
"""
import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOSTS = os.path.join(ROOT, "Tests", "Rigs", "testhosts.sh")
SET = "bench"


def sh(*args):
    return subprocess.run(["bash", HOSTS, *args], check=True, capture_output=True, text=True).stdout.strip()


class Child:
    """A process inside a test host whose stdout lines are queued with their arrival time."""

    def __init__(self, host, argv):
        pid = sh("pid", host)
        self.proc = subprocess.Popen(["nsenter", "-t", pid, "-m", "-n", "--", *argv], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1,
                                     start_new_session=True)
        self.lines = queue.Queue()
        self.recent = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put((time.monotonic_ns(), line.rstrip("\n")))

    def send(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def wait(self, match, timeout=10.0, what="a line"):
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            try:
                if left <= 0:
                    raise queue.Empty
                arrived, line = self.lines.get(timeout=left)
            except queue.Empty:
                raise TimeoutError(f"timed out after {timeout}s waiting for {what}; recent: {self.recent[-5:]}")
            self.recent.append(line)
            result = match(line)
            if result:
                return arrived, line

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def event(name, pred=lambda j: True):
    def match(line):
        try:
            j = json.loads(line)
        except ValueError:
            return False
        return j.get("event") == name and pred(j)
    return match


def command(name):
    def match(line):
        try:
            return json.loads(line).get("command") == name
        except ValueError:
            return False
    return match


def t_of(line):
    return json.loads(line)["t"]


def summary(label, samples):
    ms = [s / 1e6 for s in samples]
    return f"| {label} | {len(ms)} | {min(ms):.1f} | {statistics.median(ms):.1f} | {max(ms):.1f} |"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--probe", default=None)
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench-discovery: needs root (network namespaces)")
    probe = args.probe
    if probe is None:
        for cfg in ("release", "debug"):
            p = os.path.join(ROOT, ".build", cfg, "handoff-discovery-probe")
            if os.access(p, os.X_OK):
                probe = p
                break
    if probe is None:
        sys.exit("bench-discovery: build first (scripts/dev/build-release.sh handoff-discovery-probe)")

    sh("up", SET, "2")
    a_host, b_host = SET + "1", SET + "2"
    children = []
    try:
        b = Child(b_host, [probe]); children.append(b)
        a = Child(a_host, [probe]); children.append(a)
        browse = Child(b_host, ["avahi-browse", "-r", "-p", "-k", "_handoff._tcp"]); children.append(browse)
        for c in (a, b):
            c.wait(event("avahiUp"), timeout=10)

        ours, raw, txt = [], [], []
        for i in range(args.trials):
            print(f"trial {i + 1}/{args.trials}", file=sys.stderr, flush=True)
            # Ours: publish on A, resolved on B.
            name = f"ours-{i}"
            a.send(f"publish {name} 6000 fp=bench")
            _, sent = a.wait(command("publish"))
            try:
                _, seen = b.wait(event("peerAppeared", lambda j: j["peer"]["name"] == name), what=f"B sees {name}")
            except TimeoutError:
                print(f"A's recent output: {a.recent[-6:]}", file=sys.stderr)
                raise
            ours.append(t_of(seen) - t_of(sent))

            # TXT updates on the established service (more than 400 ms apart: avahi coalesces).
            for k in range(2):
                time.sleep(0.5)  # spacing between updates, not a wait for a condition
                a.send(f"txt fp=bench tok={i}-{k}")
                _, sent = a.wait(command("txt"))
                _, seen = b.wait(event("peerChanged", lambda j, v=f"{i}-{k}": j["peer"]["txt"].get("tok") == v))
                txt.append(t_of(seen) - t_of(sent))

            a.send("withdraw")
            b.wait(event("peerRemoved", lambda j: j["name"] == name))

            # Raw floor: avahi-publish on A, the kept-open avahi-browse on B.
            rname = f"raw-{i}"
            t0 = time.monotonic_ns()
            pub = Child(a_host, ["avahi-publish", "-s", rname, "_handoff._tcp", "6001", "v=2"])
            arrived, _ = browse.wait(lambda line: line.startswith("=;") and f";{rname};" in line)
            raw.append(arrived - t0)
            pub.stop()
            browse.wait(lambda line: line.startswith("-;") and f";{rname};" in line)

        print(f"Discovery latency between two test hosts, {args.trials} trials, probe {os.path.relpath(probe, ROOT)}")
        print("| what | n | min ms | median ms | max ms |")
        print("|---|---|---|---|---|")
        print(summary("new service on A -> resolved on B (ours)", ours))
        print(summary("new service on A -> resolved on B (avahi-publish + avahi-browse -r, raw floor)", raw))
        print(summary("TXT update on A -> new TXT on B (ours)", txt))
        ratio = statistics.median(ours) / statistics.median(raw)
        print(f"ours / raw floor (medians): {ratio:.3f}")
    finally:
        for c in children:
            c.stop()
        sh("down", SET)


if __name__ == "__main__":
    main()
