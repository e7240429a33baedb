#!/usr/bin/env bash
# Makes the C code of the Wayland data-control protocols the clipboard agent speaks
# (Sources/CWaylandClipboard/protocols/*.xml -> the -protocol.c and include/*-client.h beside them),
# with Debian's wayland-scanner. The generated files are in the tree, so a build needs no scanner;
#   scripts/dev/wayland-protocols.sh           write them
#   scripts/dev/wayland-protocols.sh --check   exit 1 if they differ from what the XML makes
set -euo pipefail
cd "$(dirname "$0")/../../Sources/CWaylandClipboard"
command -v wayland-scanner >/dev/null || { echo "wayland-protocols: wayland-scanner is missing (apt-get install libwayland-bin)" >&2; exit 1; }
out=$(mktemp -d /tmp/handoffd-wayland-XXXXXX)
trap 'rm -rf "$out"' EXIT
for xml in protocols/*.xml; do
  name=$(basename "$xml" .xml)
  wayland-scanner client-header "$xml" "$out/$name-client.h"
  wayland-scanner private-code "$xml" "$out/$name-protocol.c"
done
if [ "${1:-}" = --check ]; then
  for f in "$out"/*; do
    case "$f" in *.h) dest=include/$(basename "$f") ;; *) dest=$(basename "$f") ;; esac
    cmp -s "$f" "$dest" || { echo "wayland-protocols: $dest is not what its XML makes; run scripts/dev/wayland-protocols.sh" >&2; exit 1; }
  done
  echo "wayland-protocols: the generated code matches the XML"
  exit 0
fi
for f in "$out"/*; do
  case "$f" in *.h) install -m 0644 "$f" include/ ;; *) install -m 0644 "$f" . ;; esac
done
echo "wayland-protocols: wrote $(ls "$out" | tr '\n' ' ')"
