#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test.
# Unit and component tests run everywhere; tests that need root (network namespaces, a real
# avahi-daemon) report themselves as skipped, with the reason, when not run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
# Each swift command leaves a TemporaryDirectory.* behind in $TMPDIR (swift-driver's
# -print-target-info): they go in a directory of this run's own, removed at the end.
SCRATCH=$(mktemp -d /tmp/handoffd-test.XXXXXX)
package=""
# The package's build still running (below) is stopped by its process group, then the directory goes.
trap '[ -z "$package" ] || kill -TERM -- "-$package" 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
export TMPDIR=$SCRATCH

# took STEP: how long STEP took (CI keeps to 35 minutes on a 2-core machine: where they go).
lap=$SECONDS
took() { echo "test.sh: $1 took $((SECONDS - lap)) s"; lap=$SECONDS; }
scripts/install-deps.sh
swift build
swift build --build-tests
took "installing and building"
if [ $# -gt 0 ]; then
  swift test --skip-build --disable-xctest "$@"
  exit
fi
# Unit and component tests first, then each end-to-end suite on its own: they wait for real
# daemons in blocking calls, which would take Swift concurrency threads from other suites, and
# their real daemons must not compete for this machine's two cores with another suite's.
swift test --skip-build --disable-xctest --skip EndToEndTests
node --test browser/tests/
took "unit and component tests"
# As root, the Debian package (its release build: ten minutes of both cores on a 2-core machine;
# then a minute of xz and lintian) is made beside the end-to-end suites, which mostly wait on the
# network, at the lowest priority: a test's process that wakes takes the core from it at once. It
# uses only the release build's directory (.build/dist), not the one a `swift test` locks. In a
# process group of its own (setsid), so that the trap can stop all of it.
if [ "$(id -u)" -eq 0 ]; then
  setsid nice -n 19 scripts/dev/package-deb.sh >"$SCRATCH/package.log" 2>&1 &
  package=$!
fi
suites="AvahiDiscoveryEndToEndTests HawkNotesEndToEndTests DesktopEndToEndTests ExampleAppEndToEndTests BrowserEndToEndTests ClipboardEndToEndTests X11SelectionEndToEndTests WaylandDataControlEndToEndTests ContinuationEndToEndTests StreamEndToEndTests LifecycleEndToEndTests SceneEndToEndTests PairingEndToEndTests PresenceEndToEndTests PrivacyEndToEndTests WideAreaEndToEndTests ZoneOwnershipEndToEndTests ConformanceEndToEndTests"
unlisted=$(swift test list --skip-build 2>/dev/null | grep -o '\.[A-Za-z]*EndToEndTests/' | tr -d './' | sort -u | grep -vxF -f <(tr ' ' '\n' <<<"$suites") || true)
[ -z "$unlisted" ] || { echo "test.sh: end-to-end suites missing from its list: $unlisted" >&2; exit 1; }
for suite in $suites; do
  swift test --skip-build --disable-xctest --filter "$suite"
  took "$suite"
done
# The README's first command, whose every step checks what it shows (root: test hosts).
if [ "$(id -u)" -eq 0 ]; then
  scripts/demo.sh > "$SCRATCH/demo.log" 2>&1 || { cat "$SCRATCH/demo.log" >&2; echo "test.sh: scripts/demo.sh failed" >&2; exit 1; }
  took "demo.sh"
fi
# handoffd under a real systemd, from its Debian package (root: it boots a container; without root
# the suite says it is skipped and why).
if [ "$(id -u)" -eq 0 ]; then
  wait "$package" || { cat "$SCRATCH/package.log" >&2; echo "test.sh: scripts/dev/package-deb.sh failed" >&2; exit 1; }
  package=""
  cat "$SCRATCH/package.log"
  took "the rest of the package (release build, xz, lintian)"
fi
Tests/Rigs/test-systemd.sh
took "systemd"
# The rigs of many machines, a bad network, a long day and a stranger timing the advert, in their short versions (each fails on
# a broken promise; the long ones are in the README's "Benchmarks"). They use the release build
# the package was made from, and need root (network namespaces).
if [ "$(id -u)" -eq 0 ]; then
  SCALE_IDLE_SECONDS=10 Tests/Rigs/scale.sh 10 2
  took "scale.sh 10"
  Tests/Rigs/chaos.sh --short
  took "chaos.sh --short"
  Tests/Rigs/soak.sh 2m
  took "soak.sh 2m"
  # What a stranger can time of the advert, with rewrites every 2 s on average.
  Tests/Rigs/advert-timing.sh 60s 2 12
  took "advert-timing.sh 60s"
else
  echo "test.sh: scale.sh, chaos.sh, soak.sh and advert-timing.sh skipped: they need root (network namespaces)"
fi
