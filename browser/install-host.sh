#!/usr/bin/env bash
# Tells browsers where handoffd's native messaging host is, so that the extension
# (browser/extension) can start it. Each manifest names our extension alone.
#   browser/install-host.sh [HOST]            this user: ~/.config/chromium/NativeMessagingHosts,
#                                             ~/.config/google-chrome/NativeMessagingHosts and
#                                             ~/.mozilla/native-messaging-hosts (HOST defaults to
#                                             this tree's debug build)
#   browser/install-host.sh --system HOST     every user (as root, or with DESTDIR for packaging):
#                                             /etc/chromium/native-messaging-hosts,
#                                             /etc/opt/chrome/native-messaging-hosts and
#                                             /usr/lib/mozilla/native-messaging-hosts; HOST is the
#                                             path the host has when installed
# Browsers in Flatpak or snap cannot start a host this way (docs/BROWSER.md).
set -euo pipefail
cd "$(dirname "$0")/.."
chromium_id=dpckoceeejgnaeeflonbbjoeddmeknea
gecko_id=browser@handoffd.org
name=org.handoffd.browser
if [ "${1:-}" = --system ]; then
  host=${2:?"install-host: --system needs the host's installed path"}
  D=${DESTDIR:-}
  chromium_dirs=("$D/etc/chromium/native-messaging-hosts" "$D/etc/opt/chrome/native-messaging-hosts")
  firefox_dir="$D/usr/lib/mozilla/native-messaging-hosts"
else
  host=${1:-$PWD/.build/debug/handoff-browser-host}
  [ -x "$host" ] || { echo "install-host: $host is not an executable: build it (swift build --product handoff-browser-host) or give its path" >&2; exit 1; }
  host=$(cd "$(dirname "$host")" && pwd)/$(basename "$host")
  chromium_dirs=("$HOME/.config/chromium/NativeMessagingHosts" "$HOME/.config/google-chrome/NativeMessagingHosts")
  firefox_dir="$HOME/.mozilla/native-messaging-hosts"
fi
manifest() {  # KEY VALUE
  printf '{\n  "name": "%s",\n  "description": "handoffd: continue browser tabs on your other machines",\n  "path": "%s",\n  "type": "stdio",\n  "%s": ["%s"]\n}\n' "$name" "$host" "$1" "$2"
}
# Chromium and Chrome want allowed_origins, Firefox allowed_extensions (and rejects the other key).
for dir in "${chromium_dirs[@]}"; do
  install -d -m 0755 "$dir"
  manifest allowed_origins "chrome-extension://$chromium_id/" > "$dir/$name.json"
  chmod 0644 "$dir/$name.json"
  echo "install-host: $dir/$name.json"
done
install -d -m 0755 "$firefox_dir"
manifest allowed_extensions "$gecko_id" > "$firefox_dir/$name.json"
chmod 0644 "$firefox_dir/$name.json"
echo "install-host: $firefox_dir/$name.json"
