// railyard/topology/inventory.hpp — the bill of materials of a cluster: switches,
// ports, links and cables per tier, transceivers, bisection bandwidth and
// oversubscription, all from the descriptor's shape (closed form).
//
//   auto desc = railyard::topology::make_descriptor(*railyard::topology::parse_cluster("h100-1024"));
//   railyard::topology::Inventory inv = railyard::topology::inventory(*desc);
//   inv.tier(railyard::topology::SwitchTier::kSpine).switches;   // 16
//   inv.bisection_gbps;                                           // 204800
//
// Rules (see descriptor.hpp for the cable media and shape.hpp for the wiring):
// * Ports used on a switch = cables attached; free = radix - used.
// * Transceivers: one per end of every optical cable (2 per cable). Twin-port
//   800G modules serving two 400G links would halve the count; we do not assume them.
// * Bisection bandwidth: the capacity across the worst cut that splits the hosts
//   into equal halves along the tree: min(host injection, leaf uplinks, spine
//   uplinks when there are cores) / 2, counting only tiers that exist. This is the
//   standard value for symmetric Clos networks.
// * Oversubscription of a tier: down-facing over up-facing capacity of its
//   switches (0 when the tier has no uplinks).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "railyard/topology/descriptor.hpp"

namespace railyard::topology {

enum class SwitchTier : uint8_t { kLeaf, kSpine, kCore };
inline constexpr std::array<std::string_view, 3> kSwitchTierNames = {"leaf", "spine", "core"};

struct TierInventory {
  int64_t switches = 0;
  int64_t ports_total = 0;   // switches * radix
  int64_t ports_down = 0;    // ports towards hosts
  int64_t ports_up = 0;      // ports towards the next tier
  int64_t ports_free = 0;
  double oversubscription = 0;  // down:up capacity ratio, 0 if no uplinks
  [[nodiscard]] constexpr int64_t ports_used() const { return ports_down + ports_up; }
};

struct Inventory {
  int64_t hosts = 0;
  int64_t gpus = 0;
  int64_t nics = 0;        // physical back-end NICs
  int64_t nic_ports = 0;   // NIC ports (nics * planes)
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

// The inventory of a descriptor's cluster. O(1), constexpr.
template <class E>
[[nodiscard]] constexpr Inventory inventory(const ClusterDescriptor<E>& d) {
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

  const double link_gbps = s.nic_gbps;
  inv.host_injection_gbps = static_cast<double>(inv.nic_ports) * link_gbps;
  double cut = inv.host_injection_gbps;
  if (inv.links_leaf_spine > 0) {
    const double leaf_up = static_cast<double>(inv.links_leaf_spine) * link_gbps;
    cut = cut < leaf_up ? cut : leaf_up;
  }
  if (inv.links_spine_core > 0) {
    const double spine_up = static_cast<double>(inv.links_spine_core) * link_gbps;
    cut = cut < spine_up ? cut : spine_up;
  }
  inv.bisection_gbps = cut / 2;
  return inv;
}

}  // namespace railyard::topology
