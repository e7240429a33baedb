#!/usr/bin/env python3
"""Checks the module rules of docs/ARCHITECTURE.md ("Modules"), in two ways:
  - what each module may import, line by line in its sources (an allow-list per pure module);
  - what each module must never reach, through Package.swift's dependency graph, transitively
    (`swift package dump-package`): e.g. HandoffProtocol reaches no NIO and no daemon.
Also: each C library is imported by one module only.

    scripts/dev/check-modules.py            # exit 1 and say which rule broke, where, and what to do
    scripts/dev/check-modules.py --self-test  # shows that a broken rule is found
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NIO = {"NIOCore", "NIOPosix", "NIOConcurrencyHelpers", "NIOEmbedded", "NIO"}
SYSTEM = {"Swift", "Foundation", "FoundationEssentials", "Glibc", "Dispatch", "Synchronization"}

# Pure modules: everything they may import (besides the system modules above).
ALLOWED = {
    "HandoffCore": set(),
    "HandoffProtocol": {"HandoffCore"},
    "HandoffAdvert": {"HandoffCore", "HandoffDiscovery", "Crypto"},
    "HandoffContent": {"HandoffCore"},
    "HawkNotes": {"HandoffCore", "HandoffContent", "HandoffControl"},
    "HawkNotesApp": {"HandoffCore", "HandoffContent", "HawkNotes"},
    "HandoffControl": {"HandoffCore"},
    "HandoffDiscovery": {"HandoffCore", "Logging"},
    "HandoffBusAPI": {"HandoffCore", "HandoffControl"},
    "HandoffCommandLine": set(),
    "HandoffBrowser": {"HandoffCore", "HandoffControl"},
    "HandoffClipboard": {"HandoffCore", "HandoffProtocol", "Crypto"},
}

# What a module must never reach, directly or through its dependencies.
FORBIDDEN = {
    "HandoffCore": NIO | {"HandoffDaemon", "HandoffLink"},
    "HandoffProtocol": NIO | {"HandoffDaemon", "HandoffLink", "ServiceLifecycle"},
    "HandoffAdvert": NIO | {"HandoffDaemon", "HandoffLink", "ServiceLifecycle"},
    "HandoffContent": NIO | {"HandoffDaemon", "HandoffLink", "HandoffDiscovery", "HawkNotes"},
    # The app's model knows nothing of the network.
    "HawkNotes": NIO | {"HandoffDaemon", "HandoffLink", "HandoffDiscovery", "HandoffClient", "HandoffProtocol", "HandoffAdvert"},
    "HandoffControl": NIO | {"HandoffDaemon", "HandoffLink"},
    # The browser's side as values: no socket, no daemon.
    "HandoffBrowser": NIO | {"HandoffDaemon", "HandoffLink", "HandoffClient"},
    # The browser's host reaches handoffd through its client, as every app.
    "handoff-browser-host": {"HandoffDaemon", "HandoffLink", "HandoffState"},
    # The clipboard as values: no socket, no display, no daemon.
    "HandoffClipboard": NIO | {"HandoffDaemon", "HandoffLink", "HandoffClient", "CXCB", "CWaylandClipboard"},
    # The displays' clipboards know nothing of handoffd; the agent reaches it as every app.
    "HandoffX11": {"HandoffDaemon", "HandoffLink", "HandoffClient", "CWaylandClipboard"},
    "HandoffWayland": {"HandoffDaemon", "HandoffLink", "HandoffClient", "CXCB"},
    "handoff-clipboard-agent": {"HandoffDaemon", "HandoffLink", "HandoffState"},
    # The D-Bus API as values: no bus, no daemon.
    "HandoffBusAPI": NIO | {"HandoffDaemon", "HandoffLink", "CSystemdBus", "HandoffBus"},
    # The bus connection knows nothing of what handoffd serves on it.
    "HandoffBus": {"HandoffDaemon", "HandoffLink", "HandoffState"},
    # The app's window is a value: no network, no terminal, no daemon.
    "HawkNotesApp": NIO | {"HandoffDaemon", "HandoffLink", "HandoffDiscovery", "HandoffClient", "HandoffProtocol", "HandoffAdvert", "CNcurses"},
    # The terminal layer draws; it knows nothing of handoffd.
    "HawkNotesTerminal": NIO | {"HandoffDaemon", "HandoffLink", "HandoffDiscovery", "HandoffClient"},
    "hawknotes": {"HandoffDaemon", "HandoffLink", "HandoffState"},
    # Apps and the CLI reach the daemon only through its doors.
    "HandoffClient": {"HandoffDaemon", "HandoffLink", "HandoffState", "HawkNotes"},
    "handoffctl": {"HandoffDaemon", "HandoffLink", "HandoffState", "HawkNotes"},
    # The platform knows no app's content: Hawk Notes is one app on it (docs/APPS.md).
    "HandoffDaemon": {"HawkNotes", "HawkNotesApp"},
    "HandoffConfig": {"HawkNotes", "HawkNotesApp"},
    "HandoffState": {"HawkNotes", "HawkNotesApp"},
    "handoffd": {"HawkNotes", "HawkNotesApp"},
    "handoff-rogue-peer": {"HandoffDaemon"},
    # The push floor's relay does none of handoffd's work: it must not reach it.
    "handoff-push-relay": {"HandoffDaemon", "HandoffLink", "HandoffProtocol"},
}

# One module touches each C library.
C_LIBRARIES = {
    "CAvahi": "HandoffAvahi", "CLDNS": "HandoffWideArea", "CNcurses": "HawkNotesTerminal", "CSystemdBus": "HandoffBus",
    "CSQLite": "HandoffState", "CYAML": "HandoffConfig", "CXCB": "HandoffX11", "CWaylandClipboard": "HandoffWayland",
}

IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?([\w]+)", re.M)


def imports_of(path):
    found = {}
    for dirpath, _, files in os.walk(path):
        for name in files:
            if name.endswith(".swift"):
                file = os.path.join(dirpath, name)
                with open(file, encoding="utf-8") as f:
                    for m in IMPORT.finditer(f.read()):
                        found.setdefault(m.group(1), []).append(os.path.relpath(file, ROOT))
    return found


# Library products other packages depend on by version: SwiftPM refuses a dependency whose targets
# carry unsafe flags, so none may, nor anything they reach.
DEPENDABLE = ["HandoffClient"]
UNSAFE = set()
# Library modules of Sources/ written in Swift: each has a test target of its own, <Name>Tests.
LIBRARIES = set()


def package_graph():
    out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    targets = {}
    for t in json.loads(out)["targets"]:
        if any("unsafeFlags" in s.get("kind", {}) for s in t.get("settings", [])):
            UNSAFE.add(t["name"])
        deps = []
        for d in t.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in d:
                    deps.append(d[kind][0])
        if t["type"] == "regular" and not t.get("path") and not re.match(r"C[A-Z]", t["name"]):
            LIBRARIES.add(t["name"])
        targets[t["name"]] = (t.get("path") or (("Tests/" if t["type"] == "test" else "Sources/") + t["name"]), deps)
    return targets


def closure(targets, name):
    seen, todo = set(), [name]
    while todo:
        for d in targets.get(todo.pop(), (None, []))[1]:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def check(targets):
    problems = []
    for name, (path, _) in targets.items():
        if path.startswith("Tests/"):
            continue
        imports = imports_of(os.path.join(ROOT, path))
        if name in ALLOWED:
            for module, files in sorted(imports.items()):
                if module not in ALLOWED[name] | SYSTEM:
                    problems.append(f"{name} imports {module} ({files[0]}): it may import only {sorted(ALLOWED[name])}; move the code that needs {module} to a module above it")
        for lib, owner in C_LIBRARIES.items():
            if lib in imports and name != owner:
                problems.append(f"{name} imports {lib} ({imports[lib][0]}): only {owner} may; call {owner} instead")
    for name in sorted(LIBRARIES):
        if f"{name}Tests" not in targets:
            problems.append(f"{name} has no test target: add {name}Tests (Tests/{name}Tests) for the tests of what it holds")
    for name in DEPENDABLE:
        for module in sorted(({name} | closure(targets, name)) & UNSAFE):
            problems.append(f"{module} has unsafe flags and {name} reaches it: another package could not depend on {name} by version")
    for name, banned in FORBIDDEN.items():
        if name not in targets:
            problems.append(f"the rules name {name}, which Package.swift no longer has: update scripts/dev/check-modules.py")
            continue
        reached = closure(targets, name) & banned
        for module in sorted(reached):
            problems.append(f"{name} reaches {module} through Package.swift's dependencies: it must not (docs/ARCHITECTURE.md, \"Modules\")")
    return problems


def main():
    targets = package_graph()
    if "--self-test" in sys.argv:
        # A pure module that reached NIO, and one that imported the daemon, must both be found.
        broken = dict(targets)
        path, deps = broken["HandoffProtocol"]
        broken["HandoffProtocol"] = (path, deps + ["HandoffLink"])
        found = check(broken)
        assert any("HandoffProtocol reaches NIOCore" in p for p in found), found
        UNSAFE.add("HandoffControl")
        assert any("HandoffControl has unsafe flags and HandoffClient reaches it" in p for p in check(targets)), check(targets)
        UNSAFE.discard("HandoffControl")
        LIBRARIES.add("HandoffUntested")
        assert any("HandoffUntested has no test target" in p for p in check(targets))
        LIBRARIES.discard("HandoffUntested")
        ALLOWED["HandoffProtocol"] = set()
        assert any("HandoffProtocol imports HandoffCore" in p for p in check(targets))
        print("check-modules: self-test found both broken rules")
        return 0
    problems = check(targets)
    for p in problems:
        print("check-modules: " + p, file=sys.stderr)
    if not problems:
        print(f"check-modules: {len(targets)} targets follow the module rules")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
