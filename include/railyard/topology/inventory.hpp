// railyard/topology/inventory.hpp — the bill of materials of a cluster: switches,
// ports, links and cables per tier, transceivers, bisection bandwidth and
// oversubscription, all from the descriptor's shape (closed form).
//
//   auto desc =
//   railyard::topology::make_descriptor(*railyard::topology::parse_cluster("h100-1024"));
//   railyard::topology::Inventory inv = railyard::topology::inventory(*desc);
//   inv.tier(railyard::topology::SwitchTier::kSpine).switches;   // 16
//   inv.bisection_gbps;                                           // 204800
//
// Rules (see descriptor.hpp for the cable media and shape.hpp for the wiring):
// * Ports used on a switch = cables attached; free = radix - used.
// * Transceivers: one per end of every optical cable (2 per cable). Twin-port
//   800G modules serving two 400G links would halve the count; we do not assume them.
// * Bisection bandwidth: the maximum flow from the first half of the hosts (in id
//   order, which is SU-major) to the second half, over every network link. With
//   an even number of SUs (or pods) the cut follows the tree, the usual meaning
//   for Clos networks. When every leaf has the same number of cables to each
//   spine (and each spine to each core) and the cut follows the tree, this is
//   min(host injection, leaf uplinks, spine uplinks) / 2 and is computed so;
//   otherwise uneven wiring makes some spines carry less across the cut than
//   their ports suggest, and a max flow on one plane/partition finds the value.
//   A partial last SU or pod (shape.hpp) puts fewer hosts under some leaves or
//   spines than their share, so the closed form does not hold there: such
//   clusters take the max flow, with each leaf's real host count.
// * Partial SUs: their leaves are cabled as in a full SU, so leaf counts, uplinks
//   and spines are those of full SUs and pods, while host ports, host-leaf cables
//   and their transceivers count only the hosts that exist; the missing hosts'
//   ports are free down ports on the partial SU's leaves (and a partial pod's
//   spines have free down ports towards its missing SUs' leaves).
// * Oversubscription of a tier: down-facing over up-facing capacity of its
//   switches (0 when the tier has no uplinks).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "railyard/core/lazy.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/detail/max_flow.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::topology {

enum class SwitchTier : uint8_t { kLeaf, kSpine, kCore };
inline constexpr std::array<std::string_view, 3> kSwitchTierNames = {"leaf", "spine", "core"};

struct TierInventory {
  int64_t switches = 0;
  int64_t ports_total = 0;  // switches * radix
  int64_t ports_down = 0;   // ports towards hosts
  int64_t ports_up = 0;     // ports towards the next tier
  int64_t ports_free = 0;
  double oversubscription = 0;  // down:up capacity ratio, 0 if no uplinks
  [[nodiscard]] constexpr int64_t ports_used() const { return ports_down + ports_up; }
};

struct Inventory {
  int64_t hosts = 0;
  int64_t gpus = 0;
  int64_t nics = 0;       // physical back-end NICs
  int64_t nic_ports = 0;  // NIC ports (nics * planes)
  int32_t rails = 0;
  int32_t planes = 0;
  int32_t sus = 0;
  int32_t pods = 0;
  int64_t nvlink_domains = 0;
  std::array<TierInventory, 3> tiers{};  // by SwitchTier
  int64_t links_host_leaf = 0;           // cables
  int64_t links_leaf_spine = 0;
  int64_t links_spine_core = 0;
  int64_t cables_copper = 0;
  int64_t cables_optical = 0;
  int64_t transceivers = 0;
  double host_injection_gbps = 0;  // all NIC ports at line rate
  double bisection_gbps = 0;

  [[nodiscard]] constexpr const TierInventory& tier(SwitchTier t) const {
    return tiers[static_cast<size_t>(t)];
  }
  [[nodiscard]] constexpr int64_t switches() const {
    return tiers[0].switches + tiers[1].switches + tiers[2].switches;
  }
};

// Max flow in Gb/s from hosts [0, hosts/2) to hosts [hosts/2, hosts) across the
// network (see the bisection rule above). O(1) for evenly wired shapes cut along
// the tree (every preset); otherwise a max flow on one plane/partition of the
// switch graph with parallel cables merged: milliseconds for 10^5 arcs, seconds
// for million-host shapes with an odd number of pods.
RAILYARD_LAZY
[[nodiscard]] double half_cut_gbps(const ClusterDescriptor<>& d) {
  const ClusterSpec& s = d.spec();
  const ClosShape& c = d.shape();
  const double gbps = s.nic_gbps;
  const int32_t up = c.leaf_up_ports, spines = c.spines_per_pod;
  const int32_t spine_up = c.spine_up_ports, cores = c.cores_per_group;
  // The cut follows the tree when the first half of the hosts is a union of whole
  // pods (3 tiers) or whole leaf groups (2 tiers): no leaf (or pod) then has hosts
  // on both sides, and with even wiring every switch splits its traffic evenly.
  const int64_t hosts = s.hosts;
  const int64_t split = hosts / 2;
  const int64_t leaf_group =
      s.kind == Kind::kTorFatTree ? int64_t{c.hosts_per_leaf} : int64_t{s.hosts_per_su};
  const bool along_tree =
      split > 0 && (c.pods > 1 ? split % (int64_t{s.hosts_per_su} * c.sus_per_pod) == 0
                               : split % leaf_group == 0);
  const bool even_wiring =
      (up == 0 || up % spines == 0) && (spine_up == 0 || spine_up % cores == 0);
  // The closed form counts each side's share of leaves and spines, true only
  // when every SU and pod is full.
  const bool full_units = !d.partial_su() && !d.partial_pod();
  if (along_tree && even_wiring && full_units) {
    const int64_t ports_per_host = int64_t{s.nics_per_host} * s.planes;
    int64_t cables = std::min(split, hosts - split) * ports_per_host;  // host injection
    // Leaves and spines spread evenly over the hosts, so a side holds its share.
    const int64_t leaves_a = c.total_leaves() * split / hosts;
    const int64_t spines_a = c.total_spines() * split / hosts;
    if (up > 0) cables = std::min(cables, std::min(leaves_a, c.total_leaves() - leaves_a) * up);
    if (spine_up > 0)
      cables = std::min(cables, std::min(spines_a, c.total_spines() - spines_a) * spine_up);
    return static_cast<double>(cables) * gbps;
  }
  // Plane 0, partition 0: leaves first, then its pods' spines, then its cores.
  const int32_t leaves = c.leaves_per_partition();
  const int32_t spine_nodes = c.pods * spines;
  constexpr int32_t kSource = 0, kSink = 1, kFirstLeaf = 2;
  const int32_t first_spine = kFirstLeaf + leaves;
  const int32_t first_core = first_spine + spine_nodes;
  detail::FlowNetwork net(first_core + spines * cores);
  auto cable = [&](int32_t a, int32_t b, int64_t count) {
    net.add_arc(a, b, static_cast<double>(count) * gbps);
    net.add_arc(b, a, static_cast<double>(count) * gbps);
  };
  // Round-robin wiring: member m of a group sends `per` cables to `mod` targets
  // starting at (m * per) mod mod; target offset t < min(per, mod) gets q or q+1.
  auto wire = [&](int32_t node, int64_t member, int32_t per, int32_t mod, auto target_node) {
    if (per == 0) return;
    const int64_t start = member * per % mod;
    for (int32_t t = 0; t < std::min(per, mod); ++t)
      cable(node, target_node(static_cast<int32_t>((start + t) % mod)),
            per / mod + (t < per % mod));
  };
  int32_t local = 0;
  for (int32_t leaf = 0; leaf < c.sus * c.leaves_per_su; ++leaf) {
    if (d.partition_of_leaf(SwitchIndex{leaf}) != 0) continue;
    const int32_t node = kFirstLeaf + local++;
    const int32_t su = leaf / c.leaves_per_su;
    const bool tor = s.kind == Kind::kTorFatTree;
    const int32_t first_host =
        su * s.hosts_per_su + (tor ? (leaf % c.leaves_per_su) * c.hosts_per_leaf : 0);
    const int32_t ports_per_host = tor ? s.nics_per_host : 1;
    // Hosts on this leaf: hosts_per_leaf, fewer (or none) in a partial SU.
    const auto on_leaf =
        static_cast<int32_t>(std::clamp<int64_t>(hosts - first_host, 0, c.hosts_per_leaf));
    const int32_t in_a = static_cast<int32_t>(std::clamp<int64_t>(split - first_host, 0, on_leaf));
    net.add_arc(kSource, node, static_cast<double>(in_a) * ports_per_host * gbps);
    net.add_arc(node, kSink, static_cast<double>(on_leaf - in_a) * ports_per_host * gbps);
    const int32_t pod = d.pod_of_leaf(SwitchIndex{leaf});
    wire(node, d.leaf_index_in_pod(SwitchIndex{leaf}), up, spines,
         [&](int32_t sp) { return first_spine + pod * spines + sp; });
  }
  for (int32_t pod = 0; pod < c.pods; ++pod)
    for (int32_t sp = 0; sp < spines; ++sp)
      wire(first_spine + pod * spines + sp, pod, spine_up, cores,
           [&](int32_t g) { return first_core + sp * cores + g; });
  return net.max_flow(kSource, kSink) * s.planes * c.partitions;
}

// The inventory of a descriptor's cluster. O(1) except for bisection_gbps on an
// unevenly wired shape (see half_cut_gbps).
RAILYARD_LAZY
[[nodiscard]] Inventory inventory(const ClusterDescriptor<>& d) {
  const ClusterSpec& s = d.spec();
  const ClosShape& c = d.shape();
  Inventory inv;
  inv.hosts = s.hosts;
  inv.gpus = d.gpus();
  inv.nics = s.nics();
  inv.nic_ports = inv.nics * s.planes;
  inv.rails = s.nics_per_host;
  inv.planes = s.planes;
  inv.sus = c.sus;
  inv.pods = c.pods;
  inv.nvlink_domains = s.hosts / c.hosts_per_domain;

  inv.links_host_leaf = inv.nic_ports;
  inv.links_leaf_spine = c.leaf_spine_links();
  inv.links_spine_core = c.spine_core_links();

  auto fill = [&](SwitchTier t, int64_t switches, int64_t down, int64_t up) {
    TierInventory& ti = inv.tiers[static_cast<size_t>(t)];
    ti.switches = switches;
    ti.ports_total = switches * s.switch_radix;
    ti.ports_down = down;
    ti.ports_up = up;
    ti.ports_free = ti.ports_total - down - up;
    ti.oversubscription = up > 0 ? static_cast<double>(down) / static_cast<double>(up) : 0.0;
  };
  fill(SwitchTier::kLeaf, c.total_leaves(), inv.links_host_leaf, inv.links_leaf_spine);
  fill(SwitchTier::kSpine, c.total_spines(), inv.links_leaf_spine, inv.links_spine_core);
  fill(SwitchTier::kCore, c.total_cores(), inv.links_spine_core, 0);

  const LinkTier network[3] = {LinkTier::kHostLeaf, LinkTier::kLeafSpine, LinkTier::kSpineCore};
  const int64_t counts[3] = {inv.links_host_leaf, inv.links_leaf_spine, inv.links_spine_core};
  for (int i = 0; i < 3; ++i) {
    if (d.medium(network[i]) == Medium::kCopper) inv.cables_copper += counts[i];
    if (d.medium(network[i]) == Medium::kOptical) inv.cables_optical += counts[i];
  }
  inv.transceivers = 2 * inv.cables_optical;

  inv.host_injection_gbps = static_cast<double>(inv.nic_ports) * s.nic_gbps;
  inv.bisection_gbps = half_cut_gbps(d);
  return inv;
}

// Max flow in Gb/s from the NIC ports of hosts [0, hosts/2) to those of the
// other half, over every network link of an explicit Fabric (imported
// topologies have no descriptor to answer in closed form). Hosts are the
// owners of NIC-port nodes.
RAILYARD_LAZY
[[nodiscard]] double fabric_half_cut_gbps(const Fabric& f) {
  int32_t hosts = 0;
  for (int32_t v = 0; v < f.node_count(); ++v)
    if (f.kind(NodeId{v}) == NodeKind::kNicPort) hosts = std::max(hosts, f.owner(NodeId{v}) + 1);
  const int32_t split = hosts / 2;
  const int32_t source = f.node_count(), sink = f.node_count() + 1;
  detail::FlowNetwork net(f.node_count() + 2);
  for (int32_t l = 0; l < f.link_count(); ++l) {
    const LinkId id{l};
    if (f.tier(id) == LinkTier::kPcie || f.tier(id) == LinkTier::kNvlink) continue;
    net.add_arc(f.src(id).value(), f.dst(id).value(), f.capacity_gbps(id));
  }
  for (int32_t v = 0; v < f.node_count(); ++v) {
    if (f.kind(NodeId{v}) != NodeKind::kNicPort) continue;
    // Unbounded: the host-leaf links limit what a host sends.
    if (f.owner(NodeId{v}) < split)
      net.add_arc(source, v, 1e18);
    else
      net.add_arc(v, sink, 1e18);
  }
  return net.max_flow(source, sink);
}

// The inventory of an explicit Fabric, for clusters read from files (Slurm
// topology.conf, CSV), which have no descriptor: hosts (owners of NIC ports),
// switches and cables per tier, and the bisection bandwidth by max flow
// (fabric_half_cut_gbps).
struct FabricInventory {
  int64_t hosts = 0;
  std::array<int64_t, 3> switches{};  // leaf, spine, core
  std::array<int64_t, 3> links{};     // host_leaf, leaf_spine, spine_core (cables)
  double bisection_gbps = 0;
};

RAILYARD_LAZY
[[nodiscard]] FabricInventory fabric_inventory(const Fabric& f) {
  FabricInventory c;
  for (int32_t v = 0; v < f.node_count(); ++v) {
    const NodeKind k = f.kind(NodeId{v});
    if (k == NodeKind::kNicPort) c.hosts = std::max<int64_t>(c.hosts, f.owner(NodeId{v}) + 1);
    if (k == NodeKind::kLeaf) ++c.switches[0];
    if (k == NodeKind::kSpine) ++c.switches[1];
    if (k == NodeKind::kCore) ++c.switches[2];
  }
  for (int32_t l = 0; l < f.link_count(); l += 2) {  // links are directed: 2 per cable
    const LinkTier t = f.tier(LinkId{l});
    if (t == LinkTier::kHostLeaf) ++c.links[0];
    if (t == LinkTier::kLeafSpine) ++c.links[1];
    if (t == LinkTier::kSpineCore) ++c.links[2];
  }
  c.bisection_gbps = fabric_half_cut_gbps(f);
  return c;
}

}  // namespace railyard::topology
