#!/usr/bin/env bash
# The browser extension's figures between two paired test hosts (root), release build, real
# browsers (Debian's chromium on alpha, firefox-esr on beta, headless):
#   - a tab activated in alpha's Chromium -> listed on beta (p50 / p90; includes the extension's
#     25 ms debounce);
#   - `continue` on beta -> beta's Firefox shows the URL;
#   - the native host's RSS and CPU while a person switches tabs 10 times a second.
#   Benchmarks/scripts/bench-browser.sh [N] [SECONDS]      (defaults 40, 60)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
N=${1:-40}
SECONDS_SWITCHING=${2:-60}
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl hawknotes handoff-browser-host
SET=wbench
WORK=$(mktemp -d /tmp/handoffd-bench.XXXXXX)
trap end_daemons_and_hosts EXIT
paired_hosts
EXT=$REPO/browser/extension
# Alpha: pages on its loopback, Chromium with the extension and this build's host.
mkdir -p "$WORK/www" "$WORK/chromium/NativeMessagingHosts" "$WORK/chromium/tmp" "$WORK/firefox/profile"
for i in $(seq 0 $((N + 10))); do echo "<!doctype html><title>Page $i</title><p>$i" > "$WORK/www/p$i.html"; done
Tests/Rigs/testhosts.sh exec ${SET}1 /usr/bin/python3 -m http.server 8000 --bind 127.0.0.1 --directory "$WORK/www" >/dev/null 2>&1 &
cat > "$WORK/chromium/NativeMessagingHosts/org.handoffd.browser.json" <<JSON
{"name": "org.handoffd.browser", "description": "handoffd", "path": "$BIN/handoff-browser-host", "type": "stdio",
 "allowed_origins": ["chrome-extension://dpckoceeejgnaeeflonbbjoeddmeknea/"]}
JSON
Tests/Rigs/testhosts.sh exec ${SET}1 env HANDOFF_SOCKET="$WORK/alpha/run/control.sock" HOME="$WORK/chromium" TMPDIR="$WORK/chromium/tmp" \
  /usr/lib/chromium/chromium --headless=new --no-sandbox --user-data-dir="$WORK/chromium" --disable-extensions-except="$EXT" \
  --load-extension="$EXT" --remote-debugging-port=9222 --no-first-run --disable-gpu about:blank >/dev/null 2>&1 &
# Beta: Firefox with the extension (installed by the probe over BiDi) and the host's manifest.
HOME="$WORK/firefox" browser/install-host.sh "$BIN/handoff-browser-host" >/dev/null
Tests/Rigs/testhosts.sh exec ${SET}2 env HANDOFF_SOCKET="$WORK/beta/run/control.sock" HOME="$WORK/firefox" MOZ_CRASHREPORTER_DISABLE=1 \
  /usr/lib/firefox-esr/firefox-esr --headless --profile "$WORK/firefox/profile" --no-remote --remote-debugging-port 9223 >/dev/null 2>&1 &
Tests/Rigs/testhosts.sh exec ${SET}1 /usr/bin/python3 "$REPO/Benchmarks/scripts/bench-browser.py" "$WORK" "$SET" "$N" "$SECONDS_SWITCHING" "$EXT" "$BIN/handoff-browser-host"
