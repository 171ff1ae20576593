// Symmetry folding (sim/aggregate.hpp, AdaptiveBundles in sim/collective_sim.hpp)
// against the unfolded simulation: a hand-worked max-min case, random steps
// with and without symmetry (every flow's finish time, flow by flow), and
// simulate_collective with aggregation on and off on every fabric kind and
// collective that fits (time, analytic time, per-link bytes, peak utilization).
#include "railyard/sim/aggregate.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "../support/budget.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/sim/flow_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/topology/failure_spec.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_sim_aggregate_test {

namespace {

using railyard::GpuIndex;
using railyard::HostId;
using railyard::collective::Algorithm;
using railyard::collective::Collective;
using railyard::routing::GpuEndpoint;
using railyard::sim::AggregatedStep;
using railyard::sim::AggregateScratch;
using railyard::sim::CollectiveSimOptions;
using railyard::sim::FlowSimulator;
using railyard::sim::FlowStep;
using railyard::sim::Routing;

bool close(double a, double b, double rel = 1e-9) {
  return std::abs(a - b) <= rel * std::max({std::abs(a), std::abs(b), 1e-12});
}

// Runs `step` whole and folded; every flow's finish time must agree.
void check_folding(const std::vector<double>& caps, const FlowStep& step, size_t* classes = nullptr) {
  FlowSimulator whole(caps), quotient(caps);
  auto w = whole.run_step(step);
  REQUIRE(w.ok());
  AggregatedStep agg;
  AggregateScratch scratch;
  REQUIRE(railyard::sim::aggregate_step(step, caps, agg, scratch));
  int64_t members = 0;
  for (int64_t m : agg.members) members += m;
  CHECK(members == static_cast<int64_t>(step.size()));
  // shared_entry against a count of every link's entries, for every member.
  std::vector<int> entries(caps.size(), 0);
  for (size_t i = 0; i < step.size(); ++i)
    for (int32_t l : step.links(i)) ++entries[static_cast<size_t>(l)];
  std::vector<size_t> first_entry(agg.classes() + 1, 0);
  for (size_t c = 0; c < agg.classes(); ++c)
    first_entry[c + 1] = first_entry[c] + agg.quotient.links(c).size();
  REQUIRE(agg.shared_entry.size() == first_entry.back());
  for (size_t i = 0; i < step.size(); ++i) {
    const auto c = static_cast<size_t>(agg.class_of[i]);
    const auto ls = step.links(i);
    REQUIRE(ls.size() == agg.quotient.links(c).size());
    for (size_t k = 0; k < ls.size(); ++k)
      CHECK((agg.shared_entry[first_entry[c] + k] != 0) == (entries[static_cast<size_t>(ls[k])] > 1));
  }
  auto q = quotient.run_step(agg.quotient);
  REQUIRE(q.ok());
  CHECK(close(w->time_us, q->time_us));
  for (size_t i = 0; i < step.size(); ++i) {
    CAPTURE(i);
    CHECK(close(w->finish_us[i], q->finish_us[static_cast<size_t>(agg.class_of[i])]));
  }
  if (classes != nullptr) *classes = agg.classes();
}

}  // namespace

TEST_CASE("aggregate: three flows with their own access links fold to one (hand-worked)") {
  // Links 0..2: each flow's own 100 Gb/s access; link 3: 200 Gb/s shared. Max-min:
  // 200/3 Gb/s each, so 1 MB takes 1e6 / (200/3 · 125) = 120 µs.
  const std::vector<double> caps = {100, 100, 100, 200};
  FlowStep step;
  for (int32_t i = 0; i < 3; ++i) step.add(std::vector<int32_t>{i, 3}, 1e6);
  AggregatedStep agg;
  AggregateScratch scratch;
  REQUIRE(railyard::sim::aggregate_step(step, caps, agg, scratch));
  REQUIRE(agg.classes() == 1);
  CHECK(agg.members[0] == 3);
  FlowSimulator sim(caps);
  auto r = sim.run_step(agg.quotient);
  REQUIRE(r.ok());
  CHECK(r->time_us == doctest::Approx(120.0).epsilon(1e-12));
  // A fourth flow on flow 0's access link makes it shared: flows 0 and 3 stand
  // alone (100 Gb/s between them), flows 1 and 2 share what is left of link 3.
  step.add(std::vector<int32_t>{0}, 1e6);
  size_t classes = 0;
  check_folding(caps, step, &classes);
  CHECK(classes == 3);
  // Arrivals are not folded.
  step.set_start_us(3, 5.0);
  CHECK_FALSE(railyard::sim::aggregate_step(step, caps, agg, scratch));
}

TEST_CASE("aggregate: link kinds are equal exactly when capacity and tag are") {
  const std::vector<double> caps = {100, 400, 100, 100, 400, 100};
  const std::vector<double> tag = {1.0, 1.0, 2.0, 1.0, 1.0, 2.0};
  const std::vector<int32_t> kinds = railyard::sim::link_kinds(caps, tag);
  REQUIRE(kinds.size() == caps.size());
  for (size_t a = 0; a < caps.size(); ++a)
    for (size_t b = 0; b < caps.size(); ++b) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK((kinds[a] == kinds[b]) == (caps[a] == caps[b] && tag[a] == tag[b]));
    }
  // Without tags only capacities count: links 0, 2, 3, 5 are one kind.
  const std::vector<int32_t> plain = railyard::sim::link_kinds(caps);
  CHECK(plain[0] == plain[2]);
  CHECK(plain[2] == plain[5]);
  CHECK(plain[0] != plain[1]);
  // Private links of different tags keep two flows apart.
  FlowStep step;
  step.add(std::vector<int32_t>{0, 1}, 1e6);  // own link 0 (tag 1), shared link 1
  step.add(std::vector<int32_t>{2, 1}, 1e6);  // own link 2 (tag 2)
  step.add(std::vector<int32_t>{3, 1}, 1e6);  // own link 3 (tag 1): with flow 0
  AggregatedStep agg;
  AggregateScratch scratch;
  REQUIRE(railyard::sim::aggregate_step(step, std::span<const int32_t>(kinds), agg, scratch));
  CHECK(agg.classes() == 2);
  CHECK(agg.class_of[0] == agg.class_of[2]);
  CHECK(agg.class_of[0] != agg.class_of[1]);
}

TEST_CASE("aggregate: random steps give every flow the unfolded finish time") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    CAPTURE(trial);
    // A two-level fabric in miniature: per sender an access link, a few shared
    // middle links, per receiver a delivery link. Sizes, weights and capacities
    // come from small sets so classes form; some trials are fully random.
    const int senders = 2 + static_cast<int>(rng() % 12);
    const int middles = 1 + static_cast<int>(rng() % 4);
    const bool symmetric = trial % 3 != 0;
    std::vector<double> caps;
    for (int i = 0; i < 2 * senders + middles; ++i)
      caps.push_back(symmetric ? (i < 2 * senders ? 100.0 : 50.0 * (1 + i % 2))
                               : 10.0 + static_cast<double>(rng() % 200));
    FlowStep step;
    const int flows = senders + static_cast<int>(rng() % (2 * senders));
    for (int k = 0; k < flows; ++k) {
      const int s = k % senders;
      const int r = senders + static_cast<int>(symmetric ? (k + 1) % senders : rng() % senders);
      const int m = 2 * senders + static_cast<int>(rng() % middles);
      const double bytes = symmetric ? 1e6 * (1 + static_cast<double>(rng() % 2))
                                     : 1e5 * (1 + static_cast<double>(rng() % 50));
      if (rng() % 2 == 0) {
        step.add(std::vector<int32_t>{s, m, r}, bytes);
      } else {
        const int m2 = 2 * senders + static_cast<int>(rng() % middles);
        step.add_multipath(std::vector<int32_t>{s, m, m2, r},
                           std::vector<double>{1.0, 0.5, 0.5, 1.0}, bytes);
      }
    }
    check_folding(caps, step);
  }
}

namespace {

// Every GPU of hosts 0, stride, 2·stride, ... below `hosts`.
std::vector<std::vector<GpuEndpoint>> all_gpus(const railyard::topology::Cluster& c, int32_t hosts,
                                               int32_t stride = 1) {
  std::vector<std::vector<GpuEndpoint>> g(1);
  for (int32_t h = 0; h < hosts; h += stride)
    for (int32_t i = 0; i < c.descriptor.gpus_per_host(); ++i)
      g[0].push_back({HostId{h}, GpuIndex{i}});
  return g;
}

// simulate_collective with aggregation on and off must agree in every figure.
void check_collective(const railyard::topology::Cluster& c,
                      const std::vector<std::vector<GpuEndpoint>>& groups, Collective kind,
                      Algorithm algo, Routing routing, int64_t bytes,
                      const railyard::topology::FailureOverlay* failures, bool expect_bundled) {
  CollectiveSimOptions on;
  on.algorithm = algo;
  on.routing = routing;
  on.failures = failures;
  on.qps = routing == Routing::kAdaptive ? 1 : 2;
  CollectiveSimOptions off = on;
  off.aggregate = false;
  auto a = railyard::sim::simulate_collective(c, groups, kind, bytes, on);
  auto b = railyard::sim::simulate_collective(c, groups, kind, bytes, off);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->bundled == expect_bundled);
  CHECK_FALSE(b->bundled);
  CHECK(close(a->time_us, b->time_us));
  CHECK(close(a->analytic_us, b->analytic_us));
  CHECK(a->flows == b->flows);
  CHECK(a->simulated_flows <= b->simulated_flows);
  REQUIRE(a->link_bytes.size() == b->link_bytes.size());
  for (size_t l = 0; l < a->link_bytes.size(); ++l) {
    CAPTURE(l);
    CHECK(close(a->link_bytes[l], b->link_bytes[l], 1e-9));
  }
  REQUIRE(a->link_peak_utilization.size() == b->link_peak_utilization.size());
  for (size_t l = 0; l < a->link_peak_utilization.size(); ++l) {
    CAPTURE(l);
    CHECK(close(a->link_peak_utilization[l], b->link_peak_utilization[l], 1e-9));
  }
}

struct FabricCase {
  const char* spec;
  int32_t hosts;  // job: every GPU of every `stride`-th host below `hosts`
  int32_t stride;
  bool bundled;   // adaptive bundles expected on the healthy fabric
};
const FabricCase kFabricCases[] = {
    {"rail_fat_tree:hosts=16,hosts_per_su=4", 16, 2, true},
    {"rail_fat_tree:hosts=16,hosts_per_su=4,oversub=2", 12, 1, true},
    {"rail_fat_tree:hosts=64,hosts_per_su=8,tiers=3,sus_per_pod=2", 64, 13, true},
    // 4 leaf uplinks over 3 spines: the adaptive split is uneven, no bundles.
    {"rail_fat_tree:hosts=48,hosts_per_su=4,tiers=3,sus_per_pod=3,pod_oversub=2", 40, 7, false},
    {"rail_fat_tree:hosts=16,hosts_per_su=2,tiers=3,sus_per_pod=2,nic_gbps=200,planes=2", 16,
     2, true},
    {"tor_fat_tree:hosts=32,hosts_per_su=8", 32, 3, true},
    {"rail_fat_tree:hosts=32,nics_per_host=2,planes=2", 32, 3, true},
    {"rail_fat_tree:hosts=12,gpus_per_host=2,nics_per_host=2,hosts_per_su=6,switch_radix=12", 12,
     1, true},
};

// Fabrics [first, last) of kFabricCases, folded against unfolded. Instrumented
// builds (the unfolded adaptive reference is slow there) check a quarter of the
// fabrics, as the other sweeps do: the 2-tier and the 2-plane 3-tier one, each
// in its own test case, and each on every other host of its job (half the
// GPUs, an eighth of the all-to-all work): the 2-plane case on its full 64 GPUs
// ran past the 300 s per-test timeout instrumented on a slow CI machine. The
// halved job still spans every pod, so every tier's links are exercised.
void check_fabrics(size_t first, size_t last) {
  const int fabric_stride = railyard::testing::kSanitizedBuild ? 4 : 1;
  const int32_t host_stride_factor = railyard::testing::kSanitizedBuild ? 2 : 1;
  for (size_t i = first; i < last; i += static_cast<size_t>(fabric_stride)) {
    const FabricCase& k = kFabricCases[i];
    const std::string spec = k.spec;
    CAPTURE(spec);
    auto c = railyard::topology::make_cluster(k.spec);
    REQUIRE(c.ok());
    const auto groups = all_gpus(*c, k.hosts, k.stride * host_stride_factor);
    for (Routing routing : {Routing::kAdaptive, Routing::kEcmp}) {
      CAPTURE(static_cast<int>(routing));
      const bool bundled = routing == Routing::kAdaptive && k.bundled;
      check_collective(*c, groups, Collective::kAllToAll, Algorithm::kPairwise, routing,
                       int64_t{1} << 26, nullptr, bundled);
      check_collective(*c, groups, Collective::kAllReduce, Algorithm::kRing, routing,
                       int64_t{1} << 28, nullptr, bundled);
      check_collective(*c, groups, Collective::kAllReduce, Algorithm::kDoubleBinaryTree, routing,
                       int64_t{1} << 24, nullptr, bundled);
      check_collective(*c, groups, Collective::kAllReduce, Algorithm::kHierarchical, routing,
                       int64_t{1} << 28, nullptr, bundled);
    }
  }
}

}  // namespace

TEST_CASE("aggregate: simulate_collective folded equals unfolded on every fabric kind (1 of 2)") {
  check_fabrics(0, std::size(kFabricCases) / 2);
}

TEST_CASE("aggregate: simulate_collective folded equals unfolded on every fabric kind (2 of 2)") {
  check_fabrics(std::size(kFabricCases) / 2, std::size(kFabricCases));
}

TEST_CASE("aggregate: failures turn the bundles off and folding stays exact") {
  auto c = railyard::topology::make_cluster("rail_fat_tree:hosts=64,hosts_per_su=8,tiers=3,sus_per_pod=2");
  REQUIRE(c.ok());
  railyard::topology::FailureOverlay overlay(c->fabric);
  REQUIRE(railyard::topology::apply_failures(c->fabric, "leaf0/1,spine2/0@0.5", overlay).ok());
  const auto groups = all_gpus(*c, 64, 17);  // 4 hosts over both pods
  if (!railyard::testing::kSanitizedBuild)  // slow instrumented: the ring below still runs
    check_collective(*c, groups, Collective::kAllToAll, Algorithm::kPairwise, Routing::kAdaptive,
                     int64_t{1} << 26, &overlay, false);
  check_collective(*c, groups, Collective::kAllReduce, Algorithm::kRing, Routing::kAdaptive,
                   int64_t{1} << 28, &overlay, false);
}

TEST_CASE("aggregate: an all-to-all step folds to few classes under adaptive routing") {
  auto c = railyard::topology::make_cluster("rail_fat_tree:hosts=64,hosts_per_su=8,tiers=3,sus_per_pod=2");
  REQUIRE(c.ok());
  CollectiveSimOptions o;
  o.algorithm = Algorithm::kPairwise;
  o.routing = Routing::kAdaptive;
  auto r = railyard::sim::simulate_collective(*c, all_gpus(*c, 64, 1), Collective::kAllToAll,
                                              int64_t{1} << 26, o);
  REQUIRE(r.ok());
  CHECK(r->bundled);
  // 511 steps of 512 flows; a step folds to a few classes per leaf pair.
  CHECK(r->flows == 511 * 512);
  CHECK(r->simulated_flows * 2 < r->flows);
}

}  // namespace railyard_test_sim_aggregate_test
