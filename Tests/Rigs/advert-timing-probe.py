#!/usr/bin/env python3
"""The person and the analysis of Tests/Rigs/advert-timing.sh.

    advert-timing-probe.py WORK SECONDS REWRITE_MEAN

A scripted person publishes on alpha (WORK/alpha/run/control.sock) at moments drawn uniformly
between 1/4 and 5/4 of the rewrite mean apart, for SECONDS, while alpha's advert names are read
from its status. Then, from what the stranger saw (WORK/stranger.jsonl, `seen` lines: the moment
each added / updated / removed reached it) and alpha's names alone:

1. Do rewrites follow publishes?  Of n publishes, k saw a record of alpha's advert on the wire
   within 1 s after. If rewrites came at moments independent of the person, each publish has the
   chance q = 1 - exp(-r x 1 s) of such a record, r the rate of records the stranger saw (k ~
   Binomial(n, q)). Fails if k > n q + 3 sqrt(n q (1 - q)) + 1. (Rewriting at each publish, as
   handoffd did before, gives k = n.)
2. Are the two series correlated?  Pearson's r between publishes per second and alpha's records
   per second, with the records taken in the same second and in the next; independent series give
   |r| about 1/sqrt(bins). Fails if |r| > 4/sqrt(bins).
3. Can a rotation be paired by timing?  Goodbyes of alpha's names against announcements of
   alpha's names in the same second (|t_add - t_goodbye| < 1 s): chance gives about
   goodbyes x announcements x 2 s / duration. Fails if more than that + 3 sqrt(that) + 1.
And it fails when the stranger saw too little to judge (fewer than half the records or rotations
expected), so that a deaf observer cannot pass.

Prints what a peer without a session waits for a change: publish -> the next record of alpha's
advert the stranger saw (p50 / p90), against the mean (memoryless: p50 = 0.69 x mean, p90 = 2.30 x).
"""
import json
import math
import os
import random
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handoff_probe import FIRST_BOOK, Conn, book_activity, fail  # noqa: E402

WORK, SECONDS, MEAN = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
alpha = Conn(WORK, "alpha")
book = FIRST_BOOK
names = set()
stop = threading.Event()


def watch_names():
    """alpha's advert names, from its status (each lives at least half a rotation mean)."""
    conn = Conn(WORK, "alpha")
    while not stop.is_set():
        name = conn.request("status")["result"].get("advertisedAs")
        if name:
            names.add(name)
        time.sleep(0.2)


watcher = threading.Thread(target=watch_names, daemon=True)
watcher.start()

# The person: publishes (two scenes, new activities) at moments of its own.
publishes = []
start = time.time()
scenes = [str(uuid.uuid4()).upper() for _ in range(2)]
i = 0
while time.time() - start < SECONDS:
    time.sleep(random.uniform(MEAN / 4, MEAN * 5 / 4) if MEAN > 0 else 1)
    if time.time() - start >= SECONDS:
        break
    t = time.time()
    answer = alpha.request("publish", activity=book_activity(book, f"Timing {i}", str(uuid.uuid4()).upper()), scene=scenes[i % 2], keep=True)
    if not answer.get("ok"):
        fail(f"publish on alpha: {answer}")
    publishes.append(t)
    i += 1
end = time.time()
# Let the stranger catch what came last; then alpha's names are all known.
time.sleep(2)
stop.set()
watcher.join()

seen = []
others = set()
with open(f"{WORK}/stranger.jsonl") as f:
    for line in f:
        m = json.loads(line)
        if m.get("event") == "seen" and m.get("name") not in names:
            others.add(m.get("name"))
        if m.get("event") == "seen" and m.get("name") in names and start <= m["time"] <= end + 2:
            seen.append((m["time"], m["state"]))
records = sorted(t for t, s in seen if s in ("added", "updated"))
goodbyes = sorted(t for t, s in seen if s == "removed")
announced = sorted(t for t, s in seen if s == "added")
duration = end - start
failures = []

expected_records = duration / MEAN
print(f"timing: {len(publishes)} publishes over {duration:.0f} s; the stranger saw {len(records)} records of alpha's advert "
      f"({expected_records:.0f} expected at a {MEAN:g} s mean), {len(goodbyes)} goodbyes and {len(announced)} announcements "
      f"of {len(names)} names")
if len(records) < expected_records / 2:
    failures.append(f"the stranger saw {len(records)} records, fewer than half the {expected_records:.0f} expected: it cannot judge "
                    f"(alpha's names: {sorted(names)[:4]}; others it saw: {sorted(others)[:4]})")
if len(goodbyes) < 2:
    failures.append(f"the stranger saw {len(goodbyes)} rotations of alpha's advert: too few to judge the pairing")

# 1. Records right after publishes.
rate = len(records) / duration
q = 1 - math.exp(-rate * 1.0)
n = len(publishes)
k = sum(1 for p in publishes if any(p <= r < p + 1.0 for r in records))
bound = n * q + 3 * math.sqrt(n * q * (1 - q)) + 1
print(f"  publishes followed within 1 s by a record: {k} of {n} (chance {n * q:.1f}; fails above {bound:.1f}; rewriting at each publish gives {n})")
if k > bound:
    failures.append(f"{k} of {n} publishes were followed within 1 s by a record of alpha's advert (chance {n * q:.1f})")


# 2. Correlation per second.
def pearson(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return 0.0 if sxx == 0 or syy == 0 else sxy / math.sqrt(sxx * syy)


bins = int(duration)
x = [0] * (bins + 2)
y = [0] * (bins + 2)
for p in publishes:
    x[int(p - start)] += 1
for r in records:
    if 0 <= int(r - start) < len(y):
        y[int(r - start)] += 1
limit = 4 / math.sqrt(bins)
for lag in (0, 1):
    r = pearson(x[:bins], y[lag:bins + lag])
    print(f"  correlation of publishes and records per second, records {lag} s later: r = {r:+.3f} (fails beyond +-{limit:.3f})")
    if abs(r) > limit:
        failures.append(f"publishes and records {lag} s later are correlated: r = {r:+.3f}, beyond {limit:.3f}")

# 3. Rotation pairing by timing.
close = sum(1 for g in goodbyes for a in announced if abs(a - g) < 1.0)
chance = len(goodbyes) * len(announced) * 2.0 / duration
pair_bound = chance + 3 * math.sqrt(chance) + 1
gaps = [min((a - g for a in announced if a > g), default=float("nan")) for g in goodbyes]
gaps = [g for g in gaps if not math.isnan(g)]
gap_text = f"; goodbye -> next announcement {min(gaps):.1f} to {max(gaps):.1f} s" if gaps else ""
print(f"  goodbyes and announcements in the same second: {close} (chance {chance:.2f}; fails above {pair_bound:.1f}){gap_text}")
if close > pair_bound:
    failures.append(f"{close} goodbyes of alpha's names came within 1 s of an announcement (chance {chance:.2f})")

# What a peer without a session waits for: publish -> the next record on the wire.
waits = sorted(min((r - p for r in records if r >= p), default=float("inf")) for p in publishes)
waits = [w for w in waits if w != float("inf")]
if waits:
    p50, p90 = waits[len(waits) // 2], waits[min(len(waits) - 1, int(len(waits) * 0.9))]
    print(f"publish -> next record of alpha's advert on the wire (a peer without a session): p50 {p50:.1f} s, p90 {p90:.1f} s, "
          f"n={len(waits)} (mean interval {MEAN:g} s; memoryless: p50 {0.69 * MEAN:.1f}, p90 {2.30 * MEAN:.1f})")

if failures:
    for f in failures:
        print(f"advert-timing: {f}", file=sys.stderr)
    sys.exit(1)
print("advert-timing: the stranger's record does not follow the person")
