#!/usr/bin/env python3
"""Times commands from launch to exit, interleaved: N rounds, each launching every command once,
the order turned by one each round, so that every row meets the same machine: this VM's speed
drifts within a minute (nsenter alone 3.1, 4.1 and 3.3 ms median in three runs of 40, one after
another), and rows timed one after another, as bench-edges timed them first, compared minutes.

The clock (CLOCK_MONOTONIC) is read before the fork and after the child is reaped; output goes to
/dev/null. Each command runs once untimed first (the page cache warm).

  bench-launch.py N LABEL COMMAND... [:: LABEL COMMAND...]...

Prints, per row in the order given: min / median / p90 in milliseconds."""
import subprocess
import sys
import time


def rows(args):
    out, row = [], []
    for a in args + ["::"]:
        if a == "::":
            if len(row) < 2:
                sys.exit("bench-launch: each row is a label and a command")
            out.append((row[0], row[1:]))
            row = []
        else:
            row.append(a)
    return out


def launch(label, cmd):
    t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ms = (time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t) / 1e6
    if r.returncode != 0:
        sys.exit(f"bench: {label} exited {r.returncode}")
    return ms


def main():
    n, table = int(sys.argv[1]), rows(sys.argv[2:])
    for label, cmd in table:
        launch(label, cmd)
    times = [[] for _ in table]
    for round_ in range(n):
        for k in range(len(table)):
            i = (round_ + k) % len(table)
            times[i].append(launch(*table[i]))
    for (label, _), ms in zip(table, times):
        ms.sort()
        print(f"{label:<44} min {ms[0]:6.2f}  median {ms[len(ms) // 2]:6.2f}  p90 {ms[int(len(ms) * 0.9)]:6.2f} ms  (N={n})")


main()
