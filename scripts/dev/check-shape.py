#!/usr/bin/env python3
"""The shape rules of CONTRIBUTING.md, checked: every Swift file under Sources/ and Tests/ holds at
most 400 lines; every component (a class or an actor) in Sources/ at most 10 stored properties
(static ones and computed ones do not count; values, such as a request's fields, are not
components); no failure code in Sources/ is written as a string (FailureCode's members are the
vocabulary). KNOWN lists the types still over, with their count: one may only go down (lower its
figure here when it does); a new type over the rule fails.

    scripts/dev/check-shape.py          (run by .ci/run)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_LINES = 400
MAX_STORED = 10
# Types over the rule today, and their count: each is to be split ("states hold their
# data"); the check fails if one grows or a new one appears.
KNOWN = {
    "Sources/HandoffDaemon/Peers/Reach/PeerReach.swift:PeerReach": 14,
    "Sources/HandoffDaemon/Activities/Activities.swift:Activities": 12,
    "Sources/HandoffDaemon/Search/Search.swift:Search": 11,
    "Sources/HandoffLink/LinkEndpoint.swift:LinkEndpoint": 11,
    "Sources/HandoffAvahi/AvahiDiscovery.swift:AvahiDiscovery": 14,
    "Sources/HandoffDiscovery/FakeDiscovery.swift:FakeDiscovery": 14,
}

TYPE = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|final|nonisolated|open)\s+)*(class|struct|actor|enum|extension)\s+(\w+)")
STORED = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|nonisolated|lazy|weak|unowned)(?:\(set\))?\s+)*(let|var)\s+\(?\w+")


# A failure code given as a literal where FailureCode's members are the vocabulary.
CODE_LITERAL = re.compile(r'(\bcode: |FailureCode\()"[a-z]+(-[a-z0-9]+)*"')


def strip(line):
    """The line without string literals and comments (enough for braces and keywords)."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    return line.split("//", 1)[0]


def stored_properties(path):
    """(type name, stored property count) for each class, struct and actor in the file."""
    out = []
    stack = []  # (name or None, depth at which its body starts, count)
    depth = 0
    pending = None
    in_block_comment = False
    for raw in open(path, encoding="utf-8"):
        line = raw
        if in_block_comment:
            if "*/" not in line:
                continue
            line = line.split("*/", 1)[1]
            in_block_comment = False
        if "/*" in line and "*/" not in line:
            line = line.split("/*", 1)[0]
            in_block_comment = True
        line = strip(line)
        m = TYPE.match(line)
        if m and not line.lstrip().startswith(("case ", "return")):
            # Structs, enums and extensions are tracked too, so that their members are not counted
            # as the enclosing component's; only classes and actors are checked.
            pending = m.group(2) if m.group(1) in ("class", "actor") else "-"
        top = stack[-1] if stack else None
        if top and top[0] and top[0] != "-" and depth == top[1] and not re.search(r"\bstatic\b|\bclass\s+(let|var)\b", line):
            s = STORED.match(line)
            if s:
                rest = line[s.end():]
                computed = "{" in rest and "=" not in rest.split("{", 1)[0]
                if not computed:
                    top[2] += 1
        for ch in line:
            if ch == "{":
                depth += 1
                if pending:
                    stack.append([pending, depth, 0])
                    pending = None
                else:
                    stack.append([None, depth, 0])
            elif ch == "}":
                if stack and stack[-1][1] == depth:
                    name, _, count = stack.pop()
                    if name and name != "-":
                        out.append((name, count))
                depth -= 1
    return out


def main():
    problems = []
    for folder in ("Sources", "Tests", "Benchmarks", "Fuzz", "examples"):
        for dirpath, dirs, files in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = [d for d in dirs if d != ".build"]
            for f in files:
                if not f.endswith(".swift"):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, ROOT)
                n = sum(1 for _ in open(path, encoding="utf-8"))
                if n > MAX_LINES:
                    problems.append(f"{rel}: {n} lines, more than {MAX_LINES}: split it by what its parts hold")
                if folder == "Tests" or "/.build/" in path:
                    continue
                if folder == "Sources" and not rel.endswith("FailureCode.swift"):
                    for i, line in enumerate(open(path, encoding="utf-8"), 1):
                        if CODE_LITERAL.search(line.split("//", 1)[0]):
                            problems.append(f"{rel}:{i}: a failure code written as a string: use FailureCode's member (add one there if it is new)")
                for name, count in stored_properties(path):
                    key = f"{rel}:{name}"
                    allowed = KNOWN.get(key, MAX_STORED)
                    if count > allowed:
                        problems.append(
                            f"{key}: {count} stored properties, more than {allowed}: group what belongs together in a type of its own")
                    elif key in KNOWN and count < KNOWN[key]:
                        problems.append(f"{key}: {count} stored properties now; lower its figure in KNOWN (scripts/dev/check-shape.py)")
    for p in problems:
        print("check-shape: " + p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print("check-shape: every file within 400 lines, every type within its stored properties")


if __name__ == "__main__":
    main()
