#!/usr/bin/env bash
# The code's format (.swift-format, with the toolchain's swift-format):
#   scripts/dev/format.sh          formats every Swift file in place
#   scripts/dev/format.sh --check  fails, listing what differs, if any file is not formatted
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
paths=(Package.swift Sources Tests Fuzz Benchmarks/Package.swift Benchmarks/Sources Benchmarks/Benchmarks)
if [ "${1:-}" = --check ]; then
  exec swift format lint --strict --recursive --parallel "${paths[@]}"
fi
swift format format --in-place --recursive --parallel "${paths[@]}"
