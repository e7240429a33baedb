#!/usr/bin/env python3
"""The instructions a push costs each daemon, from callgrind's counts (Benchmarks/scripts/bench-push-work.sh):

  bench-push-work.py PUSHES TOP (ALPHA_PUSH ALPHA_IDLE BETA_PUSH BETA_IDLE)...

Each file is one callgrind dump: a round's pushes' window, then an idle window as long. A function's own
instructions in the pushes' window minus those in the idle one, divided by the pushes, is what a
push costs it (the heartbeat and timers run in both windows). Unlike a latency, the count does
not move with how fast the machine's cores wake: it moves about ±3 % from run to run (what else
falls in the windows), where bench-edges' push median moves 15 %.
Printed: the median round's total per push on each side (and each round's), and the median
round's TOP functions (names demangled).
"""
import collections
import subprocess
import sys


def own_costs(path):
    """Each function's own instructions (a call's line carries the callee's inclusive cost)."""
    costs = collections.Counter()
    function, after_call = None, False
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("fn="):
                function = line[3:].strip()
            elif line.startswith("calls="):
                after_call = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                fields = line.split()
                if len(fields) < 2:
                    continue
                if after_call:
                    after_call = False
                else:
                    costs[function] += int(fields[1])
    return costs


def demangled(names):
    try:
        out = subprocess.run(["swift-demangle", "--simplified"], input="\n".join(names),
                             capture_output=True, text=True, check=True).stdout.splitlines()
        return out if len(out) == len(names) else names
    except (OSError, subprocess.CalledProcessError):
        return names


def per_push(push_file, idle_file, pushes):
    push, idle = own_costs(push_file), own_costs(idle_file)
    return collections.Counter({name: (cost - idle.get(name, 0)) / pushes for name, cost in push.items()})


def side(label, rounds, pushes, top):
    """rounds: (push file, idle file) of each round."""
    per = sorted((per_push(p, i, pushes) for p, i in rounds), key=lambda c: sum(c.values()))
    median = per[len(per) // 2]
    total = sum(median.values())
    each = ", ".join(f"{sum(c.values()) / 1000:.1f}" for c in per)
    print(f"{label:<50} {total / 1000:8.1f} k instructions per push (rounds: {each})")
    if top:
        rows = median.most_common(top)
        for (name, cost), shown in zip(rows, demangled([n for n, _ in rows])):
            print(f"    {cost / 1000:7.1f} k {100 * cost / total:5.1f} %  {shown[:110]}")


pushes, top, files = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
side("alpha (takes the request, sends the push)", [(files[i], files[i + 1]) for i in range(0, len(files), 4)], pushes, top)
side("beta (takes the push, offers it to the handler)", [(files[i + 2], files[i + 3]) for i in range(0, len(files), 4)], pushes, top)
