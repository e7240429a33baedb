# Sourced by testhosts.sh (its helpers: router_dir, in_router, alive, kill_pidfile, wait_for,
# set_number, die): `named`, BIND 9 in a routed set's router namespace with the zone handoff.test.
# Two policies: one key every machine shares (`start`: any key holder may change any name), or a
# key per machine (`start-owned`: packaging/handoff-zone-policy.py, BIND's `external` rule, lets each
# key change only the names it owns and the service's shared list).

named_conf() {  # named_conf DIR POLICY
  local d=$1 policy=$2 grant='grant handoff-key zonesub ANY;' keys="include \"$d/handoff.key\";" i
  if [ "$policy" = owned ]; then
    grant="grant \"local:$d/policy.sock\" external * ANY;"
    keys=""
    for i in 1 2 3 4; do keys+="include \"$d/machine$i.key\";"$'\n'; done
  fi
  printf '%s\n' \
    'options {' \
    "  directory \"$d\";" \
    "  pid-file \"$d/named.pid.bind\";" \
    "  session-keyfile \"$d/session.key\";" \
    '  listen-on port 53 { any; };' \
    '  listen-on-v6 { none; };' \
    '  recursion no;' \
    '  allow-query { any; };' \
    '  dnssec-validation no;' \
    '  notify no;' \
    '};' \
    'controls { };' \
    "$keys" \
    'zone "handoff.test" {' \
    '  type primary;' \
    "  file \"$d/handoff.test.zone\";" \
    "  update-policy { $grant };" \
    '};' \
    "logging { channel log { file \"$d/named.log\"; severity info; print-time yes; }; category default { log; }; };"
}

named_ctl() {  # named_ctl SET start|start-owned|stop|kill|key [N]
  local set=$1 action=$2 n=${3:-} d i policy=shared; d="$(router_dir "$set")/named"
  case "$action" in
    start|start-owned)
      [ -f "$d/named.pid" ] && alive "$(cat "$d/named.pid")" && return 0
      command -v named >/dev/null || die "named is missing; run scripts/install-deps.sh"
      mkdir -p "$d"
      [ -f "$d/handoff.key" ] || tsig-keygen -a hmac-sha256 handoff-key > "$d/handoff.key"
      if [ "$action" = start-owned ]; then
        policy=owned
        for i in 1 2 3 4; do [ -f "$d/machine$i.key" ] || tsig-keygen -a hmac-sha256 "machine$i-key" > "$d/machine$i.key"; done
        if [ ! -f "$d/policy.pid" ] || ! alive "$(cat "$d/policy.pid")"; then
          in_router "$set" /usr/bin/python3 "$(cd "$(dirname "$0")/../.." && pwd)/packaging/handoff-zone-policy.py" --socket "$d/policy.sock" \
            --zone handoff.test "$d"/machine[1-4].key </dev/null >/dev/null 2>>"$d/policy.log" &
          echo $! > "$d/policy.pid"
          wait_for 5 "the zone policy's socket" test -S "$d/policy.sock"
        fi
      fi
      named_conf "$d" "$policy" > "$d/named.conf"
      if [ ! -f "$d/handoff.test.zone" ]; then
        printf '%s\n' '$TTL 60' \
          '@   IN SOA ns.handoff.test. admin.handoff.test. 1 60 60 600 60' \
          '@   IN NS  ns.handoff.test.' \
          "ns  IN A   10.221.$(set_number "$set").254" > "$d/handoff.test.zone"
      fi
      rm -f "$d/named.pid.bind"
      in_router "$set" named -c "$d/named.conf" -f </dev/null >>"$d/named.out" 2>&1 &
      local launcher=$! end=$(($(date +%s) + 10))
      # Until it answers; a named that does not is shown as it is (it took over 10 s once in CI,
      # with nothing to say why).
      until in_router "$set" dig @127.0.0.1 handoff.test SOA +short +time=1 +tries=1 >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge "$end" ]; then
          die "named in the $set router did not answer within 10 s ($(alive "$launcher" && echo "still running" || echo "it exited")); the end of its output: $(tail -5 "$d/named.out" 2>/dev/null | tr '\n' '|')"
        fi
        sleep 0.05
      done
      # named's own PID (the one started above is the shell around nsenter).
      wait_for 5 "named's pid file" test -s "$d/named.pid.bind"
      cp "$d/named.pid.bind" "$d/named.pid"
      ;;
    stop) kill_pidfile "$d/named.pid" TERM; [ -f "$d/policy.pid" ] && kill_pidfile "$d/policy.pid" TERM; true ;;
    kill) kill_pidfile "$d/named.pid" KILL ;;
    key)
      if [ -n "$n" ]; then cat "$d/machine$n.key" 2>/dev/null || die "no key for machine $n (run: testhosts.sh named $set start-owned)"
      else cat "$d/handoff.key" 2>/dev/null || die "no named for $set (run: testhosts.sh named $set start)"; fi ;;
    *) die "named: start|start-owned|stop|kill|key [N]" ;;
  esac
}
