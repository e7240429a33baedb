#!/usr/bin/env bash
# Search figures, release build, two paired test hosts (root), beta's index holding about 10,000
# items (10,000 windows of an app, each with its current activity and its text, plus activities):
# query -> results through the control socket, through GNOME Shell's interface on a real session
# bus, through `handoffctl search`; and a remote activity published on alpha -> found on beta.
#   Benchmarks/scripts/bench-search.sh [N]     (default 200 queries each)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-200}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl
SET=sbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
trap end_daemons_and_hosts EXIT

Tests/Rigs/testhosts.sh up "$SET" 2 >/dev/null
Tests/Rigs/testhosts.sh session "${SET}2" start
start_daemon 1 alpha
DAEMON_ENV="DBUS_SESSION_BUS_ADDRESS=unix:path=/run/dbus/session" start_daemon 2 beta
pair_daemons alpha beta >/dev/null
# 10,000 windows of an app on beta, each doing something (its current activity's title) and
# keeping text (its storage): what the index holds of an app's content. Words come from a
# vocabulary of about 3,000 (made of syllables, plus the words the queries use), so that a query
# matches tens of items, as names and titles do.
/usr/bin/python3 - "$WORK/beta/run/control.sock" <<'PY'
import json, random, socket, sys, uuid
random.seed(24)
named = ("ash river storm glass harbour ledger map widow signal crow lantern gear winter clock salt "
         "swift burning captain lady mira orrin pell quill tide ember frost hollow meridian beacon").split()
syllables = "ka lo mi ren tor va shi el dun ar bel cor fen gal hin jor lis mar nor pel".split()
words = sorted(set(named + ["".join(random.choice(syllables) for _ in range(random.randint(2, 3))) for _ in range(3000)]))
def phrase(k): return " ".join(random.choice(words).capitalize() for _ in range(k))
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
f = s.makefile("rb")
def call(n, op, **args):
    s.sendall(json.dumps(dict(args, op=op, id=n)).encode() + b"\n")
    while True:
        line = json.loads(f.readline())
        if line.get("id") == n:
            if not line.get("ok"):
                raise SystemExit(f"bench-search: {op}: {line}")
            return line.get("result")
for i in range(10000):
    scene = call(2 * i, "scene-connect", role="reading")["scene"]
    title = phrase(3 if i % 4 == 0 else 2)
    activity = {"id": str(uuid.UUID(int=random.getrandbits(128))).upper(), "version": 1, "type": "org.hawknotes.bookDetail",
                "userInfo": {"bookID": "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"}, "required": [], "keywords": phrase(6).split(),
                "handoff": True, "search": False, "needsSave": False, "title": title}
    call(2 * i + 1, "scene-update", scene=scene, activity=activity, content="doc:%d" % i,
         set=[{"key": "text", "content": "doc:%d" % i, "value": phrase(30)}])
PY
echo "== release build; beta's index: 10,000 windows (title, keywords, text), activities; $N queries each"
Tests/Rigs/testhosts.sh exec "${SET}2" env DBUS_SESSION_BUS_ADDRESS=unix:path=/run/dbus/session \
  /usr/bin/python3 "$REPO/Benchmarks/scripts/bench-search.py" "$WORK/beta/run/control.sock" "$WORK/alpha/run/control.sock" "$BIN/handoffctl" "$N"
