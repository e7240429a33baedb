#!/usr/bin/env bash
# Tells this user's browsers where handoffd's native messaging host is, so that the extension
# (browser/extension) can start it:
#   browser/install-host.sh [HOST]     HOST: the host's path (default: this tree's debug build)
# writes org.handoffd.browser.json into ~/.config/chromium/NativeMessagingHosts,
# ~/.config/google-chrome/NativeMessagingHosts and ~/.mozilla/native-messaging-hosts. Each names
# our extension alone. Browsers in Flatpak or snap cannot start a host this way.
set -euo pipefail
cd "$(dirname "$0")/.."
host=${1:-$PWD/.build/debug/handoff-browser-host}
[ -x "$host" ] || { echo "install-host: $host is not an executable: build it (swift build --product handoff-browser-host) or give its path" >&2; exit 1; }
host=$(cd "$(dirname "$host")" && pwd)/$(basename "$host")
chromium_id=dpckoceeejgnaeeflonbbjoeddmeknea
gecko_id=browser@handoffd.org
manifest() {  # KEY VALUE
  printf '{\n  "name": "org.handoffd.browser",\n  "description": "handoffd: continue browser tabs on your other machines",\n  "path": "%s",\n  "type": "stdio",\n  "%s": ["%s"]\n}\n' "$host" "$1" "$2"
}
for dir in "$HOME/.config/chromium/NativeMessagingHosts" "$HOME/.config/google-chrome/NativeMessagingHosts"; do
  mkdir -p "$dir"
  manifest allowed_origins "chrome-extension://$chromium_id/" > "$dir/org.handoffd.browser.json"
  echo "install-host: $dir/org.handoffd.browser.json"
done
dir="$HOME/.mozilla/native-messaging-hosts"
mkdir -p "$dir"
manifest allowed_extensions "$gecko_id" > "$dir/org.handoffd.browser.json"
echo "install-host: $dir/org.handoffd.browser.json"
