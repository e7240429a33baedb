#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test.
# Unit and component tests run everywhere; tests that need root (network namespaces, a real
# avahi-daemon) report themselves as skipped, with the reason, when not run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

scripts/install-deps.sh
swift build
swift build --build-tests
swift test --skip-build --disable-xctest "$@"
