#include "railyard/topology/failure_spec.hpp"

#include <doctest/doctest.h>

#include <string>

#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_failure_spec_test {

using namespace railyard;

TEST_CASE("failure_spec: cables, switches, degraded links, errors name the item") {
  auto cluster = topology::make_cluster("h100-16k-3tier");
  REQUIRE(cluster.ok());
  const topology::Fabric& f = cluster->fabric;
  topology::FailureOverlay overlay(f);
  REQUIRE(topology::apply_failures(f, "leaf3/2,spine1,spine4/0@0.25", overlay).ok());
  CHECK(overlay.is_down(f.leaf_uplink(SwitchIndex{3}, 2)));
  CHECK(overlay.is_down(topology::Fabric::reverse(f.leaf_uplink(SwitchIndex{3}, 2))));
  CHECK(overlay.is_down(f.leaf_uplink(SwitchIndex{3}, 1)));  // leaf 3 uplink 1 goes to spine 1
  CHECK_FALSE(overlay.is_down(f.leaf_uplink(SwitchIndex{3}, 5)));
  for (LinkId l : f.out_links(f.spine(SwitchIndex{1}))) CHECK(overlay.is_down(l));
  CHECK(overlay.fraction(f.spine_uplink(SwitchIndex{4}, 0)) == doctest::Approx(0.25));
  struct Case {
    const char* text;
    const char* needle;
  };
  for (Case c : {Case{"leaf9999/0", "down=leaf9999/0"}, Case{"leaf3/32", "down=leaf3/32"},
                 Case{"router1", "down=router1"}, Case{"leaf3/x", "down=leaf3/x"},
                 Case{"leaf3/1@1.5", "down=leaf3/1@1.5"}, Case{"leaf3/1@", "down=leaf3/1@"},
                 Case{"core2/0", "down=core2/0"}, Case{"", "down="}, Case{"spine", "down=spine"}}) {
    topology::FailureOverlay o(f);
    const absl::Status s = topology::apply_failures(f, c.text, o);
    CHECK_FALSE_MESSAGE(s.ok(), c.text);
    CHECK_MESSAGE(std::string(s.message()).find(c.needle) != std::string::npos, s.message());
  }
}

}  // namespace railyard_test_topology_failure_spec_test
