#!/usr/bin/env bash
# handoffd under a real systemd: builds a minimal Debian 12 tree with mmdebstrap, boots it with
# systemd-nspawn (--private-network: only the container's own loopback, nothing reaches this
# machine's network) inside a cgroup subtree of its own, installs the .deb there and checks the
# system unit, the user unit, the journal and the package's maintainer scripts.
#
#   Tests/Rigs/test-systemd.sh [DEB]        (root; DEB defaults to the one scripts/dev/package-deb.sh builds)
#
# Prints one line per check and a closing "N passed, N failed". Without root, systemd-nspawn or
# mmdebstrap it says so and exits 0 as skipped (test.sh reports it). Everything it starts is ended
# by PID, and its tree and cgroups are removed, on any exit.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

skip() { echo "systemd suite: skipped: $*"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "needs root (systemd-nspawn, cgroups); run scripts/test.sh as root"
for tool in mmdebstrap systemd-nspawn nsenter; do command -v "$tool" >/dev/null || skip "$tool is missing; run scripts/install-deps.sh"; done
[ -d /sys/fs/cgroup/unified ] || [ -f /sys/fs/cgroup/cgroup.controllers ] || skip "no cgroup hierarchy for systemd-nspawn"

deb=${1:-$(scripts/dev/package-deb.sh --path)}
[ -f "$deb" ] || { echo "systemd suite: no package at $deb; run scripts/dev/package-deb.sh first" >&2; exit 1; }

name="hsd$$"
tree=$(mktemp -d /var/tmp/handoffd-systemd-XXXXXX)
nspawn_pid=""
cgroups=()
passed=0 failed=0
started=$(date +%s)

cleanup() {
  if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
    kill -TERM "$nspawn_pid" 2>/dev/null  # powers the container off
    for _ in $(seq 1 100); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$nspawn_pid" 2>/dev/null
    wait "$nspawn_pid" 2>/dev/null
  fi
  for cg in "${cgroups[@]}"; do
    # Child cgroups the container made, deepest first, then ours.
    find "$cg" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
    rmdir "$cg" 2>/dev/null
  done
  rm -rf "$tree" "$tree.console" "$tree.log"
}
trap cleanup EXIT
trap "exit 143" TERM INT  # so that a stopped run still ends the container and removes its tree

# Every check and every command in the container has a deadline: a tool that never returns
# (avahi-browse -t can wait for an "all for now" that never comes: avahi issues 264 and 444) is a
# failed check that says what was running, not a suite that hangs until CI gives up.
CHECK_LIMIT=${CHECK_LIMIT:-120}
check() {  # check NAME COMMAND...: one line, counted; COMMAND is a program (bash -c ...), not a function
  local what=$1; shift
  local out rc
  out=$(timeout -k 10 "$CHECK_LIMIT" "$@" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1)); echo "ok     $what${out:+ ($out)}"
  else
    failed=$((failed + 1)); echo "FAILED $what"; printf '%s\n' "$out" | sed 's/^/         /' | tail -n 15
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo "         no answer within $CHECK_LIMIT s; the container then:"; diagnose | sed 's/^/         /'; fi
  fi
}

# Inside the container: systemd's tools through nsenter into all of PID 1's namespaces.
export IN_CT_LIMIT=${IN_CT_LIMIT:-90}  # exported: the checks (bash -c) run in_ct too
in_ct() { timeout -k 5 "$IN_CT_LIMIT" nsenter -t "$ct" -a -- "$@"; }
diagnose() {  # what the container was doing: its processes, systemd's jobs, the journal's end
  timeout 20 nsenter -t "$ct" -a -- ps -eo pid,etime,stat,wchan:20,args --forest | cut -c1-160
  timeout 20 nsenter -t "$ct" -a -- systemctl list-jobs --no-pager
  timeout 20 nsenter -t "$ct" -a -- journalctl -n 25 -o short-monotonic --no-pager | cut -c1-160
}
as_alice() { in_ct runuser -u alice -- env XDG_RUNTIME_DIR="/run/user/$alice_uid" "$@"; }

waitfor() {  # waitfor SECONDS COMMAND...: until it succeeds or the deadline
  local limit=$1; shift
  local deadline=$(( $(date +%s%N) + limit * 1000000000 ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s%N)" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

# 1. The tree: Debian 12 with systemd, D-Bus, Avahi and what handoffd links (no network inside).
echo "building a Debian 12 tree with mmdebstrap ..."
t0=$(date +%s)
# What the package depends on and recommends comes from the .deb itself, so that a new library
# (libyaml-0-2 when the configuration moved to libyaml) needs no edit here.
needs=$(dpkg-deb -f "$deb" Depends Recommends | sed 's/^[A-Za-z]*: //' | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/ //g' | grep . | paste -sd, -)
if ! mmdebstrap --variant=minbase --include="systemd,systemd-sysv,libpam-systemd,dbus,dbus-user-session,avahi-utils,iproute2,procps,util-linux,passwd,adduser,$needs" \
     --customize-hook='echo handoffd-test > "$1/etc/hostname"' bookworm "$tree" >"$tree.log" 2>&1; then
  tail -n 20 "$tree.log" >&2; rm -f "$tree.log"
  echo "systemd suite: mmdebstrap failed"; echo "0 passed, 1 failed"; exit 1
fi
rm -f "$tree.log"
echo "tree ready in $(( $(date +%s) - t0 )) s"
cp "$deb" "$tree/root/handoffd.deb"

# 2. Boot it from a subshell that first moved itself into cgroups of its own (this machine's
# PID 1 is not systemd: without the subtree nspawn writes /payload and /supervisor at the top).
for hierarchy in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified; do
  [ -d "$hierarchy" ] || continue
  mkdir -p "$hierarchy/$name" && cgroups+=("$hierarchy/$name")
done
(
  for cg in "${cgroups[@]}"; do echo $BASHPID > "$cg/cgroup.procs"; done
  exec systemd-nspawn -D "$tree" --private-network --register=no --keep-unit --machine="$name" --console=pipe -b
) >"$tree.console" 2>&1 </dev/null &
nspawn_pid=$!

container_pid1() {  # the process whose PID in its own namespace is 1, below nspawn
  local p
  for p in $(ps -o pid= --ppid "$nspawn_pid") $(for c in $(ps -o pid= --ppid "$nspawn_pid"); do ps -o pid= --ppid "$c"; done); do
    [ "$(awk '/^NSpid/ {print $NF}' "/proc/$p/status" 2>/dev/null)" = 1 ] && { echo "$p"; return 0; }
  done
  return 1
}
ct=""
waitfor 60 container_pid1 && ct=$(container_pid1)
[ -n "$ct" ] || { echo "systemd suite: the container did not start"; tail -n 20 "$tree.console"; echo "0 passed, 1 failed"; exit 1; }
booted() { state=$(in_ct systemctl is-system-running 2>/dev/null); [ "$state" = running ] || [ "$state" = degraded ]; }
waitfor 90 booted || { echo "systemd suite: the container did not finish booting"; in_ct systemctl --failed --no-pager; echo "0 passed, 1 failed"; exit 1; }
echo "booted systemd $(in_ct systemctl --version | head -n 1 | cut -d' ' -f2) as container PID 1 (host PID $ct)"
# Avahi needs a multicast interface: the container's own loopback, nothing else exists in it.
in_ct ip link set lo multicast on
in_ct systemctl restart avahi-daemon
waitfor 10 in_ct systemctl is-active avahi-daemon

# 3. The package.
check "dpkg -i installs, the maintainer script creates the system user" \
  bash -c "nsenter -t $ct -a -- dpkg -i /root/handoffd.deb >/dev/null && nsenter -t $ct -a -- getent passwd handoffd | cut -d: -f1,6"

# The browser extension where each browser finds it with no download: the host's manifests name
# the installed host and our extension alone; the host serves our extension's ids and no other.
check "the browser extension: host manifests, the extension for both browsers, the host's caller check" bash -c '
  inside() { nsenter -t '"$ct"' -a -- "$@"; }
  host=/usr/libexec/handoffd/handoff-browser-host
  for m in /etc/chromium/native-messaging-hosts /etc/opt/chrome/native-messaging-hosts /usr/lib/mozilla/native-messaging-hosts; do
    inside grep -q "\"path\": \"$host\"" $m/org.handoffd.browser.json || { echo "$m: no manifest naming $host"; exit 1; }
  done
  inside grep -q "chrome-extension://dpckoceeejgnaeeflonbbjoeddmeknea/" /etc/chromium/native-messaging-hosts/org.handoffd.browser.json || exit 1
  inside grep -q "\"allowed_extensions\": \[\"browser@handoffd.org\"\]" /usr/lib/mozilla/native-messaging-hosts/org.handoffd.browser.json || exit 1
  inside test -f /usr/share/chromium/extensions/handoffd/manifest.json || { echo "no extension for chromium"; exit 1; }
  inside grep -q browser@handoffd.org "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/browser@handoffd.org/manifest.json" || { echo "no extension for firefox"; exit 1; }
  inside $host chrome-extension://dpckoceeejgnaeeflonbbjoeddmeknea/ </dev/null || { echo "the host did not end when its stdin closed"; exit 1; }
  ! inside $host chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/ </dev/null >/dev/null 2>&1 || { echo "the host served another extension"; exit 1; }
  echo "chromium, chrome, firefox"'

# The clipboard agent: its user unit enabled for every user's graphical session by the package,
# the autostart entry for sessions without systemd, and the agent saying why it has no display
# (a container has none) rather than failing.
check "the clipboard agent: user unit enabled globally, autostart entry, no display said plainly" bash -c '
  inside() { nsenter -t '"$ct"' -a -- "$@"; }
  inside test -L /etc/systemd/user/graphical-session.target.wants/handoff-clipboard-agent.service || { echo "not enabled for the users"; exit 1; }
  inside grep -q "^X-systemd-skip=true" /etc/xdg/autostart/handoff-clipboard-agent.desktop || { echo "no autostart entry"; exit 1; }
  out=$(inside env -u DISPLAY -u WAYLAND_DISPLAY XDG_RUNTIME_DIR=/tmp timeout 2 /usr/libexec/handoffd/handoff-clipboard-agent 2>&1 || true)
  echo "$out" | grep -q "not a graphical session" || { echo "the agent said: $out"; exit 1; }
  echo "graphical-session.target.wants, autostart"'

# 4. The system unit.
start_ms=$(date +%s%3N)
in_ct systemctl enable --now handoffd >/dev/null 2>&1
advertising() { [ "$(in_ct systemctl show -P StatusText handoffd)" = advertising ]; }
check "system unit: active, READY and status 'advertising' within 2 s" bash -c '
  if '"$(declare -f waitfor in_ct advertising); ct=$ct"'; waitfor 2 advertising; then
    echo "$(( $(date +%s%3N) - '"$start_ms"' )) ms after start"; else
    nsenter -t '"$ct"' -a -- systemctl status handoffd --no-pager | tail -n 8; exit 1; fi'
check "handoffctl status (root): avahi up" bash -c "nsenter -t $ct -a -- handoffctl status | grep -E '^avahi +up'"
check "handoffctl --socket before the command" bash -c "nsenter -t $ct -a -- handoffctl --socket /run/handoffd/control.sock status >/dev/null"
# browsed BROWSE: one avahi-browse -t (about a second), given 4 s; published and withdrawn each
# need an answer, so that a browse that did not end is neither (waitfor tries again).
browsed() { in_ct timeout -k 2 4 avahi-browse -p -t -r _handoff._tcp 2>/dev/null; }
published() { local out; out=$(browsed) && grep -q '^=;lo;' <<<"$out"; }
withdrawn() { local out; out=$(browsed) && ! grep -q '^=;lo;' <<<"$out"; }
check "the advert is published (avahi-browse in the container)" bash -c '
  '"$(declare -f waitfor in_ct browsed published); ct=$ct"'
  waitfor 10 published'
check "the daemon runs as the static user 'handoffd'" bash -c "
  u=\$(nsenter -t $ct -a -- ps -o user= -p \$(nsenter -t $ct -a -- systemctl show -P MainPID handoffd)); [ \"\$u\" = handoffd ] && echo \$u"
check "errors reach the journal at their priority (journalctl -p err), with no second timestamp" bash -c "
  nsenter -t $ct -a -- cp /etc/handoffd/handoffd.yaml /root/handoffd.yaml
  echo 'peer_port: many' | nsenter -t $ct -a -- tee -a /etc/handoffd/handoffd.yaml >/dev/null
  nsenter -t $ct -a -- systemctl restart handoffd 2>/dev/null
  for i in \$(seq 1 100); do nsenter -t $ct -a -- journalctl -u handoffd -p err -o cat --no-pager | grep -q 'peer_port' && break; sleep 0.1; done
  err=\$(nsenter -t $ct -a -- journalctl -u handoffd -p err -o cat --no-pager | grep 'peer_port' | head -n 1)
  nsenter -t $ct -a -- cp /root/handoffd.yaml /etc/handoffd/handoffd.yaml
  nsenter -t $ct -a -- systemctl reset-failed handoffd; nsenter -t $ct -a -- systemctl restart handoffd
  [ -n \"\$err\" ] || { echo 'no error in journalctl -p err'; exit 1; }
  echo \"\$err\" | grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' && { echo \"a second timestamp: \$err\"; exit 1; }
  echo \"\$err\" | cut -c1-100"
waitfor 10 advertising
check "avahi-daemon stopped and started: logged once, with the cause, and again when it is back; thread-priority lines only from libdispatch's manager thread" bash -c "
  nsenter -t $ct -a -- systemctl stop avahi-daemon.socket avahi-daemon >/dev/null 2>&1
  for i in \$(seq 1 100); do nsenter -t $ct -a -- journalctl -u handoffd -p warning -o cat --no-pager | grep -q 'lost avahi-daemon' && break; sleep 0.1; done
  nsenter -t $ct -a -- systemctl start avahi-daemon >/dev/null
  for i in \$(seq 1 100); do [ \$(nsenter -t $ct -a -- journalctl -u handoffd -o cat --no-pager | grep -c 'avahi-daemon reachable') -ge 2 ] && break; sleep 0.1; done
  log=\$(nsenter -t $ct -a -- journalctl -u handoffd -o cat --no-pager)
  [ \$(echo \"\$log\" | grep -c 'lost avahi-daemon') -eq 1 ] || { echo 'the loss was not logged exactly once'; exit 1; }
  echo \"\$log\" | grep 'lost avahi-daemon' | grep -q 'avahi.error=' || { echo 'no cause'; exit 1; }
  [ \$(echo \"\$log\" | grep -c 'avahi-daemon reachable') -ge 2 ] || { echo 'the return was not logged'; exit 1; }
  # libdispatch renices its event manager thread to -4 once per process: LimitNICE=-4 allows it
  # where the manager can raise RLIMIT_NICE (a booted systemd can; this container's PID 1 cannot
  # when the machine's root lacks CAP_SYS_RESOURCE). Every other worker thread must be silent.
  starts=\$(echo \"\$log\" | grep -c '^Starting handoffd.service')
  lines=\$(echo \"\$log\" | grep -c 'thread priority')
  allowed=\$starts; [ \"\$(nsenter -t $ct -a -- awk '/Max nice/ {print \$5}' /proc/1/limits)\" -ge 24 ] && allowed=0
  [ \$lines -le \$allowed ] || { echo \"\$lines thread-priority lines for \$starts starts (allowed \$allowed)\"; exit 1; }
  echo \"thread-priority lines: \$lines for \$starts starts (allowed \$allowed)\""
waitfor 10 advertising
check "SIGKILL: systemd restarts it" bash -c "
  old=\$(nsenter -t $ct -a -- systemctl show -P MainPID handoffd)
  nsenter -t $ct -a -- systemctl kill -s KILL handoffd
  for i in \$(seq 1 100); do
    new=\$(nsenter -t $ct -a -- systemctl show -P MainPID handoffd)
    [ \"\$new\" != 0 ] && [ \"\$new\" != \"\$old\" ] && nsenter -t $ct -a -- systemctl is-active -q handoffd && { echo \"pid \$old -> \$new\"; exit 0; }
    sleep 0.1
  done; exit 1"
check "the watchdog is fed: alive after 2 x WatchdogSec (3 s for the test)" bash -c "
  nsenter -t $ct -a -- mkdir -p /run/systemd/system/handoffd.service.d
  printf '[Service]\nWatchdogSec=3\n' | nsenter -t $ct -a -- tee /run/systemd/system/handoffd.service.d/watchdog.conf >/dev/null
  nsenter -t $ct -a -- systemctl daemon-reload; nsenter -t $ct -a -- systemctl restart handoffd
  pid=\$(nsenter -t $ct -a -- systemctl show -P MainPID handoffd); sleep 7
  [ \"\$(nsenter -t $ct -a -- systemctl show -P MainPID handoffd)\" = \"\$pid\" ] && [ \"\$(nsenter -t $ct -a -- systemctl show -P NRestarts handoffd)\" = 0 ] || exit 1
  nsenter -t $ct -a -- rm -r /run/systemd/system/handoffd.service.d; nsenter -t $ct -a -- systemctl daemon-reload
  nsenter -t $ct -a -- systemctl restart handoffd"
waitfor 10 advertising
check "online exposure of the system unit is at most 1.5" bash -c "
  line=\$(nsenter -t $ct -a -- systemd-analyze security handoffd.service --no-pager | grep 'Overall exposure'); echo \"\$line\"
  awk '{for(i=1;i<=NF;i++) if(\$i ~ /^[0-9.]+\$/) {print \$i; exit}}' <<<\"\$line\" | awk '{exit !(\$1 <= 1.5)}'"
check "a port in use is one clear error naming the port and the setting" bash -c "
  out=\$(nsenter -t $ct -a -- handoffd --peer-port 7340 --state-directory /tmp/second --runtime-directory /tmp/second-run 2>&1); rc=\$?
  [ \$rc -eq 1 ] && echo \"\$out\" | grep -q 'peer port 7340 is already in use' && echo \"\$out\" | grep -q 'peer_port'"

# 5. The user unit: a normal user, no configuration, lingering, beside the system unit.
in_ct useradd -m -s /bin/sh alice
alice_uid=$(in_ct id -u alice)
in_ct loginctl enable-linger alice
user_manager() { in_ct systemctl is-active -q "user@$alice_uid.service"; }
waitfor 30 user_manager
user_advertising() { [ "$(as_alice systemctl --user show -P StatusText handoffd)" = advertising ]; }
as_alice systemctl --user enable --now handoffd >/dev/null 2>&1
check "user unit: runs with no configuration, beside the system unit (another port), avahi up" bash -c '
  '"$(declare -f waitfor in_ct as_alice user_advertising); ct=$ct; alice_uid=$alice_uid"'
  waitfor 10 user_advertising || { as_alice systemctl --user status handoffd --no-pager | tail -n 8; exit 1; }
  out=$(as_alice handoffctl --socket /run/user/'"$alice_uid"'/handoffd/control.sock status) || exit 1
  echo "$out" | grep -qE "^avahi +up" || { echo "$out"; exit 1; }
  port=$(echo "$out" | awk "/^port/ {print \$2}"); [ -n "$port" ] && [ "$port" != 7340 ] && echo "port $port"'
check "user unit: state in ~/.local/state/handoffd, not beside the configuration" bash -c "
  nsenter -t $ct -a -- test -f /home/alice/.local/state/handoffd/identity.key &&
  ! nsenter -t $ct -a -- test -e /home/alice/.config/handoffd/identity.key"
check "user unit: the sandbox applies (systemd-analyze --user security at most 3.0)" bash -c '
  '"$(declare -f in_ct as_alice); ct=$ct; alice_uid=$alice_uid"'
  line=$(as_alice systemd-analyze --user security handoffd.service --no-pager | grep "Overall exposure"); echo "$line"
  awk "{for(i=1;i<=NF;i++) if(\$i ~ /^[0-9.]+\$/) {print \$i; exit}}" <<<"$line" | awk "{exit !(\$1 <= 3.0)}"'
check "user unit: its D-Bus API on alice's session bus (busctl --user call ... Status)" bash -c '
  '"$(declare -f in_ct as_alice); ct=$ct; alice_uid=$alice_uid"'
  out=$(as_alice busctl --user call org.handoffd.Handoff /org/handoffd/Handoff org.handoffd.Handoff1 Status) || exit 1
  echo "$out" | grep -q "\"avahi\" s \"up\"" || { echo "$out" | head -c 400; exit 1; }'
user_stopped() { ! as_alice systemctl --user is-active -q handoffd; }
as_alice systemctl --user stop handoffd >/dev/null 2>&1
check "D-Bus activation: a call to org.handoffd.Handoff starts the stopped user unit (SystemdService=)" bash -c '
  '"$(declare -f waitfor in_ct as_alice user_stopped); ct=$ct; alice_uid=$alice_uid"'
  waitfor 10 user_stopped || { echo "the unit did not stop"; exit 1; }
  out=$(as_alice busctl --user --timeout=20 call org.handoffd.Handoff /org/handoffd/Handoff org.handoffd.Handoff1 ListActivities) || exit 1
  [ "$out" = "aa{sv} 0" ] || { echo "$out"; exit 1; }
  as_alice systemctl --user is-active -q handoffd || { echo "the unit is not running"; exit 1; }'
as_alice systemctl --user disable --now handoffd >/dev/null 2>&1

check "the system bus stopped and started: one error with the cause and the retry (journalctl -p err), and a line when it is back" bash -c "
  nsenter -t $ct -a -- systemctl stop avahi-daemon.socket avahi-daemon dbus.socket dbus >/dev/null 2>&1
  for i in \$(seq 1 100); do nsenter -t $ct -a -- journalctl -u handoffd -p err -o cat --no-pager | grep -q 'discovery unavailable' && break; sleep 0.1; done
  err=\$(nsenter -t $ct -a -- journalctl -u handoffd -p err -o cat --no-pager | grep 'discovery unavailable')
  nsenter -t $ct -a -- systemctl start dbus.socket dbus avahi-daemon >/dev/null
  for i in \$(seq 1 150); do nsenter -t $ct -a -- journalctl -u handoffd -o cat --no-pager | grep -q 'discovery available again' && break; sleep 0.1; done
  [ \$(echo \"\$err\" | grep -c .) -eq 1 ] || { echo \"expected one error line, got: \$err\"; exit 1; }
  echo \"\$err\" | grep -q 'retry' || { echo \"no retry in: \$err\"; exit 1; }
  nsenter -t $ct -a -- journalctl -u handoffd -o cat --no-pager | grep -q 'discovery available again' || { echo 'the return was not logged'; exit 1; }
  echo \"\$err\" | cut -c1-110"
waitfor 10 advertising

# 6. Stop, removal, purge.
check "systemctl stop: clean within 2 s, and the advert is withdrawn" bash -c '
  '"$(declare -f waitfor in_ct browsed withdrawn); ct=$ct"'
  t0=$(date +%s%3N); in_ct systemctl stop handoffd; t1=$(date +%s%3N)
  [ "$(in_ct systemctl show -P Result handoffd)" = success ] || exit 1
  [ $((t1 - t0)) -le 2000 ] || { echo "took $((t1 - t0)) ms"; exit 1; }
  waitfor 10 withdrawn || { echo "still advertised (or no browse ended)"; exit 1; }
  echo "$((t1 - t0)) ms"'
in_ct systemctl start handoffd
check "removing the package stops the service" bash -c "
  nsenter -t $ct -a -- dpkg -r handoffd >/dev/null && ! nsenter -t $ct -a -- systemctl is-active -q handoffd &&
  nsenter -t $ct -a -- test -f /etc/handoffd/handoffd.yaml"
check "purging removes its state" bash -c "
  nsenter -t $ct -a -- test -d /var/lib/private/handoffd && nsenter -t $ct -a -- dpkg -P handoffd >/dev/null &&
  ! nsenter -t $ct -a -- test -e /var/lib/private/handoffd && ! nsenter -t $ct -a -- test -e /etc/handoffd"

echo "systemd suite took $(( $(date +%s) - started )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
