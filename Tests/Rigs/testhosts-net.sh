# Sourced by testhosts.sh (its helpers: set_of, ns_of, dir_of, in_host, die, STATE): `net`, a bad
# wire between test hosts, made in the set's bridge namespace and the hosts' own, never in the
# machine's (this kernel has no netem: nftables drops, tc tbf slows).
net_ctl() {  # net_ctl TARGET ACTION [ARG]
  local target=$1 action=$2 arg=${3:-} set br table ports=() i
  set=$(set_of "$target"); br=$(ns_of "$set-br")
  [ -d "$STATE/$set" ] || die "no set $set"
  ip netns exec "$br" test -d /sys/class/net/br0 || die "net: $set is routed; bad wires are for bridged sets"
  if [ "$target" = "$set" ]; then
    for i in $(ls "$STATE/$set" | sed -n "s/^$set\([0-9][0-9]*\)$/\1/p"); do ports+=("v$i"); done
  else
    [ -d "$(dir_of "$target")" ] || die "no host $target"
    ports=("v${target#"$set"}")
  fi
  table="chaos_$target"
  # What a target's wire does is one table (and a qdisc per port): a new action replaces it.
  ip netns exec "$br" nft delete table bridge "$table" 2>/dev/null || true
  for i in "${ports[@]}"; do ip netns exec "$br" tc qdisc del dev "$i" root 2>/dev/null || true; done
  if [ "$target" != "$set" ]; then in_host "$target" tc qdisc del dev eth0 root 2>/dev/null || true; fi
  case "$action" in
    loss|down)
      local verdict="drop" rules
      if [ "$action" = loss ]; then
        [[ "$arg" =~ ^[0-9]+$ ]] && [ "$arg" -le 100 ] || die "net: loss takes a percentage, 0 to 100"
        verdict="numgen random mod 100 < $arg drop"
      fi
      # A whole set: each frame is judged once, where it crosses the bridge. One host: the frames
      # it sends and those sent to it.
      if [ "$target" = "$set" ]; then rules="$verdict"
      else rules="iifname ${ports[0]} $verdict
    oifname ${ports[0]} $verdict"; fi
      ip netns exec "$br" nft -f - <<EOF
table bridge $table {
  chain forward {
    type filter hook forward priority 0; policy accept;
    $rules
  }
}
EOF
      ;;
    slow)
      [[ "$arg" =~ ^[0-9]+(kbit|mbit)$ ]] || die "net: slow takes a rate such as 256kbit"
      # A port's egress is the way into its host; the host's own eth0 the way out of it.
      for i in "${ports[@]}"; do ip netns exec "$br" tc qdisc add dev "$i" root tbf rate "$arg" burst 4kb latency 400ms; done
      if [ "$target" != "$set" ]; then in_host "$target" tc qdisc add dev eth0 root tbf rate "$arg" burst 4kb latency 400ms; fi
      ;;
    heal) ;;
    *) die "net: loss P|slow RATE|down|heal" ;;
  esac
}

