// Partial SUs and pods (shape.hpp): a cluster whose hosts are not a multiple of
// hosts_per_su (or, with tiers=3, whose SUs are not a multiple of sus_per_pod).
// The inventory is checked against counts taken from the materialized Fabric
// and against hand computations; the bisection against a brute-force max flow.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../support/brute_force.hpp"
#include "../support/clusters.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/export/slurm.hpp"
#include "railyard/topology/topology.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_partial_su_test {

using namespace railyard;
using namespace railyard::topology;

namespace {

// What the Fabric graph holds, counted node by node and cable by cable.
struct GraphCounts {
  int64_t hosts = 0;
  std::array<int64_t, 3> switches{};    // leaf, spine, core
  std::array<int64_t, 3> ports_down{};  // cables towards the hosts, per switch tier
  std::array<int64_t, 3> ports_up{};
  int64_t host_leaf = 0, leaf_spine = 0, spine_core = 0;
  int64_t copper = 0, optical = 0;
  std::map<int32_t, int64_t> host_cables_per_leaf;  // leaf node -> host-leaf cables
};

int tier_index(NodeKind k) {
  return k == NodeKind::kLeaf ? 0 : k == NodeKind::kSpine ? 1 : k == NodeKind::kCore ? 2 : -1;
}

GraphCounts count_graph(const Fabric& f) {
  GraphCounts g;
  std::vector<bool> host_seen;
  for (int32_t v = 0; v < f.node_count(); ++v) {
    const NodeId n{v};
    if (f.kind(n) == NodeKind::kNicPort) {
      const auto h = static_cast<size_t>(f.owner(n));
      if (host_seen.size() <= h) host_seen.resize(h + 1, false);
      if (!host_seen[h]) ++g.hosts;
      host_seen[h] = true;
    }
    if (const int t = tier_index(f.kind(n)); t >= 0) ++g.switches[static_cast<size_t>(t)];
  }
  // Cables are two directed links; count the upward one (even id) only.
  for (int32_t l = 0; l < f.link_count(); l += 2) {
    const LinkId id{l};
    const NodeId lower = f.src(id), upper = f.dst(id);
    const LinkTier tier = f.tier(id);
    if (tier == LinkTier::kPcie || tier == LinkTier::kNvlink) continue;
    if (tier == LinkTier::kHostLeaf) {
      ++g.host_leaf;
      ++g.host_cables_per_leaf[upper.value()];
    }
    if (tier == LinkTier::kLeafSpine) ++g.leaf_spine;
    if (tier == LinkTier::kSpineCore) ++g.spine_core;
    if (f.medium(id) == Medium::kCopper) ++g.copper;
    if (f.medium(id) == Medium::kOptical) ++g.optical;
    if (const int t = tier_index(f.kind(upper)); t >= 0) ++g.ports_down[static_cast<size_t>(t)];
    if (const int t = tier_index(f.kind(lower)); t >= 0) ++g.ports_up[static_cast<size_t>(t)];
  }
  return g;
}

// The inventory of `d` against the materialized graph, the partial SU's leaves
// against its real host count, and the bisection against a brute-force max flow.
void check_against_fabric(const ClusterDescriptor<>& d) {
  const std::string spec = to_spec_string(d.spec());
  CAPTURE(spec);
  const Fabric f = materialize(d);
  const Inventory inv = inventory(d);
  const GraphCounts g = count_graph(f);
  CHECK(g.hosts == d.hosts());
  CHECK(inv.hosts == d.hosts());
  CHECK(inv.sus == (d.hosts() + d.hosts_per_su() - 1) / d.hosts_per_su());
  const std::array<SwitchTier, 3> tiers = {SwitchTier::kLeaf, SwitchTier::kSpine,
                                           SwitchTier::kCore};
  for (size_t t = 0; t < 3; ++t) {
    const TierInventory& ti = inv.tier(tiers[t]);
    CHECK(ti.switches == g.switches[t]);
    CHECK(ti.ports_down == g.ports_down[t]);
    CHECK(ti.ports_up == g.ports_up[t]);
    CHECK(ti.ports_free == g.switches[t] * d.spec().switch_radix - g.ports_down[t] - g.ports_up[t]);
    CHECK(ti.ports_free >= 0);
  }
  CHECK(inv.links_host_leaf == g.host_leaf);
  CHECK(inv.links_leaf_spine == g.leaf_spine);
  CHECK(inv.links_spine_core == g.spine_core);
  CHECK(inv.cables_copper == g.copper);
  CHECK(inv.cables_optical == g.optical);
  CHECK(inv.transceivers == 2 * g.optical);
  // Every leaf of an SU is cabled as a full SU's; its hosts are the SU's real ones.
  const ClosShape& c = d.shape();
  const bool tor = d.kind() == Kind::kTorFatTree;
  for (int64_t leaf = 0; leaf < c.total_leaves(); ++leaf) {
    const auto index = static_cast<int32_t>(leaf);
    const int32_t su = index / c.leaves_per_su % c.sus;
    const int32_t in_su = index % c.leaves_per_su;
    int64_t expected = 0;
    if (tor) {  // hosts_per_leaf consecutive hosts, as many as the SU still has
      const int64_t first = int64_t{in_su} * c.hosts_per_leaf;
      expected = std::clamp<int64_t>(d.hosts_in_su(su) - first, 0, c.hosts_per_leaf) *
                 d.nics_per_host();
    } else {
      expected = d.hosts_in_su(su);
    }
    const auto it = g.host_cables_per_leaf.find(f.leaf(SwitchIndex{index}).value());
    CHECK_MESSAGE((it == g.host_cables_per_leaf.end() ? 0 : it->second) == expected,
                  "leaf ", leaf);
  }
  // Bisection: the inventory's (closed form or max flow) against Dinic on the graph.
  CHECK(inv.bisection_gbps ==
        doctest::Approx(railyard::testing::cut_flow_gbps(f, d.hosts() / 2)).epsilon(1e-9));
}

}  // namespace

// The shape is constexpr: a partial SU can be checked by the compiler.
static_assert(derive_shape(ClusterSpec{.hosts = 100}).ok());
static_assert(derive_shape(ClusterSpec{.hosts = 100}).shape.sus == 4);
static_assert(derive_shape(ClusterSpec{.hosts = 100}).shape.total_spines() == 16);
static_assert(ClusterSpec{.hosts = 100}.sus() == 4);

TEST_CASE("partial SU: rail_fat_tree:hosts=100 by hand") {
  const auto d = railyard::testing::descriptor_of("rail_fat_tree:hosts=100");
  CHECK(d.sus() == 4);
  CHECK(d.spec().sus() == 4);
  CHECK(d.partial_su());
  CHECK_FALSE(d.partial_pod());
  CHECK(d.hosts_in_su(0) == 32);
  CHECK(d.hosts_in_su(3) == 4);
  CHECK(d.first_host_of_su(3) == 96);
  const Inventory inv = inventory(d);
  // Leaves of 4 full SUs (8 rails each) with 32 uplinks; 16 spines as for 128 hosts.
  CHECK(inv.tier(SwitchTier::kLeaf).switches == 32);
  CHECK(inv.tier(SwitchTier::kSpine).switches == 16);
  CHECK(inv.links_host_leaf == 800);
  CHECK(inv.links_leaf_spine == 32 * 32);
  // The partial SU's 8 leaves each leave 28 down ports free.
  CHECK(inv.tier(SwitchTier::kLeaf).ports_free == 8 * 28);
  CHECK(inv.tier(SwitchTier::kSpine).ports_free == 0);
  CHECK(inv.transceivers == 2 * (800 + 1024));
  // Half the hosts (50) inject 8 x 400 Gb/s each; the fabric is non-blocking.
  CHECK(inv.bisection_gbps == doctest::Approx(50 * 8 * 400.0));
  check_against_fabric(d);
}

TEST_CASE("partial SU: an oversubscribed cut through the partial SUs by hand") {
  // 2:1: 16 uplinks per leaf over 8 spines. Hosts 0-49 against 50-99. Senders:
  // SU0's leaves 8 x 16 uplinks = 128 cables; SU1's 18 senders per leaf reach
  // SU1's 14 receivers on the same leaf (112) and send 32 more up. Receivers: SU1
  // 112, SU2 8 x 16 downlinks = 128, SU3 8 x 4 hosts = 32. Both sides: 272 cables.
  const auto d = railyard::testing::descriptor_of("rail_fat_tree:hosts=100,oversub=2:1");
  const Inventory inv = inventory(d);
  CHECK(inv.bisection_gbps == doctest::Approx(272 * 400.0));
  check_against_fabric(d);
}

TEST_CASE("partial SU: a cut along the tree that the closed form would miss") {
  // 17 hosts in SUs of 8 (the last has 1), 2:1 on 24 ports: 4 uplinks per leaf
  // over 4 spines. Hosts 0-7 (SU0, whole) send over SU0's 8 leaves x 4 uplinks =
  // 32 cables. A share of leaves (24 x 8/17 = 11 leaves) would claim 44.
  const auto d = railyard::testing::descriptor_of(
      "rail_fat_tree:hosts=17,hosts_per_su=8,switch_radix=24,oversub=2:1");
  CHECK(d.shape().leaf_up_ports == 4);
  CHECK(d.shape().spines_per_pod == 4);
  CHECK(inventory(d).bisection_gbps == doctest::Approx(32 * 400.0));
  check_against_fabric(d);
}

TEST_CASE("partial pod: 5 SUs in pods of 2, the last SU partial, by hand") {
  const auto d = railyard::testing::descriptor_of(
      "rail_fat_tree:hosts=70,hosts_per_su=16,tiers=3,sus_per_pod=2");
  CHECK(d.sus() == 5);
  CHECK(d.pods() == 3);
  CHECK(d.partial_pod());
  CHECK(d.sus_in_pod(2) == 1);
  CHECK(d.hosts_in_su(4) == 6);
  const Inventory inv = inventory(d);
  CHECK(inv.tier(SwitchTier::kLeaf).switches == 5 * 8);
  // A pod of 16 leaves x 16 uplinks on 32 spine down ports: 8 spines, in every pod.
  CHECK(inv.tier(SwitchTier::kSpine).switches == 3 * 8);
  CHECK(inv.links_host_leaf == 70 * 8);
  CHECK(inv.links_leaf_spine == 40 * 16);
  // The last pod's 8 spines miss one SU's 8 x 16 leaf cables: 16 free ports each.
  CHECK(inv.tier(SwitchTier::kSpine).ports_free == 8 * 16);
  CHECK(inv.bisection_gbps == doctest::Approx(35 * 8 * 400.0));
  check_against_fabric(d);
}

TEST_CASE("partial SU: ToR leaves past the last host exist and hold none") {
  // 4 hosts per ToR leaf (32 of 64 ports at 1:1), 8 leaves per SU: the last SU's
  // 6 hosts fill one leaf and half of another; 6 leaves hold none.
  const auto d = railyard::testing::descriptor_of("tor_fat_tree:hosts=70,hosts_per_su=32");
  CHECK(d.shape().hosts_per_leaf == 4);
  const Inventory inv = inventory(d);
  CHECK(inv.tier(SwitchTier::kLeaf).switches == 3 * 8);
  CHECK(inv.links_host_leaf == 70 * 8);
  check_against_fabric(d);
}

TEST_CASE("partial SU: a lone partial SU and the one-tier refusal") {
  // Fewer hosts than one SU: one partial SU; with one NIC a single leaf, no spine.
  const auto one = railyard::testing::descriptor_of("rail_fat_tree:hosts=20,nics_per_host=1");
  CHECK(one.sus() == 1);
  CHECK(inventory(one).tier(SwitchTier::kSpine).switches == 0);
  check_against_fabric(one);
  // Eight rails need spines even for one partial SU.
  check_against_fabric(railyard::testing::descriptor_of("rail_fat_tree:hosts=20"));
  // tiers=1: the one switch is the SU, so hosts_per_su must be hosts.
  auto refused = parse_cluster("rail_only:hosts=20,tiers=1,hosts_per_su=32");
  REQUIRE_FALSE(refused.ok());
  const std::string message(refused.status().message());
  CHECK(message.find("hosts_per_su=32") != std::string::npos);
  CHECK(message.find("no partial SU") != std::string::npos);
  // One pod is still refused when sus_per_pod covers every (partial) SU.
  auto single = parse_cluster("rail_fat_tree:hosts=70,hosts_per_su=16,tiers=3,sus_per_pod=5");
  REQUIRE_FALSE(single.ok());
  CHECK(std::string(single.status().message()).find("sus_per_pod=5") != std::string::npos);
}

TEST_CASE("partial SU: round-trip, descriptor helpers and leaf_of") {
  const auto d = railyard::testing::descriptor_of(
      "rail_only:hosts=45,gpus_per_host=4,nics_per_host=4,hosts_per_su=8,tiers=3,sus_per_pod=2");
  auto again = parse_cluster(to_spec_string(d.spec()));
  REQUIRE(again.ok());
  CHECK(*again == d.spec());
  int64_t sum = 0;
  for (int32_t su = 0; su < d.sus(); ++su) sum += d.hosts_in_su(su);
  CHECK(sum == d.hosts());
  int32_t sus = 0;
  for (int32_t pod = 0; pod < d.pods(); ++pod) sus += d.sus_in_pod(pod);
  CHECK(sus == d.sus());
  // Host h's leaves are those of its SU, rail by rail.
  for (int32_t h = 0; h < d.hosts(); ++h)
    for (int32_t r = 0; r < d.rails(); ++r)
      CHECK(d.leaf_of(HostId{h}, RailId{r}).value() ==
            h / 8 * d.shape().leaves_per_su + r);
  check_against_fabric(d);
}

// Random host counts over every kind: each spec is either refused with a message
// naming a key and its value, or passes the graph-vs-inventory check.
TEST_CASE("partial SU: property sweep of random host counts") {
  std::mt19937 rng(20261202);
  int accepted = 0, refused = 0, partial = 0, partial_pods = 0;
  for (int trial = 0; trial < 400; ++trial) {
    ClusterSpec s;
    s.kind = static_cast<Kind>(rng() % 3);
    const int32_t gn = static_cast<int32_t>(rng() % 4);
    const int32_t gpus[] = {1, 2, 4, 4};
    const int32_t nics[] = {1, 2, 4, 2};
    s.gpus_per_host = gpus[gn];
    s.nics_per_host = nics[gn];
    s.scale_up = s.gpus_per_host * (rng() % 4 == 0 ? 2 : 1);
    const int32_t per_su[] = {1, 2, 3, 4, 6, 8, 12};
    s.hosts_per_su = per_su[rng() % 7];
    s.hosts = 1 + static_cast<int32_t>(rng() % static_cast<uint32_t>(5 * s.hosts_per_su));
    const int32_t radix[] = {4, 8, 12, 16, 24, 32};
    s.switch_radix = radix[rng() % 6];
    s.planes = rng() % 4 == 0 ? 2 : 1;
    if (rng() % 3 == 0) s.oversub = Ratio{2, 1};
    const uint32_t t = rng() % 5;
    if (t == 0) {
      s.tiers = 3;
      s.sus_per_pod = 1 + static_cast<int32_t>(rng() % 3);
      if (rng() % 2) s.pod_oversub = Ratio{2, 1};
    } else if (t == 1) {
      s.tiers = 1;
      s.oversub = Ratio{1, 1};
      if (rng() % 2) s.hosts_per_su = s.hosts;
    }
    CAPTURE(to_spec_string(s));
    const ShapeResult r = derive_shape(s);
    if (!r.ok()) {
      ++refused;
      // A clear error: it starts with the key to change and names its value.
      const std::string message = describe_problem(s, r);
      bool names_key = false;
      for (std::string_view key : kClusterKeys)
        names_key = names_key || message.rfind(str_cat(key, "="), 0) == 0;
      CHECK_MESSAGE(names_key, message);
      auto parsed = parse_cluster(to_spec_string(s));
      CHECK_FALSE(parsed.ok());
      continue;
    }
    ++accepted;
    auto d = make_descriptor(s);
    REQUIRE(d.ok());
    partial += d->partial_su() ? 1 : 0;
    partial_pods += s.tiers == 3 && d->partial_pod() ? 1 : 0;
    check_against_fabric(*d);
  }
  MESSAGE("accepted ", accepted, " (", partial, " with a partial SU, ", partial_pods,
          " with a partial pod), refused ", refused);
  CHECK(partial > 50);
  CHECK(partial_pods > 5);
  CHECK(refused > 10);
}

// The scheduler's view (switch_tree, Slurm blocks) of partial clusters: every
// host under exactly one leaf-level switch of its own SU, no empty switch, each
// pod's children exactly the leaf-level switches of its SUs; Slurm blocks are
// whole SUs and only the partial SU's hosts are in none.
TEST_CASE("partial SU: switch tree and Slurm blocks name every existing host once") {
  auto namer = NodeNamer::parse(kDefaultNodePattern);
  REQUIRE(namer.ok());
  for (std::string_view spec :
       {"rail_fat_tree:hosts=100", "rail_fat_tree:hosts=70,hosts_per_su=16,tiers=3,sus_per_pod=2",
        "tor_fat_tree:hosts=70,hosts_per_su=16,tiers=3,sus_per_pod=2",
        "tor_fat_tree:hosts=45,hosts_per_su=8", "rail_only:hosts=13,hosts_per_su=4"}) {
    CAPTURE(spec);
    const auto d = railyard::testing::descriptor_of(spec);
    auto tree = switch_tree(d, *namer);
    REQUIRE(tree.ok());
    std::vector<int32_t> seen(static_cast<size_t>(d.hosts()), 0);
    std::vector<int32_t> pod_of_switch(tree->switches.size(), -1);
    for (size_t i = 0; i < tree->switches.size(); ++i) {
      const SwitchTree::Switch& sw = tree->switches[i];
      if (sw.level != 1) continue;
      REQUIRE_FALSE(sw.hosts.empty());
      const SuId su = d.su_of(HostId{sw.hosts.front()});
      for (int32_t h : sw.hosts) {
        REQUIRE(h < d.hosts());
        ++seen[static_cast<size_t>(h)];
        CHECK(d.su_of(HostId{h}) == su);
      }
      pod_of_switch[i] = d.pod_of(HostId{sw.hosts.front()}).value();
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int32_t n) { return n == 1; }));
    if (d.tiers() == 3) {
      int32_t pods = 0;
      for (const SwitchTree::Switch& sw : tree->switches) {
        if (sw.level != 2) continue;
        for (int32_t child : sw.children)
          CHECK(pod_of_switch[static_cast<size_t>(child)] == pods);
        int64_t expected = 0;
        for (int32_t p : pod_of_switch) expected += p == pods ? 1 : 0;
        CHECK(static_cast<int64_t>(sw.children.size()) == expected);
        ++pods;
      }
      CHECK(pods == d.pods());
    }
    const exports::BlockPlan plan = exports::block_plan(d);
    if (d.hosts_per_domain() == 1) {
      CHECK(plan.base_hosts == d.hosts_per_su());
      CHECK(static_cast<int32_t>(plan.blocks.size()) == d.hosts() / d.hosts_per_su());
      CHECK(plan.unblocked_hosts == d.hosts() % d.hosts_per_su());
      CHECK(plan.unblocked_first_host + plan.unblocked_hosts == d.hosts());
    }
  }
}

}  // namespace railyard_test_topology_partial_su_test
