// The latency constants a user sets (collective::LatencyModel: --switch-ns,
// --nic-ns, --nvswitch-ns; the spec's cable lengths) move the simulator's and
// congestion control's results by exactly the closed-form amount: per step, Δ
// per switch (NIC, NVSwitch) the step's path crosses, and 5 ns per metre of
// cable (docs/constants.md#latency). Paths are counted by hand from the fabric's
// construction (docs/cluster-spec.md#shape), not read from railyard.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "railyard/cc/derive.hpp"
#include "railyard/collective/cost.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_cc_latency_constants_test {

namespace {

using railyard::GpuIndex;
using railyard::HostId;
using railyard::collective::Collective;
using railyard::collective::LatencyModel;
using railyard::routing::GpuEndpoint;
using Groups = std::vector<std::vector<GpuEndpoint>>;

constexpr double kNsPerMetre = 5.0;  // light in fibre, docs/constants.md#fabric

// Alpha (µs) and total time of a ring all-reduce over `ranks` under `m`.
struct Timed {
  double latency_us = 0;
  double time_us = 0;
  int64_t steps = 0;
};
Timed ring(const std::string& spec, const Groups& groups, const LatencyModel& m,
           int64_t bytes = int64_t{1} << 20) {
  auto cluster = railyard::topology::make_cluster(spec);
  REQUIRE_MESSAGE(cluster.ok(), cluster.status().message());
  railyard::sim::CollectiveSimOptions o;
  o.latency = m;
  o.channels = 1;
  // The per-step model (every step alpha + transfer): the closed forms below
  // count steps; how steps pipeline is checked in sim/pipelining_validation_test.
  o.pipeline.enabled = false;
  auto r = railyard::sim::simulate_collective(*cluster, groups, Collective::kAllReduce, bytes, o);
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  return {r->latency_us, r->time_us, r->steps};
}

// GPU 0 of each host.
Groups first_gpus(std::initializer_list<int32_t> hosts) {
  Groups g(1);
  for (int32_t h : hosts) g[0].push_back({HostId{h}, GpuIndex{0}});
  return g;
}

}  // namespace

// Two hosts in different SUs of h100-1024: every step crosses the network via a
// spine: 3 switches, 2 NICs, 2 host-leaf (30 m) and 2 leaf-spine (50 m) cables.
TEST_CASE("latency constants: a cross-SU ring step costs cable + 3 switches + 2 NICs") {
  const Groups g = first_gpus({0, 32});
  const LatencyModel base;  // 600 / 250 / 500 ns
  const Timed t0 = ring("h100-1024", g, base);
  REQUIRE(t0.steps == 2);  // 2(n-1) for n = 2
  const double step_ns = 160 * kNsPerMetre + 3 * 600.0 + 2 * 500.0;
  CHECK(t0.latency_us == doctest::Approx(2 * step_ns / 1000).epsilon(1e-12));

  LatencyModel m = base;
  m.switch_ns += 137;
  const Timed ts = ring("h100-1024", g, m);
  CHECK(ts.latency_us - t0.latency_us == doctest::Approx(2 * 3 * 137 / 1000.0).epsilon(1e-9));
  CHECK(ts.time_us - t0.time_us == doctest::Approx(2 * 3 * 137 / 1000.0).epsilon(1e-9));

  m = base;
  m.nic_ns -= 200;
  const Timed tn = ring("h100-1024", g, m);
  CHECK(t0.latency_us - tn.latency_us == doctest::Approx(2 * 2 * 200 / 1000.0).epsilon(1e-9));

  m = base;
  m.nvswitch_ns = 5000;  // no NVLink on this path: no change
  CHECK(ring("h100-1024", g, m).latency_us == t0.latency_us);

  // Leaf-spine cables of 250 m instead of 50: +200 m x 2 cables per step.
  const Timed tc = ring("rail_fat_tree:hosts=128,leaf_spine_m=250", g, base);
  CHECK(tc.latency_us - t0.latency_us ==
        doctest::Approx(2 * 2 * 200 * kNsPerMetre / 1000).epsilon(1e-9));
}

// Same SU: one switch. One-tier cluster: one switch as well, the only path.
TEST_CASE("latency constants: a ring step under one leaf, and on a one-tier cluster") {
  const LatencyModel base;
  LatencyModel m = base;
  m.switch_ns = 0;
  for (const char* spec :
       {"h100-1024", "rail_only:hosts=2,gpus_per_host=1,nics_per_host=1,scale_up=1,tiers=1"}) {
    const Groups g = first_gpus({0, 1});
    const Timed t0 = ring(spec, g, base);
    CHECK_MESSAGE(t0.latency_us ==
                      doctest::Approx(2 * (60 * kNsPerMetre + 600 + 1000) / 1000).epsilon(1e-12),
                  spec);
    CHECK_MESSAGE(t0.latency_us - ring(spec, g, m).latency_us ==
                      doctest::Approx(2 * 600 / 1000.0).epsilon(1e-9),
                  spec);
  }
  // The one-tier cluster's host cables at 0 m: the cable term vanishes.
  const Timed bare = ring(
      "rail_only:hosts=2,gpus_per_host=1,nics_per_host=1,scale_up=1,tiers=1,host_leaf_m=0",
      first_gpus({0, 1}), base);
  CHECK(bare.latency_us == doctest::Approx(2 * (600 + 1000) / 1000.0).epsilon(1e-12));
}

// Eight GPUs of one host: 14 ring steps, each GPU -> NVSwitch -> GPU (NVLink
// cables are inside the host: no propagation term).
TEST_CASE("latency constants: NVLink ring steps cost one NVSwitch each") {
  Groups g(1);
  for (int32_t i = 0; i < 8; ++i) g[0].push_back({HostId{0}, GpuIndex{i}});
  const LatencyModel base;
  const Timed t0 = ring("h100-1024", g, base);
  REQUIRE(t0.steps == 14);
  CHECK(t0.latency_us == doctest::Approx(14 * 250 / 1000.0).epsilon(1e-12));
  LatencyModel m = base;
  m.nvswitch_ns = 1000;
  m.switch_ns = 0;  // no network switch crossed: no effect
  m.nic_ns = 0;
  CHECK(ring("h100-1024", g, m).latency_us - t0.latency_us ==
        doctest::Approx(14 * 750 / 1000.0).epsilon(1e-9));
}

// Congestion control: each path class's RTT is 2 x (cable + switches + 2 NICs +
// one frame), so Δ per switch moves it by 2 x switches x Δ, Δ per NIC by 4 x Δ.
TEST_CASE("latency constants: cc RTTs move by 2 x (switches x Δswitch + 2 x Δnic)") {
  auto cluster = railyard::topology::make_cluster("h100-16k-3tier");
  REQUIRE(cluster.ok());
  railyard::cc::CcInputs in;
  auto base = railyard::cc::derive_cc(*cluster, in);
  REQUIRE(base.ok());
  in.latency.switch_ns += 250;
  in.latency.nic_ns += 40;
  auto moved = railyard::cc::derive_cc(*cluster, in);
  REQUIRE(moved.ok());
  REQUIRE(base->paths.size() == 3);  // same leaf, via spine, via core
  const int32_t switches[] = {1, 3, 5};
  for (size_t i = 0; i < 3; ++i) {
    CHECK(base->paths[i].switches == switches[i]);
    CHECK(moved->paths[i].rtt_us - base->paths[i].rtt_us ==
          doctest::Approx(2 * (switches[i] * 250 + 2 * 40) / 1000.0).epsilon(1e-9));
  }
}

// Out of range: the field and the value, never a silent clamp.
TEST_CASE("latency constants: values outside [0, 100000] ns are refused by name") {
  using railyard::collective::check_latency_model;
  CHECK(check_latency_model({}).ok());
  CHECK(check_latency_model({.switch_ns = 100000, .nvswitch_ns = 0, .nic_ns = 0}).ok());
  struct Case {
    LatencyModel m;
    const char* message;
  };
  const Case cases[] = {
      {{.switch_ns = 100000.5}, "switch_ns=100000.5: must be in [0, 100000] ns"},
      {{.nvswitch_ns = -1}, "nvswitch_ns=-1: must be in [0, 100000] ns"},
      {{.nic_ns = 1e9}, "nic_ns=1e+09: must be in [0, 100000] ns"},
  };
  for (const Case& c : cases) {
    const railyard::Status s = check_latency_model(c.m);
    REQUIRE_FALSE(s.ok());
    CHECK(std::string(s.message()) == c.message);
  }
  railyard::cc::CcInputs in;
  in.latency.nic_ns = -5;
  auto plan = railyard::cc::derive_cc(*railyard::topology::make_cluster("h100-1024"), in);
  REQUIRE_FALSE(plan.ok());
  CHECK(std::string(plan.status().message()) == "nic_ns=-5: must be in [0, 100000] ns");
}

}  // namespace railyard_test_cc_latency_constants_test
