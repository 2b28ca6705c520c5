# Network namespaces on a bridge, for the scripts that run daemons as separate hosts (sourced, not run):
# compose-test.sh and cluster-ssh-test.sh. Each name is the caller's, so its cleanup finds what it made.

# netns_bridge BRIDGE SUBNET: a bridge at SUBNET.1/24 (SUBNET is three octets), up.
netns_bridge() {
  ip link add "$1" type bridge
  ip addr add "$2.1/24" dev "$1"
  ip link set "$1" up
}

# netns_join NAMESPACE BRIDGE HOST_VETH NS_VETH ADDRESS: a new namespace whose interface NS_VETH, at ADDRESS/24, is
# paired with HOST_VETH on BRIDGE; its loopback is up too.
netns_join() {
  local ns="$1" bridge="$2" host="$3" inner="$4" address="$5"
  ip netns add "$ns"
  ip link add "$host" type veth peer name "$inner"
  ip link set "$inner" netns "$ns"
  ip link set "$host" master "$bridge" up
  ip -n "$ns" addr add "$address/24" dev "$inner"
  ip -n "$ns" link set "$inner" up
  ip -n "$ns" link set lo up
}
