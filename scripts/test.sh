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
if [ $# -gt 0 ]; then
  exec swift test --skip-build --disable-xctest "$@"
fi
# Unit and component tests first, then the end-to-end tests on their own: those wait for real
# daemons in blocking calls, which would take Swift concurrency threads from the other suites.
swift test --skip-build --disable-xctest --skip EndToEndTests
swift test --skip-build --disable-xctest --filter EndToEndTests
