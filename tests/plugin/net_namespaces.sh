#!/bin/sh
# The net plugin between two network namespaces joined by a veth pair, made
# here and removed on exit: the harness's server role runs in one namespace
# (10.77.0.1 on its veth end), the client role in the other (10.77.0.2), each
# through `ip netns exec`, with the same scenarios as the loopback cases
# (tests/plugin/net_harness.cpp --pair). Unlike loopback, the TCP streams
# cross a real (virtual) link between two network stacks, and the plugin finds
# its device and address by NCCL_SOCKET_IFNAME on an interface other than lo.
#
#   sh tests/plugin/net_namespaces.sh <build>/examples/nccl_net/net_harness
#
# Prints "SKIPPED: <reason>" and exits 0 when the namespaces cannot be made
# (not root, no `ip` from iproute2, no CAP_NET_ADMIN, namespaces or veth
# refused, as in an unprivileged container); CTest marks the test skipped
# (SKIP_REGULAR_EXPRESSION) rather than passed.
set -u

harness=${1:?usage: net_namespaces.sh <net_harness executable>}
[ -x "$harness" ] || { echo "net_namespaces.sh: $harness is not executable"; exit 1; }

skip() {
  echo "SKIPPED: $*"
  exit 0
}

command -v ip >/dev/null 2>&1 || skip "no 'ip' command (Debian package iproute2)"
[ "$(id -u)" -eq 0 ] || skip "not root: 'ip netns add' needs CAP_SYS_ADMIN and CAP_NET_ADMIN"

# Names unique per run (interface names: at most 15 characters).
id=$$
ns_server="ryns-s-$id"
ns_client="ryns-c-$id"
veth_server="ryvs$id"
veth_client="ryvc$id"

cleanup() {
  ip netns del "$ns_server" >/dev/null 2>&1
  ip netns del "$ns_client" >/dev/null 2>&1
  # Deleting a namespace deletes its veth end and so the pair; this is for a
  # pair left in the root namespace by a failure before it was moved.
  ip link del "$veth_server" >/dev/null 2>&1
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Each step that can be refused by the environment is a reason to skip.
step() {
  what=$1
  shift
  if ! out=$("$@" 2>&1); then
    skip "$what refused: $* -> $out"
  fi
}
step "creating a network namespace" ip netns add "$ns_server"
step "creating a network namespace" ip netns add "$ns_client"
step "creating a veth pair" ip link add "$veth_server" type veth peer name "$veth_client"
step "moving a veth end" ip link set "$veth_server" netns "$ns_server"
step "moving a veth end" ip link set "$veth_client" netns "$ns_client"
step "addressing the veth" ip -n "$ns_server" addr add 10.77.0.1/24 dev "$veth_server"
step "addressing the veth" ip -n "$ns_client" addr add 10.77.0.2/24 dev "$veth_client"
for ns in "$ns_server" "$ns_client"; do
  step "bringing up lo" ip -n "$ns" link set lo up
done
step "bringing up the veth" ip -n "$ns_server" link set "$veth_server" up
step "bringing up the veth" ip -n "$ns_client" link set "$veth_client" up

echo "net_namespaces.sh: $ns_server ($veth_server 10.77.0.1) <-> $ns_client ($veth_client 10.77.0.2)"
# From here on, a failure is the plugin's (or the harness's), never a skip.
"$harness" --pair \
  --server-netns="$ns_server" --client-netns="$ns_client" \
  --server-ifname="$veth_server" --client-ifname="$veth_client" \
  --scenarios=smoke,sizes,inflight,kill-sender,kill-receiver,two-comms,port-busy
