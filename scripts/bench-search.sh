#!/usr/bin/env bash
# Search figures (issue 24), release build, two paired test hosts (root), beta's index holding
# about 10,000 items (a library of 2,500 books and 7,500 characters, plus activities and scenes):
# query -> results through the control socket, through GNOME Shell's interface on a real session
# bus, through `handoffctl search`; and a remote activity published on alpha -> found on beta.
#   scripts/bench-search.sh [N]     (default 200 queries each)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
N=${1:-200}
source scripts/lib-daemons.sh
bench_start handoffd handoffctl
SET=sbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
trap end_daemons_and_hosts EXIT

# A library with 10,000 items. Words come from a vocabulary of about 3,000 (made of syllables, plus
# the words the queries use), so that a query matches tens of items, as names and titles do.
/usr/bin/python3 - "$WORK/library.json" <<'PY'
import json, random, sys, uuid
random.seed(24)
named = ("ash river storm glass harbour ledger map widow signal crow lantern gear winter clock salt "
         "swift burning captain lady mira orrin pell quill tide ember frost hollow meridian beacon").split()
syllables = "ka lo mi ren tor va shi el dun ar bel cor fen gal hin jor lis mar nor pel".split()
words = sorted(set(named + ["".join(random.choice(syllables) for _ in range(random.randint(2, 3))) for _ in range(3000)]))
def phrase(k): return " ".join(random.choice(words).capitalize() for _ in range(k))
books = []
for b in range(2500):
    books.append({"id": str(uuid.UUID(int=random.getrandbits(128))).upper(), "title": phrase(3), "imagePrefix": "x",
                  "tagline": phrase(6), "synopsis": phrase(30), "storeURL": "https://example.org/b%d" % b, "notes": phrase(12),
                  "characters": [{"id": str(uuid.UUID(int=random.getrandbits(128))).upper(), "name": phrase(2),
                                  "description": phrase(10)} for _ in range(3)]})
json.dump({"books": books}, open(sys.argv[1], "w"))
PY
scripts/testhosts.sh up "$SET" 2 >/dev/null
scripts/testhosts.sh session "${SET}2" start
start_daemon 1 alpha
LIBRARY=$WORK/library.json DAEMON_ENV="DBUS_SESSION_BUS_ADDRESS=unix:path=/run/dbus/session" start_daemon 2 beta
pair_daemons alpha beta >/dev/null
echo "== release build; beta's index: the library (2,500 books, 7,500 characters), activities, scenes; $N queries each"
scripts/testhosts.sh exec "${SET}2" env DBUS_SESSION_BUS_ADDRESS=unix:path=/run/dbus/session \
  /usr/bin/python3 "$REPO/scripts/bench-search.py" "$WORK/beta/run/control.sock" "$WORK/alpha/run/control.sock" "$BIN/handoffctl" "$N"
