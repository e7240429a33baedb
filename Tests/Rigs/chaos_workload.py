"""The work a person's machines do during Tests/Rigs/chaos.sh and soak.sh: on every machine at once,
publishes (two scenes in turn, each replacing its own last activity), continues of another machine's current activity,
pushes (`send`) of its own, and scene saves, each recorded with its outcome and duration.

An outcome is "ok", "failed" (the daemon answered with an error: its code and message must say
what happened) or "no-answer" (nothing within the operation's deadline: always a defect).
"""
import random
import threading
import uuid

from handoff_probe import Conn, ConnectionLost, book_activity, now

# How long each operation may take before it must have answered, success or error: the
# deadlines docs/CONTROL.md gives ("Deadlines"), plus a second for a loaded 2-core machine.
DEADLINES = {"publish": 6, "scene-update": 6, "continue": 21, "send": 61}


class Op:
    __slots__ = ("host", "op", "phase", "start", "seconds", "outcome", "code", "message")

    def __init__(self, host, op, phase, start, seconds, outcome, code=None, message=None):
        self.host, self.op, self.phase, self.start, self.seconds = host, op, phase, start, seconds
        self.outcome, self.code, self.message = outcome, code, message


class Machine:
    """One daemon's share of the work, driven from a thread of its own."""

    def __init__(self, work, name, book, rig):
        self.work, self.name, self.book, self.rig = work, name, book, rig
        self.conn = Conn(work, name)
        self.scene = str(uuid.uuid4()).upper()
        self.current = None  # the activity id published last (acknowledged)
        self.publish_scenes = (str(uuid.uuid4()).upper(), str(uuid.uuid4()).upper())
        self.publishes = 0
        self.saved = None  # the last scene value acknowledged as durable
        self.counter = 0
        self.rng = random.Random(name)
        self.target = None  # the machine an operation in flight asks

    def reconnect(self):
        """After a restart of this machine's daemon (soak.sh): a new control connection."""
        self.conn.close()
        self.conn = Conn(self.work, self.name)
        self.current = None
        self.conn.request("scene-connect", scene=self.scene)

    def call(self, op, target=None, **args):
        self.target = target
        try:
            return self.attempt(op, **args)
        finally:
            self.target = None

    def attempt(self, op, **args):
        t = now()
        try:
            m = self.conn.ask(op, DEADLINES[op], **args)
        except ConnectionLost as e:
            return Op(self.name, op, self.rig.phase, t, now() - t, "failed", "daemon-gone", str(e)), None
        if m is None:
            return Op(self.name, op, self.rig.phase, t, now() - t, "no-answer"), None
        error = m.get("error")
        result = m.get("result") or {}
        if error or (isinstance(result, dict) and result.get("outcome") == "failed"):
            e = error or result
            return Op(self.name, op, self.rig.phase, t, now() - t, "failed", e.get("code"), e.get("message")), None
        return Op(self.name, op, self.rig.phase, t, now() - t, "ok"), result

    def publish(self):
        # A scene has one current activity: a publish replaces the scene's last one. Two scenes
        # in turn keep the previous activity current until the publish after next, so that
        # another machine's continue of what was current a moment ago does not race its end.
        self.publishes += 1
        scene = self.publish_scenes[self.publishes % 2]
        activity = book_activity(self.book, f"{self.name} {self.counter}", str(uuid.uuid4()).upper())
        op, result = self.call("publish", activity=activity, scene=scene, keep=True)
        if result is not None:
            self.current = activity["id"]
            self.rig.current[self.name] = self.current
        return op

    def save(self):
        self.counter += 1
        op, result = self.call("scene-update", scene=self.scene, set=[{"key": "counter", "value": self.counter}])
        if result is not None:
            self.saved = self.counter
        return op

    def continue_one(self):
        others = [(p, a) for p, a in list(self.rig.current.items()) if p != self.name and a and p not in self.rig.away]
        if not others:
            return None
        peer, activity = self.rng.choice(others)
        return self.call("continue", target=peer, peer=peer, activity=activity)[0]

    def push(self):
        if not self.current:
            return None
        peers = [p for p in self.rig.names if p != self.name and p not in self.rig.away]
        if not peers:
            return None
        peer = self.rng.choice(peers)
        return self.call("send", target=peer, activity=self.current, to=peer)[0]

    def step(self):
        kind = self.rng.choice((self.publish, self.save, self.continue_one, self.push))
        return kind()


class Workload:
    """Every machine working at once, PAUSE seconds between one's operations, until stopped."""

    def __init__(self, work, names, book, pause=0.2):
        self.names, self.gap = names, pause
        self.phase = "start"
        self.current = {}
        self.ops = []
        self.lock = threading.Lock()
        self.running = False
        self.away = set()  # machines left out of the work (being restarted)
        self.idle = {}  # by machine: set while its thread is between operations
        self.machines = {n: Machine(work, n, book, self) for n in names}
        self.threads = []

    def start(self):
        for m in self.machines.values():
            m.conn.request("scene-connect", scene=m.scene)
            m.publish()
        self.resume()

    def resume(self):
        self.running = True
        self.threads = [threading.Thread(target=self.loop, args=(m,), daemon=True) for m in self.machines.values()]
        for t in self.threads:
            t.start()

    def pause(self):
        """Every machine's operation in flight ends (or meets its deadline); none starts."""
        self.running = False
        for t in self.threads:
            t.join(max(DEADLINES.values()) + 5)

    def loop(self, machine):
        stop = threading.Event()
        idle = self.idle.setdefault(machine.name, threading.Event())
        while self.running:
            if machine.name in self.away:
                idle.set()
                stop.wait(0.05)
                continue
            idle.clear()
            op = machine.step()
            if op is not None:
                with self.lock:
                    self.ops.append(op)
            stop.wait(self.gap * (0.5 + machine.rng.random()))

    stop = pause

    def leave(self, name):
        """NAME takes no part until `rejoin`: its own work and everything asking it have ended."""
        self.away.add(name)
        self.current.pop(name, None)
        deadline = now() + max(DEADLINES.values()) + 5
        while now() < deadline:
            busy = [m for m in self.machines.values() if m.target == name]
            if not busy and (not self.running or self.idle.get(name, threading.Event()).is_set()):
                return
            threading.Event().wait(0.01)
        raise RuntimeError(f"operations on or to {name} did not end within their deadlines")

    def rejoin(self, name):
        self.away.discard(name)

    def of_phase(self, phase):
        with self.lock:
            return [o for o in self.ops if o.phase == phase]
