#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "../support/brute_force.hpp"
#include "../support/random_shapes.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/topology.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_inventory_test {

using namespace railyard;
using namespace railyard::topology;

namespace {
ClusterDescriptor<> descriptor(std::string_view text) {
  auto spec = parse_cluster(text);
  REQUIRE_MESSAGE(spec.ok(), text, ": ", spec.status().message());
  auto d = make_descriptor(*spec);
  REQUIRE(d.ok());
  return *d;
}
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

// Published reference designs (docs/constants.md#fabric): 1024 H100 on 64-port switches is
// 32 leaves and 16 spines non-blocking.
TEST_CASE("inventory: reference designs") {
  const Inventory ref = inventory(descriptor("h100-1024"));
  CHECK(ref.gpus == 1024);
  CHECK(ref.tier(SwitchTier::kLeaf).switches == 32);
  CHECK(ref.tier(SwitchTier::kSpine).switches == 16);
  CHECK(ref.tier(SwitchTier::kCore).switches == 0);
  CHECK(ref.links_host_leaf == 1024);
  CHECK(ref.links_leaf_spine == 1024);
  CHECK(ref.tier(SwitchTier::kLeaf).ports_free == 0);
  CHECK(ref.bisection_gbps == doctest::Approx(1024 * 400 / 2.0));
  CHECK(ref.cables_optical == 2048);
  CHECK(ref.transceivers == 4096);

  const Inventory two = inventory(descriptor("h100-1024-2to1"));
  CHECK(two.tier(SwitchTier::kSpine).switches == 8);
  CHECK(two.links_leaf_spine == 512);
  CHECK(two.tier(SwitchTier::kLeaf).oversubscription == doctest::Approx(2.0));
  CHECK(two.bisection_gbps == doctest::Approx(ref.bisection_gbps / 2));

  // VMS layout: the leaf-spine tier becomes copper, nothing else changes.
  const Inventory vms = inventory(descriptor("rail_fat_tree:hosts=128,switch_layout=vms"));
  CHECK(vms.cables_copper == 1024);
  CHECK(vms.cables_optical == 1024);
  CHECK(vms.switches() == ref.switches());

  // ToR: a leaf per 4 hosts (32 NIC ports), host cables copper.
  const Inventory tor = inventory(descriptor("h100-1024-tor"));
  CHECK(tor.tier(SwitchTier::kLeaf).switches == 32);
  CHECK(tor.cables_copper == 1024);

  // Rail-only on 128-port switches: one switch per rail, no spine.
  const Inventory rail_only = inventory(descriptor("h100-1024-railonly"));
  CHECK(rail_only.tier(SwitchTier::kLeaf).switches == 8);
  CHECK(rail_only.tier(SwitchTier::kSpine).switches == 0);

  // Dual-plane: two independent copies of a 200G fabric.
  const Inventory dual = inventory(descriptor("h100-1024-dualplane"));
  CHECK(dual.nic_ports == 2048);
  CHECK(dual.tier(SwitchTier::kLeaf).switches == 64);
  CHECK(dual.tier(SwitchTier::kSpine).switches == 32);

  // 3-tier 16k: 64 SUs in 16 pods of 4; per pod 32 leaves and 32 spines (each
  // spine: 32 down, 32 up); 32 core groups of ceil(16*32/64) = 8 cores.
  const Inventory big = inventory(descriptor("h100-16k-3tier"));
  CHECK(big.gpus == 16384);
  CHECK(big.tier(SwitchTier::kLeaf).switches == 512);
  CHECK(big.tier(SwitchTier::kSpine).switches == 512);
  CHECK(big.tier(SwitchTier::kCore).switches == 256);
  CHECK(big.links_spine_core == 512 * 32);
  CHECK(big.bisection_gbps == doctest::Approx(16384 * 400 / 2.0));
}

// The inventory must agree with a recount of the materialized graph, and the
// graph must obey the rules the counts claim to follow: port budgets, minimal
// uplinks for the oversubscription, minimal spine and core counts, every leaf
// reaching every spine of its pod, balanced spine ports.
TEST_CASE("inventory: counts agree with the materialized fabric over many shapes") {
  const auto specs = railyard::testing::random_valid_specs(400, 2024);
  REQUIRE(specs.size() == 400);
  for (const ClusterSpec& s : specs) {
    CAPTURE(to_spec_string(s));
    const auto d = *make_descriptor(s);
    const Inventory inv = inventory(d);
    const Fabric f = materialize(d);

    std::map<NodeKind, int64_t> nodes;
    std::map<LinkTier, int64_t> cables;
    std::map<Medium, int64_t> media;
    for (int32_t v = 0; v < f.node_count(); ++v) ++nodes[f.kind(NodeId{v})];
    for (int32_t l = 0; l < f.link_count(); l += 2) {
      ++cables[f.tier(LinkId{l})];
      ++media[f.medium(LinkId{l})];
      CHECK(f.reverse(LinkId{l}) == LinkId{l + 1});
      CHECK(f.src(LinkId{l}) == f.dst(LinkId{l + 1}));
    }
    CHECK(nodes[NodeKind::kGpu] == int64_t{s.hosts} * s.gpus_per_host);
    CHECK(nodes[NodeKind::kNicPort] == inv.nic_ports);
    CHECK(nodes[NodeKind::kNvSwitch] == inv.nvlink_domains);
    CHECK(nodes[NodeKind::kLeaf] == inv.tier(SwitchTier::kLeaf).switches);
    CHECK(nodes[NodeKind::kSpine] == inv.tier(SwitchTier::kSpine).switches);
    CHECK(nodes[NodeKind::kCore] == inv.tier(SwitchTier::kCore).switches);
    CHECK(cables[LinkTier::kHostLeaf] == inv.links_host_leaf);
    CHECK(cables[LinkTier::kLeafSpine] == inv.links_leaf_spine);
    CHECK(cables[LinkTier::kSpineCore] == inv.links_spine_core);
    CHECK(media[Medium::kCopper] == inv.cables_copper);
    CHECK(media[Medium::kOptical] == inv.cables_optical);
    CHECK(inv.transceivers == 2 * inv.cables_optical);

    // Per switch: ports used (down and up) from the graph.
    std::vector<int64_t> down(static_cast<size_t>(f.node_count())), up(down.size());
    std::vector<std::set<int32_t>> up_neighbours(down.size());
    for (int32_t l = 0; l < f.link_count(); l += 2) {
      const NodeId lower = f.src(LinkId{l});
      const NodeId upper = f.dst(LinkId{l});
      ++down[static_cast<size_t>(upper.value())];
      ++up[static_cast<size_t>(lower.value())];
      up_neighbours[static_cast<size_t>(lower.value())].insert(upper.value());
    }
    int64_t ports_used[3] = {0, 0, 0};
    const int32_t d_over = s.oversub.down, u_over = s.oversub.up;
    std::map<std::vector<int32_t>, std::vector<int32_t>> leaves_by_spine_set;
    for (int32_t v = 0; v < f.node_count(); ++v) {
      const NodeId node{v};
      const NodeKind k = f.kind(node);
      if (k != NodeKind::kLeaf && k != NodeKind::kSpine && k != NodeKind::kCore) continue;
      const auto i = static_cast<size_t>(v);
      CHECK(down[i] + up[i] <= s.switch_radix);  // port budget
      ports_used[static_cast<int>(k) - static_cast<int>(NodeKind::kLeaf)] += down[i] + up[i];
      if (k == NodeKind::kLeaf) {
        CHECK(down[i] == d.shape().leaf_down_ports);
        if (up[i] > 0) {
          // Fewest uplinks that honour down:up.
          CHECK(up[i] * d_over >= down[i] * u_over);
          CHECK((up[i] - 1) * d_over < down[i] * u_over);
        }
        std::vector<int32_t> spines(up_neighbours[i].begin(), up_neighbours[i].end());
        leaves_by_spine_set[spines].push_back(v);
      }
      if (k == NodeKind::kSpine && up[i] > 0) {
        CHECK(up[i] * s.pod_oversub.down >= down[i] * s.pod_oversub.up);
      }
    }
    for (const TierInventory& ti : inv.tiers) CHECK(ti.ports_free >= 0);
    CHECK(ports_used[0] == inv.tier(SwitchTier::kLeaf).ports_used());
    CHECK(ports_used[1] == inv.tier(SwitchTier::kSpine).ports_used());
    CHECK(ports_used[2] == inv.tier(SwitchTier::kCore).ports_used());

    // Leaves sharing a spine set form one (plane, partition, pod); each such
    // group reaches exactly its own spines, and spines are no more than needed.
    const ClosShape& c = d.shape();
    if (c.leaf_up_ports > 0) {
      CHECK(static_cast<int64_t>(leaves_by_spine_set.size()) ==
            int64_t{s.planes} * c.partitions * c.pods);
      const int64_t spine_down_max = s.tiers == 2 ? s.switch_radix
                                                  : int64_t{s.switch_radix} * s.pod_oversub.down /
                                                        (s.pod_oversub.down + s.pod_oversub.up);
      for (const auto& [spines, leaves] : leaves_by_spine_set) {
        // A partial last pod has fewer leaves but a full pod's spines (shape.hpp).
        CHECK(static_cast<int64_t>(leaves.size()) <= c.leaves_per_pod);
        const int64_t uplinks = int64_t{c.leaves_per_pod} * c.leaf_up_ports;
        CHECK(static_cast<int64_t>(spines.size()) == ceil_div(uplinks, spine_down_max));
        int64_t lo = INT64_MAX, hi = 0;
        for (int32_t sp : spines) {
          lo = std::min(lo, down[static_cast<size_t>(sp)]);
          hi = std::max(hi, down[static_cast<size_t>(sp)]);
        }
        CHECK(hi - lo <= 1);  // balanced spine ports
      }
    } else {
      CHECK(inv.tier(SwitchTier::kSpine).switches == 0);
    }
    if (c.spine_up_ports > 0) {
      // Cores: groups of spines with equal index see the same cores; each core
      // group is the fewest cores whose ports hold the group's uplinks.
      std::map<std::vector<int32_t>, int64_t> spines_by_core_set;
      for (int32_t v = 0; v < f.node_count(); ++v)
        if (f.kind(NodeId{v}) == NodeKind::kSpine) {
          const auto& n = up_neighbours[static_cast<size_t>(v)];
          ++spines_by_core_set[std::vector<int32_t>(n.begin(), n.end())];
        }
      for (const auto& [cores, count] : spines_by_core_set) {
        CHECK(count == c.pods);
        CHECK(static_cast<int64_t>(cores.size()) ==
              ceil_div(count * c.spine_up_ports, s.switch_radix));
      }
    }
  }
}

// Bisection bandwidth against a max-flow computation on the full graph (every
// NIC port and cable, all planes) between the two halves of the hosts: covers
// the closed form (even wiring, cut along the tree) and uneven wirings alike.
TEST_CASE("inventory: bisection bandwidth equals the max flow across the half cut") {
  int checked = 0;
  int uneven = 0;
  for (const ClusterSpec& s : railyard::testing::random_valid_specs(300, 99)) {
    const auto d = *make_descriptor(s);
    const ClosShape& c = d.shape();
    if (c.leaf_up_ports > 0 && c.leaf_up_ports % c.spines_per_pod != 0) ++uneven;
    CAPTURE(to_spec_string(s));
    const Fabric f = materialize(d);
    const double flow = railyard::testing::cut_flow_gbps(f, s.hosts / 2);
    CHECK(inventory(d).bisection_gbps == doctest::Approx(flow).epsilon(1e-6));
    ++checked;
  }
  CHECK(checked == 300);
  CHECK(uneven >= 10);  // the uneven-wiring (max flow) branch is exercised
}

// The classic k-ary fat tree (Al-Fares et al., SIGCOMM'08): k pods of k/2 edge
// and k/2 aggregation switches, (k/2)^2 cores, k^3/4 hosts, 5k^2/4 switches,
// full bisection. As a railyard spec: one NIC per host, k/2 hosts per SU (one
// edge leaf each), k/2 SUs per pod, 3 tiers.
TEST_CASE("inventory: the k-ary fat tree closed forms for every even k up to 64") {
  for (int k = 4; k <= 64; k += 2) {
    CAPTURE(k);
    const int64_t hosts = int64_t{k} * k * k / 4;
    const auto d = descriptor(str_cat("rail_fat_tree:hosts=", hosts,
                                      ",gpus_per_host=1,nics_per_host=1,hosts_per_su=", k / 2,
                                      ",switch_radix=", k, ",tiers=3,sus_per_pod=", k / 2));
    const Inventory inv = inventory(d);
    CHECK(d.pods() == k);
    CHECK(inv.tier(SwitchTier::kLeaf).switches == int64_t{k} * k / 2);
    CHECK(inv.tier(SwitchTier::kSpine).switches == int64_t{k} * k / 2);
    CHECK(inv.tier(SwitchTier::kCore).switches == int64_t{k} * k / 4);
    CHECK(inv.switches() == 5 * int64_t{k} * k / 4);
    for (const TierInventory& ti : inv.tiers) CHECK(ti.ports_free == 0);
    CHECK(inv.bisection_gbps == doctest::Approx(hosts * 400 / 2.0));
    // Hosts in different pods: (k/2)^2 paths, one per core.
    CHECK(d.path_count({HostId{0}, NicIndex{0}}, {HostId{static_cast<int32_t>(hosts - 1)},
                                                  NicIndex{0}}) == int64_t{k} * k / 4);
  }
}

// Regression: a one-SU ToR fabric of one-NIC hosts that needs several leaves must
// still keep every switch within its radix (the lone-leaf allowance must not apply).
TEST_CASE("inventory: a one-SU ToR cluster bigger than a switch") {
  auto spec = parse_cluster(
      "tor_fat_tree:hosts=16,nics_per_host=1,gpus_per_host=1,hosts_per_su=16,switch_radix=8");
  REQUIRE(spec.ok());
  const Inventory inv = inventory(*make_descriptor(*spec));
  CHECK(inv.tier(SwitchTier::kLeaf).switches == 4);  // 4 hosts each, 4 uplinks
  for (const TierInventory& ti : inv.tiers) CHECK(ti.ports_free >= 0);
  CHECK_FALSE(
      parse_cluster(
          "tor_fat_tree:hosts=16,nics_per_host=1,gpus_per_host=1,hosts_per_su=16,switch_radix=6")
          .ok());
}

}  // namespace railyard_test_topology_inventory_test
