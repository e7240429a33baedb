#!/usr/bin/env bash
# Writes handoffctl's and hawknotes' manual pages into config/man/ (a maintainer tool: run it
# after changing a command, an option or its help; ManualPageTests fails until the pages name
# every command and option). Made as ArgumentParser's GenerateManual plugin makes them, from the
# binaries' --experimental-dump-help (handoffctl's HandoffCommandLine answers it as
# ArgumentParser would). handoffd's page, config/man/handoffd.1, is written by hand: its options
# are read by hand too.
#   scripts/dev/man-pages.sh [DATE]      (default: today, as YYYY-MM-DD)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
DATE=${1:-$(date +%F)}
swift build --product handoffctl
swift build --product hawknotes
swift build --product generate-manual
BIN=$(swift build --show-bin-path)
OUT=$(mktemp -d /tmp/handoffd-man.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
for tool in handoffctl hawknotes; do
  "$BIN/generate-manual" "$BIN/$tool" --date "$DATE" --output-directory "$OUT"
  sed '/^$/d' "$OUT/$tool.1" > "config/man/$tool.1"
  echo "man-pages: config/man/$tool.1"
done
