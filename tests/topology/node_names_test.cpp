#include "railyard/topology/node_names.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../support/clusters.hpp"
#include "railyard/topology/import/csv_topology.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_node_names_test {

using namespace railyard;
using railyard::topology::NodeNamer;

namespace {
topology::ClusterDescriptor<> cluster(std::string_view spec) {
  return railyard::testing::descriptor_of(spec);
}
}  // namespace

TEST_CASE("node_names: placeholders, padding to the widest value, topology order") {
  const auto d = cluster("h100-1024");  // 128 hosts, 4 SUs of 32
  auto def = NodeNamer::parse(topology::kDefaultNodePattern);
  REQUIRE(def.ok());
  CHECK(def->name(d, HostId{7}) == "node0007");
  auto su = NodeNamer::parse("gpu-{su:02}-{slot:03}");
  REQUIRE(su.ok());
  CHECK(su->name(d, HostId{33}) == "gpu-01-001");
  CHECK(NodeNamer::parse("h{host}")->name(d, HostId{5}) == "h5");  // no width: no padding
  // A width narrower than the values widens: 16384 hosts need 5 digits.
  const auto big = cluster("h100-128k-3tier");
  CHECK(def->name(big, HostId{7}) == "node00007");
  for (const auto* d_ptr : {&d, &big}) {
    const auto names = def->names(*d_ptr);
    CHECK(std::is_sorted(names.begin(), names.end()));
    CHECK(def->check(*d_ptr).ok());
  }
  auto pod = NodeNamer::parse("p{pod:01}-s{su:01}-{slot:01}");
  REQUIRE(pod.ok());
  CHECK(pod->name(big, HostId{16383}) == "p31-s255-63");
  CHECK(pod->name(big, HostId{0}) == "p00-s000-00");
}

TEST_CASE("node_names: bad patterns name node_pattern and the text") {
  const auto d = cluster("h100-1024");
  for (const char* bad : {"node{host", "node}", "node{rack}", "node{host:4}", "node{host:00}",
                          "node", "node {host}", "node/{host}", "{host:0x}"}) {
    auto namer = NodeNamer::parse(bad);
    REQUIRE_FALSE_MESSAGE(namer.ok(), bad);
    CHECK(std::string(namer.status().message()).find(std::string("node_pattern=") + bad) !=
          std::string::npos);
  }
  auto clash = NodeNamer::parse("su{su}");
  REQUIRE(clash.ok());
  const absl::Status status = clash->check(d);
  CHECK_FALSE(status.ok());
  CHECK(std::string(status.message()).find("su0") != std::string::npos);
}

TEST_CASE("switch_tree: every host under exactly one leaf-level switch, levels nest") {
  for (const auto& preset : topology::kPresets) {
    CAPTURE(preset.name);
    const auto d = cluster(preset.name);
    auto tree = topology::switch_tree(d, *NodeNamer::parse(topology::kDefaultNodePattern));
    REQUIRE(tree.ok());
    std::vector<int> seen(static_cast<size_t>(d.hosts()), 0);
    std::vector<int> parents(tree->switches.size(), 0);
    for (const auto& sw : tree->switches) {
      for (int32_t h : sw.hosts) ++seen[static_cast<size_t>(h)];
      CHECK((sw.level == 1) == !sw.hosts.empty());
      for (int32_t c : sw.children) {
        CHECK(tree->switches[static_cast<size_t>(c)].level == sw.level - 1);
        ++parents[static_cast<size_t>(c)];
      }
    }
    for (int n : seen) CHECK(n == 1);
    for (size_t i = 0; i < tree->switches.size(); ++i)
      CHECK(parents[i] == (tree->switches[i].level == tree->top_level() ? 0 : 1));
    CHECK(tree->switches.back().level == tree->top_level());
    // Exactly one root.
    CHECK(std::count_if(tree->switches.begin(), tree->switches.end(),
                        [&](const auto& sw) { return sw.level == tree->top_level(); }) == 1);
  }
  const auto d = cluster("h100-16k-3tier");
  auto tree = topology::switch_tree(d, *NodeNamer::parse(topology::kDefaultNodePattern));
  REQUIRE(tree.ok());
  CHECK(tree->switches.front().name == "su00");
  CHECK(tree->switches[64].name == "pod00");
  CHECK(tree->switches.back().name == "core");
  CHECK(tree->switches.size() == 64 + 16 + 1);
}

TEST_CASE("switch_tree: fabric_from_tree and switch_tree(Fabric) are inverse on every preset") {
  for (const auto& preset : topology::kPresets) {
    CAPTURE(preset.name);
    const auto d = cluster(preset.name);
    auto tree = topology::switch_tree(d, *NodeNamer::parse("gpu-{su:02}-{slot:03}"));
    REQUIRE(tree.ok());
    auto fabric = topology::fabric_from_tree(*tree, topology::LinkSpeeds{});
    REQUIRE(fabric.ok());
    auto back = topology::switch_tree(*fabric);
    REQUIRE_MESSAGE(back.ok(), back.status().message());
    CHECK((*tree == *back));
    // Hosts under one SU switch reach each other in one hop; across SUs via the top.
    if (tree->switches.size() > 1)
      CHECK(fabric->count_paths(NodeId{0}, NodeId{d.hosts() - 1}) == 1);
  }
}

TEST_CASE("switch_tree: invalid trees are rejected with the switch or host named") {
  topology::SwitchTree base;
  base.hosts = {"a", "b", "c"};
  base.switches = {{"l0", 1, {}, {0, 1}}, {"l1", 1, {}, {2}}, {"top", 2, {0, 1}, {}}};
  REQUIRE(topology::validate_tree(base).ok());
  struct Case {
    const char* what;
    void (*mutate)(topology::SwitchTree&);
    const char* needle;
  };
  const Case cases[] = {
      {"two leaves", [](topology::SwitchTree& t) { t.switches[1].hosts.push_back(0); }, "host a"},
      {"orphan host", [](topology::SwitchTree& t) { t.hosts.push_back("d"); }, "host d"},
      {"empty",
       [](topology::SwitchTree& t) {
         t.switches.push_back({"e", 1, {}, {}});
       },
       "switch e"},
      {"skip level",
       [](topology::SwitchTree& t) {
         t.switches.push_back({"x", 3, {0}, {}});
       },
       "switch x"},
      {"self loop", [](topology::SwitchTree& t) { t.switches[2].children.push_back(2); }, "switch top"},
      {"dup name", [](topology::SwitchTree& t) { t.switches[1].name = std::string("l0"); }, "l0"},
      {"dup host", [](topology::SwitchTree& t) { t.hosts[2] = std::string("a"); }, "a"},
      {"too deep", [](topology::SwitchTree& t) { t.switches[2].level = 4; }, "switch top"},
      {"mixed", [](topology::SwitchTree& t) { t.switches[2].hosts.push_back(0); }, "switch"},
  };
  for (const Case& c : cases) {
    topology::SwitchTree t = base;
    c.mutate(t);
    const absl::Status s = topology::validate_tree(t);
    CHECK_MESSAGE(!s.ok(), c.what);
    CHECK_MESSAGE(std::string(s.message()).find(c.needle) != std::string::npos, c.what, ": ",
                  s.message());
    CHECK_FALSE(topology::fabric_from_tree(t, topology::LinkSpeeds{}).ok());
  }
}

TEST_CASE("switch_tree: fabric_from_tree refuses link speeds that are not positive or over 10^7") {
  auto tree = topology::csv_topology_from_text("host,leaf,spine\nn0,l0,s0\nn1,l1,s0\n");
  REQUIRE(tree.ok());
  CHECK(topology::fabric_from_tree(*tree, {.host_gbps = 1e7}).ok());
  struct Case {
    topology::LinkSpeeds speeds;
    const char* field;
  };
  for (const Case& c : {Case{{.host_gbps = 0}, "host_gbps"},
                        Case{{.leaf_up_gbps = -5}, "leaf_up_gbps"},
                        Case{{.spine_up_gbps = 2e7}, "spine_up_gbps"},
                        Case{{.host_gbps = std::nan("")}, "host_gbps"}}) {
    auto fabric = topology::fabric_from_tree(*tree, c.speeds);
    REQUIRE_FALSE(fabric.ok());
    CHECK(railyard::has_field(fabric.status(), c.field));
    CHECK(std::string(fabric.status().message()).find("must be a positive Gb/s, at most 10^7") !=
          std::string::npos);
  }
}

}  // namespace railyard_test_topology_node_names_test
