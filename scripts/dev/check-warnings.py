#!/usr/bin/env python3
"""Fails when a build log holds a compiler or SwiftPM warning from this repository's code (our
targets, tests, manifest); warnings from dependencies' checkouts are not ours to fix here.

    swift build --build-tests 2>&1 | tee build.log; scripts/dev/check-warnings.py build.log
"""
import re
import sys

WARNING = re.compile(r"warning:")
THEIRS = "/.build/checkouts/"


def ours(lines):
    found = []
    for i, line in enumerate(lines):
        if not WARNING.search(line) or THEIRS in line:
            continue
        # Swift's diagnostics repeat each warning in a drawn excerpt ("`- warning: ..."): the
        # line that names the file is the one counted.
        if line.lstrip().startswith(("|", "`-")):
            continue
        found.append(line.rstrip())
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        found = ours(f.readlines())
    for w in sorted(set(found)):
        print("check-warnings: " + w, file=sys.stderr)
    if found:
        print(f"check-warnings: {len(set(found))} warning(s) from our code: fix their causes (docs/ARCHITECTURE.md, \"Warnings\")",
              file=sys.stderr)
        return 1
    print("check-warnings: no warning from our code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
