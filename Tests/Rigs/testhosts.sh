#!/usr/bin/env bash
# Test hosts on one machine: each host is a network namespace joined to a bridge that lives in a
# namespace of its own, plus a mount namespace in which the host has private /run/dbus and
# /run/avahi-daemon, its own dbus-daemon and its own avahi-daemon. Nothing here creates a link,
# address or process in the machine's own network namespace: veth pairs are made inside the
# bridge namespace and their far ends moved straight into the host namespaces.
#
#   testhosts.sh up SET N [routed]   make hosts SET1..SETN (removes an older SET first); routed:
#                                    each host on a subnet of its own, joined by a router namespace
#                                    that forwards unicast only (no multicast crosses it)
#   testhosts.sh readdr HOST N       move HOST's IPv4 address to .N of its subnet while it runs
#   testhosts.sh down SET            remove every process, namespace and file of SET
#   testhosts.sh exec HOST CMD...    run CMD inside HOST's network and mount namespaces
#   testhosts.sh avahi HOST start|stop|kill|restart
#   testhosts.sh dbus HOST start|stop
#   testhosts.sh session HOST start|stop   a session bus in the host at unix:path=/run/dbus/session
#                                    (its private /run/dbus), as a desktop session has
#   testhosts.sh named SET start|stop|kill   (routed sets) BIND 9 in the router namespace: zone
#                                    handoff.test, dynamic updates signed with TSIG key handoff-key
#   testhosts.sh named SET start-owned   the same with a key per machine (machine1-key ..
#                                    machine4-key), each allowed only its own names
#                                    (packaging/handoff-zone-policy.py, BIND's `external` rule)
#   testhosts.sh named SET key [N]   print that key statement (tsig-keygen format); N: machine N's
#   testhosts.sh reflector SET start|stop    (routed sets) avahi-daemon in the router namespace,
#                                    reflecting _handoff._tcp between the subnets
#   testhosts.sh net TARGET loss P|slow RATE|down|heal   a bad wire (TARGET: a host, or a whole
#                                    set): P % of the frames lost at random each way, a token
#                                    bucket of RATE (tc tbf, e.g. 256kbit) each way, every frame
#                                    dropped, or all of it undone. Frames are dropped on the bridge
#                                    (nftables, bridge family), as a wire loses them: the hosts'
#                                    own stacks see nothing. Bridged sets only.
#   testhosts.sh pid HOST            print the host's anchor PID (for nsenter -t PID -m -n)
#   testhosts.sh addr HOST           print the host's IPv4 address
#   testhosts.sh list                sets that exist
#
# SET is a short lowercase name (letters and digits, at most 8). Processes are ended by the PIDs
# recorded here, or by `ip netns pids` of namespaces this script made; never by name.
set -euo pipefail

STATE=/run/handoff-testhosts
die() { echo "testhosts: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (network and mount namespaces)"
for tool in ip nsenter unshare dbus-daemon avahi-daemon; do
  command -v "$tool" >/dev/null || die "$tool is missing; run scripts/install-deps.sh"
done

set_of() { echo "${1%%[0-9]*}"; }
ns_of() { echo "hdt-$1"; }
dir_of() { echo "$STATE/$(set_of "$1")/$1"; }
anchor_of() {
  local f; f="$(dir_of "$1")/anchor.pid"
  [ -f "$f" ] || die "no host $1 (run: testhosts.sh up $(set_of "$1") N)"
  cat "$f"
}
in_host() { local pid; pid=$(anchor_of "$1"); shift; not_ours "$pid"; nsenter -t "$pid" -m -n -- "$@"; }
# not_ours PID: dies unless PID's network namespace is another than this machine's own. A
# named once ran in the machine's own namespace (CI, a WideArea test) through an anchor that
# was not the router's; nothing started through an anchor may ever run here.
not_ours() {
  [ -n "$1" ] || die "no anchor PID to run through"
  [ "$(readlink "/proc/$1/ns/net" 2>/dev/null)" != "$(readlink /proc/self/ns/net)" ] ||
    die "process $1 is in this machine's own network namespace, not a test host's; refusing to run anything through it"
}

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: poll until COMMAND succeeds
  local limit=$1 what=$2; shift 2
  local end=$(( $(date +%s%N) + limit * 1000000000 ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s%N)" -lt "$end" ] || die "timed out after ${limit}s waiting for $what"
    sleep 0.05
  done
}

alive() {  # alive PID: running and not a zombie (daemons are reaped late by PID 1)
  local state
  [ -n "$1" ] || return 1  # an empty PID would read /proc//stat, which is /proc/stat
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

kill_pidfile() {  # kill_pidfile FILE SIGNAL: end the recorded process if it is still ours
  local f=$1 sig=${2:-TERM} pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if [ -n "$pid" ] && alive "$pid"; then
    kill "-$sig" "$pid" 2>/dev/null || true
    local n=0
    while alive "$pid" && [ $n -lt 100 ]; do sleep 0.02; n=$((n + 1)); done
    alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

avahi_conf() {  # avahi_conf HOST: the host's avahi-daemon.conf
  cat <<EOF
[server]
host-name=$1
use-ipv4=yes
use-ipv6=yes
allow-interfaces=eth0
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
[reflector]
[rlimits]
EOF
}

avahi_running() { in_host "$1" avahi-daemon -c; }

avahi_ctl() {
  local host=$1 action=$2 d; d=$(dir_of "$host")
  case "$action" in
    start)
      # Our own record, not `avahi-daemon -c`: that one counts a killed daemon that PID 1 has not
      # reaped yet (a zombie) as running.
      [ -f "$d/avahi.pid" ] && alive "$(cat "$d/avahi.pid")" && return 0
      # A killed daemon leaves its pid file; avahi refuses to start over it.
      in_host "$host" rm -f /run/avahi-daemon/pid
      in_host "$host" avahi-daemon --no-drop-root --no-chroot --no-rlimits -f "$d/avahi-daemon.conf" -D \
        </dev/null >>"$d/avahi.log" 2>&1
      wait_for 10 "avahi-daemon on $host" avahi_running "$host"
      in_host "$host" cat /run/avahi-daemon/pid > "$d/avahi.pid"
      ;;
    stop) kill_pidfile "$d/avahi.pid" TERM ;;
    kill) kill_pidfile "$d/avahi.pid" KILL ;;
    restart) avahi_ctl "$host" stop; avahi_ctl "$host" start ;;
    # The host's own address records off (docs/PRIVACY.md): only what clients publish remains.
    no-host-records)
      grep -q '^publish-addresses=no' "$d/avahi-daemon.conf" || sed -i 's/^\[publish\]$/[publish]\npublish-addresses=no/' "$d/avahi-daemon.conf"
      avahi_ctl "$host" restart ;;
    *) die "avahi: start|stop|kill|restart|no-host-records" ;;
  esac
}

dbus_ctl() {
  local host=$1 action=$2 d; d=$(dir_of "$host")
  case "$action" in
    start)
      in_host "$host" rm -f /run/dbus/pid /run/dbus/system_bus_socket
      in_host "$host" dbus-daemon --system --fork --print-pid </dev/null > "$d/dbus.pid" 2>>"$d/dbus.log"
      wait_for 10 "dbus on $host" in_host "$host" test -S /run/dbus/system_bus_socket
      ;;
    stop) kill_pidfile "$d/dbus.pid" TERM; in_host "$host" rm -f /run/dbus/system_bus_socket ;;
    *) die "dbus: start|stop" ;;
  esac
}

SESSION_BUS=unix:path=/run/dbus/session
session_ctl() {
  local host=$1 action=$2 d; d=$(dir_of "$host")
  case "$action" in
    start)
      [ -f "$d/session.pid" ] && alive "$(cat "$d/session.pid")" && return 0
      in_host "$host" rm -f /run/dbus/session
      # The session bus's own configuration, without the standard service directories: a call to
      # a name nobody owns fails at once instead of starting what this machine has installed
      # (a test with no notification server made dbus-daemon start dunst, with no display: it
      # died on a trap in GLib).
      cat > "$d/session.conf" <<'CONF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <!-- dbus-daemon refuses a configuration without one ("needs one or more <listen>
       elements"); the address given on its command line is the one it listens on. -->
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
      in_host "$host" dbus-daemon --config-file="$d/session.conf" --fork --print-pid --address="$SESSION_BUS" </dev/null > "$d/session.pid" 2>>"$d/session.log"
      wait_for 10 "session bus on $host" in_host "$host" test -S /run/dbus/session
      ;;
    stop) kill_pidfile "$d/session.pid" TERM; in_host "$host" rm -f /run/dbus/session ;;
    *) die "session: start|stop" ;;
  esac
}

host_up() {  # host_up SET INDEX [routed]
  local set=$1 i=$2 host="$1$2" ns d br addr
  ns=$(ns_of "$host"); br=$(ns_of "$set-br"); d=$(dir_of "$host")
  mkdir -p "$d"
  ip netns add "$ns"
  ip -n "$br" link add "v$i" type veth peer name eth0 netns "$ns"
  ip -n "$ns" link set lo up
  if [ "${3:-}" = routed ]; then
    # Subnet 10.(220+i).S.0/24: the router is .254, the host .1.
    local net="10.$((220 + i)).$(set_number "$set")"
    ip -n "$br" addr add "$net.254/24" dev "v$i"
    ip -n "$br" link set "v$i" up
    addr="$net.1"
    ip -n "$ns" addr add "$addr/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" route add default via "$net.254"
  else
    ip -n "$br" link set "v$i" master br0 up
    addr="10.213.$(set_number "$set").$i"
    ip -n "$ns" addr add "$addr/24" dev eth0
    ip -n "$ns" link set eth0 up
  fi
  echo "$addr" > "$d/addr"
  # Moving the primary address (readdr) must not take the new one with it.
  ip netns exec "$ns" sysctl -qw net.ipv4.conf.eth0.promote_secondaries=1
  avahi_conf "$host" > "$d/avahi-daemon.conf"
  # The anchor holds the host's mount namespace (private /run/dbus, /run/avahi-daemon) alive.
  # Its stdio goes to /dev/null: a caller reading our output to EOF must not wait on it.
  # Its PID is recorded once it is ready (see router_anchor).
  ip netns exec "$ns" unshare --mount --propagation private sleep infinity </dev/null >/dev/null 2>&1 &
  local pid=$!
  wait_for 5 "anchor of $host" anchor_ready "$pid"
  echo "$pid" > "$d/anchor.pid"
  in_host "$host" mount -t tmpfs -o mode=755 tmpfs /run/dbus
  in_host "$host" mkdir -p /run/avahi-daemon
  in_host "$host" mount -t tmpfs -o mode=755 tmpfs /run/avahi-daemon
  dbus_ctl "$host" start
  avahi_ctl "$host" start
}

anchor_ready() {  # the anchor has left our mount and network namespaces and become `sleep`
  [ -n "$1" ] && [ "$(readlink "/proc/$1/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] &&
    [ "$(readlink "/proc/$1/ns/net")" != "$(readlink /proc/self/ns/net)" ] &&
    [ "$(readlink "/proc/$1/exe")" = "$(readlink -f "$(command -v sleep)")" ]
}

set_number() {  # a stable number 1..250 for a set name, so concurrent sets use distinct subnets
  echo $(( $(printf '%s' "$1" | cksum | cut -d' ' -f1) % 250 + 1 ))
}

set_down() {
  local set=$1 d
  [ -d "$STATE/$set" ] || { ip netns list | grep -q "^hdt-$set" || return 0; }
  for d in "$STATE/$set"/*/; do
    [ -d "$d" ] || continue
    kill_pidfile "$d/avahi.pid" TERM
    kill_pidfile "$d/dbus.pid" TERM
    kill_pidfile "$d/session.pid" TERM
    kill_pidfile "$d/anchor.pid" KILL
  done
  # Anything still inside our namespaces was started there by a test: end it by PID.
  local ns
  for ns in $(ip netns list | awk '{print $1}' | grep "^hdt-$set[0-9]*$\|^hdt-$set-br$" || true); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    ip netns delete "$ns" 2>/dev/null || true
  done
  rm -rf "${STATE:?}/$set"
}

# The router of a routed set gets a mount namespace of its own too (its avahi-daemon needs a
# private /run/avahi-daemon); made when first needed.
router_dir() { echo "$STATE/$1/router"; }
router_anchor() {
  local set=$1 d; d=$(router_dir "$set")
  ip netns list | awk '{print $1}' | grep -qx "$(ns_of "$set-br")" || die "no routed set $set (run: testhosts.sh up $set N routed)"
  mkdir -p "$d"
  # Callers come at once (`named start` waits on dig while named starts), so one makes the
  # anchor under a lock, and its PID is recorded only once it is ready: until `ip netns exec`
  # has switched, nsenter into that PID enters this machine's own namespaces (a caller that
  # trusted a PID recorded too early is the likeliest way a CI run's named came to run here).
  # The anchor must not inherit the lock's descriptor, or it would hold the lock all its life.
  local lock pid
  exec {lock}>"$d/anchor.lock"
  flock -w 10 "$lock" || die "the $set router's anchor lock is held by another caller for 10 s"
  pid=$(cat "$d/anchor.pid" 2>/dev/null || true)
  if ! anchor_ready "$pid"; then
    ip netns exec "$(ns_of "$set-br")" unshare --mount --propagation private sleep infinity </dev/null >/dev/null 2>&1 {lock}>&- &
    pid=$!
    wait_for 5 "anchor of the $set router" anchor_ready "$pid"
    nsenter -t "$pid" -m -n -- mkdir -p /run/avahi-daemon
    nsenter -t "$pid" -m -n -- mount -t tmpfs -o mode=755 tmpfs /run/avahi-daemon
    echo "$pid" > "$d/anchor.pid"
  fi
  exec {lock}>&-
  echo "$pid"
}
in_router() { local pid; pid=$(router_anchor "$1"); shift; not_ours "$pid"; nsenter -t "$pid" -m -n -- "$@"; }

reflector_conf() {  # reflector_conf SET
  printf '%s\n' '[server]' "host-name=$1-router" 'use-ipv4=yes' 'use-ipv6=yes' 'enable-dbus=no' \
    'ratelimit-interval-usec=1000000' 'ratelimit-burst=1000' '[wide-area]' 'enable-wide-area=no' \
    '[publish]' 'disable-publishing=yes' '[reflector]' 'enable-reflector=yes' 'reflect-filters=_handoff._tcp' '[rlimits]'
}

reflector_ctl() {  # reflector_ctl SET start|stop
  local set=$1 action=$2 d; d="$(router_dir "$set")/reflector"
  case "$action" in
    start)
      [ -f "$d/avahi.pid" ] && alive "$(cat "$d/avahi.pid")" && return 0
      mkdir -p "$d"
      reflector_conf "$set" > "$d/avahi-daemon.conf"
      in_router "$set" rm -f /run/avahi-daemon/pid
      in_router "$set" avahi-daemon --no-drop-root --no-chroot --no-rlimits -f "$d/avahi-daemon.conf" -D </dev/null >>"$d/avahi.log" 2>&1
      wait_for 10 "the $set reflector" in_router "$set" test -s /run/avahi-daemon/pid
      in_router "$set" cat /run/avahi-daemon/pid > "$d/avahi.pid"
      ;;
    stop) kill_pidfile "$d/avahi.pid" TERM ;;
    *) die "reflector: start|stop" ;;
  esac
}

# net_ctl TARGET ACTION [ARG]: the bad wire of `net` (in its own file: this one would pass 400 lines).
source "$(dirname "$0")/testhosts-net.sh"
source "$(dirname "$0")/testhosts-named.sh"

cmd=${1:-}; shift || true
case "$cmd" in
  up)
    set=${1:?SET}; n=${2:?N}; shape=${3:-}
    [[ "$set" =~ ^[a-z][a-z0-9]{0,7}$ ]] || die "SET must be lowercase letters/digits, at most 8"
    [[ "$set" =~ [0-9]$ ]] && die "SET must not end in a digit"
    [ -z "$shape" ] || [ "$shape" = routed ] || die "the shape is 'routed' or nothing"
    set_down "$set"
    mkdir -p "$STATE/$set"
    br=$(ns_of "$set-br")
    ip netns add "$br"
    ip -n "$br" link set lo up
    if [ "$shape" = routed ]; then
      # A router: forwards unicast between the hosts' subnets; no multicast routing, no reflector.
      ip netns exec "$br" sysctl -qw net.ipv4.ip_forward=1
    else
      ip -n "$br" link add br0 type bridge
      ip -n "$br" link set br0 type bridge mcast_snooping 0
      ip -n "$br" link set br0 up
    fi
    for i in $(seq 1 "$n"); do host_up "$set" "$i" "$shape"; done
    echo "testhosts: ${set}1..${set}${n} up${shape:+ ($shape)}"
    ;;
  down) set_down "${1:?SET}" ;;
  exec) host=${1:?HOST}; shift; in_host "$host" "$@" ;;
  avahi) avahi_ctl "${1:?HOST}" "${2:?action}" ;;
  dbus) dbus_ctl "${1:?HOST}" "${2:?action}" ;;
  session) session_ctl "${1:?HOST}" "${2:?action}" ;;
  named) named_ctl "${1:?SET}" "${2:?action}" "${3:-}" ;;
  reflector) reflector_ctl "${1:?SET}" "${2:?action}" ;;
  net) net_ctl "${1:?TARGET}" "${2:?action}" "${3:-}" ;;
  pid) anchor_of "${1:?HOST}" ;;
  addr) cat "$(dir_of "${1:?HOST}")/addr" 2>/dev/null || die "no host $1" ;;
  readdr)
    host=${1:?HOST}; last=${2:?N}; d=$(dir_of "$host"); old=$(cat "$d/addr")
    new="${old%.*}.$last"
    ns=$(ns_of "$host")
    ip -n "$ns" addr add "$new/24" dev eth0
    ip -n "$ns" addr del "$old/24" dev eth0
    # The default route (routed hosts) went with the old primary address; put it back.
    [ "${old#10.213.}" = "$old" ] && { ip -n "$ns" route replace default via "${old%.*}.254"; }
    echo "$new" > "$d/addr"
    echo "$new"
    ;;
  list) ls "$STATE" 2>/dev/null || true ;;
  *) sed -n '2,31p' "$0"; exit 2 ;;
esac
