#!/usr/bin/env bash
# Fails when a test, script, fuzz target or CI step names a file outside the repository: a fresh
# clone has nothing beside it (fixtures live in Tests/*/Fixtures). Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/../.."
found=$(grep -rnE '\.\./shared|shared/testdata|deletingLastPathComponent\(\)\.deletingLastPathComponent\(\)\.deletingLastPathComponent\(\)\.deletingLastPathComponent\(\)' \
  Tests scripts Benchmarks .ci Fuzz Package.swift --include='*.swift' --include='*.sh' --include='*.py' --include='run' 2>/dev/null \
  | grep -v '^scripts/dev/check-self-contained.sh:' || true)
if [ -n "$found" ]; then
  echo "check-self-contained: these name files outside the repository (copy what they read into Tests/*/Fixtures):" >&2
  echo "$found" >&2
  exit 1
fi
echo "check-self-contained: every test and script reads from the repository alone"
