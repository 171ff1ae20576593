#include "railyard/placement/tree_order.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../support/clusters.hpp"
#include "railyard/topology/node_names.hpp"
#include "railyard/topology/switch_tree.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_placement_tree_order_test {

using namespace railyard;
using railyard::testing::descriptor_of;
using railyard::testing::message_text;

TEST_CASE("tree_order: on a spec's tree, hosts group as the spec's pods and SUs group them") {
  // rail-optimized HGX clusters: the tree's leaf-level switch is the SU, level 2
  // the pod (or the one spine), so the tree order must equal the descriptor's
  // grouping (detail::topology_host_order keys pod, SU, leaf, NVLink domain).
  std::mt19937 rng(7);
  for (const char* spec : {"h100-1024", "h100-1024-2to1", "h100-16k-3tier"}) {
    CAPTURE(spec);
    const auto d = descriptor_of(spec);
    auto tree = topology::switch_tree(d, *topology::NodeNamer::parse("n{host}"));
    REQUIRE(tree.ok());
    for (int round = 0; round < 20; ++round) {
      std::vector<HostId> hosts;
      for (int32_t h = 0; h < d.hosts(); ++h) hosts.push_back(HostId{h});
      std::shuffle(hosts.begin(), hosts.end(), rng);
      hosts.resize(1 + rng() % std::min<size_t>(hosts.size(), 300));
      CHECK(placement::tree_host_order(*tree, hosts) ==
            placement::detail::topology_host_order(d, hosts));
    }
  }
}

TEST_CASE("tree_order: order_on_tree keeps a host's GPUs consecutive and checks its input") {
  // Two leaves of 4 hosts under one spine; the job gets 3 hosts of leaf b and 1 of leaf a.
  topology::SwitchTree tree;
  tree.hosts = {"a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3"};
  tree.switches = {{"a", 1, {}, {0, 1, 2, 3}}, {"b", 1, {}, {4, 5, 6, 7}}, {"top", 2, {0, 1}, {}}};
  auto plan = placement::parse_plan("tp=4,dp=4");
  REQUIRE(plan.ok());
  const std::vector<HostId> given = {HostId{1}, HostId{6}, HostId{4}, HostId{5}};
  auto grouped = placement::order_on_tree(tree, *plan, 4, given, true);
  REQUIRE(grouped.ok());
  // Bigger group (leaf b, 3 hosts) first, then by host id; leaf a last.
  CHECK(grouped->hosts == std::vector<HostId>{HostId{4}, HostId{5}, HostId{6}, HostId{1}});
  CHECK(grouped->device(5).host == HostId{5});
  CHECK(grouped->device(5).gpu == GpuIndex{1});
  auto naive = placement::order_on_tree(tree, *plan, 4, given, false);
  REQUIRE(naive.ok());
  CHECK(naive->hosts == given);
  auto first = placement::order_on_tree(tree, *plan, 8, {}, true);
  REQUIRE(first.ok());
  CHECK(first->hosts == std::vector<HostId>{HostId{0}, HostId{1}});

  struct Bad {
    int32_t gpus;
    std::vector<HostId> hosts;
    const char* starts;
  };
  for (const Bad& bad : {Bad{0, {}, "gpus_per_host=0:"}, Bad{3, {}, "job=tp=4,cp=1,ep=1,dp=4,pp=1,order=tp-cp-ep-dp-pp: 16 ranks do not fill"},
                         Bad{4, {HostId{1}}, "hosts=1 hosts:"},
                         Bad{4, {HostId{1}, HostId{1}, HostId{2}, HostId{3}}, "hosts=1: listed twice"},
                         Bad{4, {HostId{1}, HostId{9}, HostId{2}, HostId{3}}, "hosts=9: out of range"},
                         Bad{1, {}, "job=tp=4,cp=1,ep=1,dp=4,pp=1,order=tp-cp-ep-dp-pp: needs 16 hosts"}}) {
    auto r = placement::order_on_tree(tree, *plan, bad.gpus, bad.hosts, true);
    REQUIRE_FALSE(r.ok());
    CHECK_MESSAGE(message_text(r.status()).starts_with(bad.starts), message_text(r.status()));
  }
}

}  // namespace railyard_test_placement_tree_order_test
