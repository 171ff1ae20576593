#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "../support/brute_force.hpp"
#include "../support/random_shapes.hpp"
#include "railyard/topology/topology.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_fabric_test {

using namespace railyard;
using namespace railyard::topology;

namespace {
std::vector<std::vector<int32_t>> graph_paths(const Fabric& f, NodeId a, NodeId b,
                                              const FailureOverlay* fail) {
  std::vector<std::vector<int32_t>> out;
  f.for_each_path(
      a, b,
      [&](const Path& p) {
        std::vector<int32_t> ids;
        for (LinkId l : p.view()) ids.push_back(l.value());
        out.push_back(ids);
      },
      fail);
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("fabric: host internals — PCIe pairs, NVLink domains, capacities") {
  auto cluster = make_cluster("gb200-nvl72-576");
  REQUIRE(cluster.ok());
  const Fabric& f = cluster->fabric;
  // Every GPU: one NVLink to its domain switch at 7200 Gb/s, one PCIe link to its NIC.
  std::vector<int> gpus_per_domain(8, 0);
  for (int32_t v = 0; v < f.node_count(); ++v) {
    const NodeId n{v};
    if (f.kind(n) != NodeKind::kGpu) continue;
    int nvlink = 0, pcie = 0;
    for (LinkId l : f.out_links(n)) {
      if (f.tier(l) == LinkTier::kNvlink) {
        ++nvlink;
        CHECK(f.capacity_gbps(l) == 7200);
        ++gpus_per_domain[static_cast<size_t>(f.owner(f.dst(l)))];
        CHECK(f.owner(f.dst(l)) == f.owner(n) / 18);
      }
      if (f.tier(l) == LinkTier::kPcie) ++pcie;
    }
    CHECK(nvlink == 1);
    CHECK(pcie == 1);
  }
  for (int count : gpus_per_domain) CHECK(count == 72);
  CHECK(f.node_name(f.gpu(HostId{3}, GpuIndex{2})) == "host3.gpu2");
  CHECK(f.node_name(f.nic_port({HostId{3}, NicIndex{1}})) == "host3.nic1.p0");
}

TEST_CASE("fabric: failures overlay — down links vanish from paths, brute force agrees") {
  std::mt19937 rng(3);
  int scenarios = 0;
  for (const ClusterSpec& s : railyard::testing::random_valid_specs(120, 404)) {
    CAPTURE(to_spec_string(s));
    const auto d = *make_descriptor(s);
    const Fabric f = materialize(d);
    if (d.shape().leaf_up_ports == 0) continue;
    FailureOverlay fail(f);
    // Take down a few random network cables (leaf-spine and spine-core) and
    // degrade one more.
    std::vector<int32_t> network;
    for (int32_t l = 0; l < f.link_count(); l += 2)
      if (f.tier(LinkId{l}) == LinkTier::kLeafSpine || f.tier(LinkId{l}) == LinkTier::kSpineCore)
        network.push_back(l);
    for (int k = 0; k < 3; ++k) fail.set_cable_down(LinkId{network[rng() % network.size()]});
    const LinkId degraded{network[rng() % network.size()]};
    if (!fail.is_down(degraded)) fail.set_cable_fraction(degraded, 0.25);
    CHECK(fail.down_links() >= 2);

    for (int trial = 0; trial < 20; ++trial) {
      const NodeId a = f.nic_port({HostId{static_cast<int32_t>(rng() % s.hosts)},
                                   NicIndex{static_cast<int32_t>(rng() % s.nics_per_host)}});
      const NodeId b = f.nic_port({HostId{static_cast<int32_t>(rng() % s.hosts)},
                                   NicIndex{static_cast<int32_t>(rng() % s.nics_per_host)}});
      if (a == b) continue;
      const auto paths = graph_paths(f, a, b, &fail);
      CHECK(paths == railyard::testing::brute_force_paths(f, a, b, &fail));
      CHECK(f.count_paths(a, b, &fail) == static_cast<int64_t>(paths.size()));
      for (const auto& p : paths)
        for (int32_t l : p) CHECK_FALSE(fail.is_down(LinkId{l}));
      // Healthy paths that avoid every down link are exactly the surviving
      // ones whenever the meeting tier is unchanged.
      const auto healthy = graph_paths(f, a, b, nullptr);
      std::vector<std::vector<int32_t>> survivors;
      for (const auto& p : healthy)
        if (std::none_of(p.begin(), p.end(), [&](int32_t l) { return fail.is_down(LinkId{l}); }))
          survivors.push_back(p);
      if (!survivors.empty()) CHECK(paths == survivors);
    }
    ++scenarios;
  }
  CHECK(scenarios > 60);
}

TEST_CASE("fabric: a failed switch and a fully cut leaf") {
  auto cluster = make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const Fabric& f = cluster->fabric;
  const auto& d = cluster->descriptor;
  const NicPort a{HostId{0}, NicIndex{0}};
  const NicPort b{HostId{32}, NicIndex{0}};
  const NodeId na = f.nic_port(a), nb = f.nic_port(b);
  CHECK(f.count_paths(na, nb) == 64);

  FailureOverlay fail(f);
  fail.set_node_down(f.spine(SwitchIndex{0}));  // 2 cables from each leaf
  CHECK(f.count_paths(na, nb, &fail) == 60);

  // Degrading a link keeps every path but lowers the capacity the overlay reports.
  FailureOverlay degrade(f);
  const LinkId up0 = f.leaf_uplink(d.leaf_of(a), 0);
  degrade.set_cable_fraction(up0, 0.5);
  CHECK(f.count_paths(na, nb, &degrade) == 64);
  CHECK(degrade.capacity_gbps(up0) == doctest::Approx(200));
  CHECK(degrade.capacity_gbps(Fabric::reverse(up0)) == doctest::Approx(200));

  // All uplinks of the source leaf down: no path to another leaf, same leaf fine.
  FailureOverlay cut(f);
  for (int32_t j = 0; j < d.shape().leaf_up_ports; ++j)
    cut.set_cable_down(f.leaf_uplink(d.leaf_of(a), j));
  CHECK(f.count_paths(na, nb, &cut) == 0);
  CHECK(f.count_paths(na, f.nic_port({HostId{5}, NicIndex{0}}), &cut) == 1);
  cut.clear();
  CHECK(f.count_paths(na, nb, &cut) == 64);
}

TEST_CASE("fabric: builder makes arbitrary topologies with the same path rules") {
  // Two leaves under two spines, one leaf with two hosts; a hand-checkable fabric.
  FabricBuilder b;
  const NodeId h0 = b.add_node(NodeKind::kNicPort, 0);
  const NodeId h1 = b.add_node(NodeKind::kNicPort, 1);
  const NodeId h2 = b.add_node(NodeKind::kNicPort, 2);
  const NodeId l0 = b.add_node(NodeKind::kLeaf, 0);
  const NodeId l1 = b.add_node(NodeKind::kLeaf, 1);
  const NodeId s0 = b.add_node(NodeKind::kSpine, 0);
  const NodeId s1 = b.add_named_node(NodeKind::kSpine, 1, "sw-core-a");
  b.add_cable(h0, l0, LinkTier::kHostLeaf, 100, 10, Medium::kCopper);
  b.add_cable(h1, l0, LinkTier::kHostLeaf, 100, 10, Medium::kCopper);
  b.add_cable(h2, l1, LinkTier::kHostLeaf, 100, 10, Medium::kCopper);
  b.add_cable(l0, s0, LinkTier::kLeafSpine, 100, 10, Medium::kOptical);
  b.add_cable(l0, s1, LinkTier::kLeafSpine, 100, 10, Medium::kOptical);
  b.add_cable(l0, s1, LinkTier::kLeafSpine, 100, 10, Medium::kOptical);
  b.add_cable(l1, s0, LinkTier::kLeafSpine, 100, 10, Medium::kOptical);
  b.add_cable(l1, s1, LinkTier::kLeafSpine, 100, 10, Medium::kOptical);
  const Fabric f = std::move(b).build();
  CHECK_FALSE(f.has_descriptor());
  CHECK(f.count_paths(h0, h1) == 1);
  CHECK(f.count_paths(h0, h2) == 3);  // via s0, and via either of two l0-s1 cables
  CHECK(f.count_paths(h2, h0) == 3);
  const auto paths = f.paths(h0, h2);
  REQUIRE(paths.size() == 3);
  for (const Path& p : paths) {
    CHECK(p.hops == 4);
    CHECK(f.src(p.view().front()) == h0);
    CHECK(f.dst(p.view().back()) == h2);
    for (size_t i = 1; i < p.view().size(); ++i)
      CHECK(f.dst(p.view()[i - 1]) == f.src(p.view()[i]));
  }
  CHECK(f.node_name(s1) == "sw-core-a");
  CHECK(f.node_name(s0) == "spine0");  // unnamed nodes keep generated names
}

TEST_CASE("fabric: GPUs outnumbering NICs all reach the network") {
  for (const char* text : {"rail_fat_tree:hosts=32,nics_per_host=4",
                           "rail_fat_tree:hosts=32,nics_per_host=2,planes=2"}) {
    CAPTURE(text);
    auto cluster = make_cluster(text);
    REQUIRE(cluster.ok());
    const Fabric& f = cluster->fabric;
    const auto& d = cluster->descriptor;
    for (int32_t g = 0; g < d.gpus_per_host(); ++g) {
      const NodeId gpu = f.gpu(HostId{5}, GpuIndex{g});
      std::vector<NodeId> ports;
      for (LinkId l : f.out_links(gpu))
        if (f.tier(l) == LinkTier::kPcie) ports.push_back(f.dst(l));
      REQUIRE(ports.size() == static_cast<size_t>(d.planes()));
      for (int32_t p = 0; p < d.planes(); ++p)
        CHECK(ports[static_cast<size_t>(p)] ==
              f.nic_port({HostId{5}, d.nic_of_gpu(GpuIndex{g}), PlaneId{p}}));
    }
    // The closed-form link ids still land on the right cables.
    const NicPort port{HostId{5}, NicIndex{1}, PlaneId{0}};
    CHECK(f.src(f.host_uplink(port)) == f.nic_port(port));
    CHECK(f.dst(f.host_uplink(port)) == f.leaf(d.leaf_of(port)));
  }
}

TEST_CASE("fabric: paths between switches of an imported-style graph, none from GPUs") {
  auto cluster = make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const Fabric& f = cluster->fabric;
  // Leaf to leaf: the leaf-spine paths only (16 spines x 2 x 2 cables).
  CHECK(f.count_paths(f.leaf(SwitchIndex{0}), f.leaf(SwitchIndex{8})) == 64);
  CHECK(f.paths(f.leaf(SwitchIndex{0}), f.leaf(SwitchIndex{8})).size() == 64);
  CHECK(f.count_paths(f.gpu(HostId{0}, GpuIndex{0}), f.gpu(HostId{40}, GpuIndex{0})) == 0);
  CHECK(f.count_paths(f.leaf(SwitchIndex{0}), f.nic_port({HostId{40}, NicIndex{0}})) == 0);
}

}  // namespace railyard_test_topology_fabric_test
