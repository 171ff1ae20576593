// CollectiveReport::link_peak_utilization, the busiest step's load per link,
// against what max-min sharing guarantees and a hand-worked hierarchical
// all-reduce whose NICs idle while NVLink works.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_sim_peak_utilization_test {

namespace {

using railyard::GpuIndex;
using railyard::HostId;
using railyard::LinkId;
using railyard::NicIndex;
using railyard::NicPort;
using railyard::collective::Algorithm;
using railyard::collective::Collective;
using railyard::routing::GpuEndpoint;
using railyard::sim::CollectiveSimOptions;
using railyard::sim::simulate_collective;

std::vector<std::vector<GpuEndpoint>> all_gpus(int32_t hosts) {
  std::vector<std::vector<GpuEndpoint>> g(1);
  for (int32_t h = 0; h < hosts; ++h)
    for (int32_t i = 0; i < 8; ++i) g[0].push_back({HostId{h}, GpuIndex{i}});
  return g;
}

}  // namespace

TEST_CASE(
    "peak utilization: a step's load never exceeds capacity, and the NIC saturates "
    "in its steps while idling through the NVLink phases") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const railyard::topology::Fabric& f = cluster->fabric;
  // Hierarchical all-reduce on 2 hosts: NVLink reduce-scatter, then each rail's
  // two GPUs all-reduce an eighth over the network, then NVLink all-gather.
  // Unpipelined and without latency: the phases run one after the other and
  // the run lasts at least the sum of its steps' transfer times.
  CollectiveSimOptions o;
  o.algorithm = Algorithm::kHierarchical;
  o.pipeline.enabled = false;
  o.latency = {.switch_ns = 0, .nvswitch_ns = 0, .nic_ns = 0, .step_overhead_us = 0};
  auto r = simulate_collective(*cluster, all_gpus(2), Collective::kAllReduce, int64_t{1} << 30, o);
  REQUIRE(r.ok());
  REQUIRE(r->link_peak_utilization.size() == static_cast<size_t>(f.link_count()));
  REQUIRE(r->link_utilization.size() == static_cast<size_t>(f.link_count()));
  for (size_t l = 0; l < r->link_utilization.size(); ++l) {
    CAPTURE(l);
    CHECK(r->link_peak_utilization[l] <= 1 + 1e-9);
    CHECK(r->link_peak_utilization[l] >= r->link_utilization[l] - 1e-12);
    CHECK((r->link_peak_utilization[l] > 0) == (r->link_utilization[l] > 0));
  }
  // Host 0's NIC on rail 0 toward its leaf: in the network phase it is the
  // only way out for rail 0's share, alone at 400 Gb/s, so full while it sends.
  const LinkId nic = f.host_uplink(NicPort{HostId{0}, NicIndex{0}});
  const auto at = static_cast<size_t>(nic.value());
  CHECK(r->link_peak_utilization[at] == doctest::Approx(1.0).epsilon(1e-6));
  // Over the run it idled through the NVLink phases.
  CHECK(r->link_utilization[at] > 0);
  CHECK(r->link_utilization[at] < r->link_peak_utilization[at] - 0.01);
}

TEST_CASE("peak utilization: kept only with keep_links") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CollectiveSimOptions o;
  o.keep_links = false;
  auto r = simulate_collective(*cluster, all_gpus(2), Collective::kAllReduce, int64_t{1} << 26, o);
  REQUIRE(r.ok());
  CHECK(r->link_peak_utilization.empty());
  CHECK(r->link_utilization.empty());
}

}  // namespace railyard_test_sim_peak_utilization_test
