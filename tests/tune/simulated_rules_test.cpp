// Tests for railyard/tune/simulated_rules.hpp: the rules NCCL acts on are
// simulated under the routing the job deploys, never the planned bound unless
// asked, and their bands follow the faster algorithm.
#include "railyard/tune/simulated_rules.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "railyard/core/strings.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_tune_simulated_rules_test {

namespace {

using railyard::GpuIndex;
using railyard::HostId;
using railyard::routing::GpuEndpoint;
namespace sim = railyard::sim;
namespace tune = railyard::tune;

// One group per local GPU index over 32 hosts taken round robin from the 4 SUs
// of h100-1024 (0, 32, 64, 96, 1, 33, ...): every ring hop crosses the spines,
// where ECMP collides and the planned oracle does not.
std::vector<std::vector<GpuEndpoint>> interleaved_groups() {
  std::vector<std::vector<GpuEndpoint>> groups(8);
  for (int32_t g = 0; g < 8; ++g)
    for (int32_t i = 0; i < 32; ++i)
      groups[static_cast<size_t>(g)].push_back({HostId{(i % 4) * 32 + i / 4}, GpuIndex{g}});
  return groups;
}

// The ring's bus bandwidth at 4 MiB as the first rule's first note states it.
std::string ring_note(const std::vector<tune::NotedRule>& rules) {
  REQUIRE_FALSE(rules.empty());
  REQUIRE_FALSE(rules.front().notes.empty());
  const std::string& note = rules.front().notes.front();
  const size_t at = note.find("ring ");
  REQUIRE(at != std::string::npos);
  return note.substr(at + 5, note.find(',', at) - (at + 5));
}

std::string ring_busbw(const railyard::topology::Cluster& cluster,
                       const std::vector<std::vector<GpuEndpoint>>& groups,
                       sim::CollectiveSimOptions o) {
  o.algorithm = railyard::collective::Algorithm::kRing;
  auto r = sim::simulate_collective(cluster, groups, railyard::collective::Collective::kAllReduce,
                                    tune::kSimulatedRuleSizes.front(), o);
  REQUIRE(r.ok());
  return railyard::fixed(r->busbw_gbps, 1);
}

}  // namespace

TEST_CASE("simulated rules: timed under the deployed routing, not the planned bound") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const auto groups = interleaved_groups();
  sim::CollectiveSimOptions ecmp;  // the default: ECMP, one QP
  sim::CollectiveSimOptions planned;
  planned.routing = sim::Routing::kPlanned;
  sim::CollectiveSimOptions steered;
  steered.routing = sim::Routing::kSteered;
  steered.qps = 4;
  const std::string ecmp_gbps = ring_busbw(*cluster, groups, ecmp);
  const std::string planned_gbps = ring_busbw(*cluster, groups, planned);
  const std::string steered_gbps = ring_busbw(*cluster, groups, steered);
  REQUIRE(ecmp_gbps != planned_gbps);  // the case tells the two apart

  auto by_default = tune::simulated_allreduce_rules(*cluster, groups, 32);
  REQUIRE(by_default.ok());
  CHECK(ring_note(*by_default) == ecmp_gbps);
  auto deployed = tune::simulated_allreduce_rules(*cluster, groups, 32, steered);
  REQUIRE(deployed.ok());
  CHECK(ring_note(*deployed) == steered_gbps);
  auto bound = tune::simulated_allreduce_rules(*cluster, groups, 32, planned);
  REQUIRE(bound.ok());
  CHECK(ring_note(*bound) == planned_gbps);
  // Bands: contiguous from 4 MiB, each rule NCCL's all-reduce, simple protocol.
  for (const auto* rules : {&*by_default, &*deployed, &*bound}) {
    CHECK(rules->front().rule.min_bytes == static_cast<uint64_t>(tune::kSimulatedRuleSizes[0]));
    for (size_t i = 1; i < rules->size(); ++i)
      CHECK((*rules)[i].rule.min_bytes == (*rules)[i - 1].rule.max_bytes + 1);
    for (const tune::NotedRule& r : *rules) {
      CHECK(r.rule.proto == tune::nccl::kProtoSimple);
      CHECK(r.rule.nodes == 32);
      CHECK(r.rule.ranks == 32);
    }
  }
}

}  // namespace railyard_test_tune_simulated_rules_test
