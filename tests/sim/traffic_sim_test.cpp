// Traffic matrices: the file format and its errors, the generators, the
// multipath (per-hop spraying) rule, and closed-form FCTs on small fat trees.
#include "railyard/sim/traffic_sim.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "railyard/topology/cluster.hpp"

using railyard::GpuEndpoint;
using railyard::GpuIndex;
using railyard::HostId;
using railyard::sim::TrafficFlow;
using railyard::sim::TrafficRouting;
using railyard::sim::TrafficSimOptions;

namespace {

// The k-ary fat tree (k^3/4 hosts, one GPU and one NIC each, k-port
// switches) as a railyard spec: SU = one edge switch (k/2 hosts), pod = k/2 SUs.
std::string fat_tree(int k, int gbps = 100) {
  const int hosts = k * k * k / 4;
  return "rail_fat_tree:hosts=" + std::to_string(hosts) +
         ",gpus_per_host=1,nics_per_host=1,nic_gbps=" + std::to_string(gbps) +
         ",hosts_per_su=" + std::to_string(k / 2) + ",switch_radix=" + std::to_string(k) +
         ",tiers=3,sus_per_pod=" + std::to_string(k / 2);
}

railyard::topology::Cluster make(const std::string& spec) {
  auto c = railyard::topology::make_cluster(spec);
  REQUIRE(c.ok());
  return std::move(*c);
}

GpuEndpoint host(int h) { return {HostId{h}, GpuIndex{0}}; }

std::string message(const railyard::Status& s) { return std::string(railyard::message_of(s)); }

}  // namespace

TEST_CASE("traffic: k-ary fat tree specs have the k-ary shape") {
  for (int k : {4, 8, 16}) {
    const auto c = make(fat_tree(k));
    const auto& shape = c.descriptor.shape();
    CHECK(c.descriptor.hosts() == k * k * k / 4);
    CHECK(shape.leaf_up_ports == k / 2);
    CHECK(shape.spine_up_ports == k / 2);
    // Hosts in different pods have (k/2)^2 paths; same pod, other edge: k/2.
    const railyard::NicPort a{HostId{0}, railyard::NicIndex{0}, railyard::PlaneId{0}};
    const railyard::NicPort b{HostId{k * k / 4}, railyard::NicIndex{0}, railyard::PlaneId{0}};
    const railyard::NicPort c2{HostId{k / 2}, railyard::NicIndex{0}, railyard::PlaneId{0}};
    CHECK(c.descriptor.path_count(a, b) == (k / 2) * (k / 2));
    CHECK(c.descriptor.path_count(a, c2) == k / 2);
  }
}

TEST_CASE("traffic: parse_traffic reads rows, defaults and comments") {
  const auto c = make(fat_tree(4));
  auto t = railyard::sim::parse_traffic(
      "src,dst,bytes,start_us,qps\n# comment\n\n0,5,2MB\n3:0,15,4096,12.5\n7,8,1MiB,0,4\r\n",
      c.descriptor);
  REQUIRE(t.ok());
  REQUIRE(t->size() == 3);
  CHECK((*t)[0].src == host(0));
  CHECK((*t)[0].dst == host(5));
  CHECK((*t)[0].bytes == 2000000);
  CHECK((*t)[0].start_us == 0.0);
  CHECK((*t)[0].qps == 1);
  CHECK((*t)[1].src == host(3));
  CHECK((*t)[1].start_us == 12.5);
  CHECK((*t)[2].bytes == 1048576);
  CHECK((*t)[2].qps == 4);
}

TEST_CASE("traffic: bad rows name the line and the field") {
  const auto c = make(fat_tree(4));
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {"0,1,2MB\n0,1,abc\n", "line 2: bytes=abc"},
      {"0,1\n", "line 1: 2 fields"},
      {"0,16,1\n", "line 1: dst=16:0: is not a GPU"},
      {"x,1,1\n", "line 1: src=x"},
      {"0:1,1,1\n", "line 1: src=0:1: is not a GPU"},
      {"2,2,1\n", "line 1: dst=2: is the source GPU"},
      {"0,1,0\n", "line 1: bytes=0"},
      {"0,1,1,-3\n", "line 1: start_us=-3"},
      {"0,1,1,0,0\n", "line 1: qps=0"},
      {"0,1,1,0,300\n", "line 1: qps=300"},
      {"# nothing\n", "no flows"},
  };
  for (const Case& k : cases) {
    auto t = railyard::sim::parse_traffic(k.text, c.descriptor);
    REQUIRE_FALSE(t.ok());
    INFO(message(t.status()));
    CHECK(message(t.status()).find(k.expect) != std::string::npos);
  }
}

TEST_CASE("traffic: generators") {
  const auto c = make(fat_tree(8));
  const auto p = railyard::sim::permutation_traffic(c.descriptor, 1000, 3);
  REQUIRE(p.size() == 128);
  std::set<int> srcs, dsts;
  for (const TrafficFlow& f : p) {
    CHECK_FALSE(f.src == f.dst);
    srcs.insert(f.src.host.value());
    dsts.insert(f.dst.host.value());
  }
  CHECK(srcs.size() == 128);  // a bijection without fixed points
  CHECK(dsts.size() == 128);
  const auto p2 = railyard::sim::permutation_traffic(c.descriptor, 1000, 3);
  for (size_t i = 0; i < p.size(); ++i) CHECK(p[i].dst == p2[i].dst);  // deterministic
  const auto other = railyard::sim::permutation_traffic(c.descriptor, 1000, 4);
  CHECK(std::any_of(other.begin(), other.end(),
                    [&](const TrafficFlow& f) { return !(f.dst == p[static_cast<size_t>(f.src.host.value())].dst); }));

  auto inc = railyard::sim::incast_traffic(c.descriptor, 8, host(5), 1000);
  REQUIRE(inc.ok());
  REQUIRE(inc->size() == 8);
  for (const TrafficFlow& f : *inc) CHECK(f.dst == host(5));
  CHECK_FALSE(railyard::sim::incast_traffic(c.descriptor, 128, host(5), 1000).ok());

  const auto u = railyard::sim::uniform_traffic(c.descriptor, 500, 1000, 9);
  REQUIRE(u.size() == 500);
  for (const TrafficFlow& f : u) CHECK_FALSE(f.src == f.dst);
  CHECK(railyard::sim::all_to_all_traffic(make(fat_tree(4)).descriptor, 1).size() == 16 * 15);
}

TEST_CASE("traffic: the per-hop spraying rule splits each hop evenly and conserves bytes") {
  // One sprayed flow between pods of a k=8 fat tree, alone: each tier carries
  // all its bytes, spread evenly — U = 4 leaf uplinks at 1/4, 16 spine
  // uplinks at 1/16, 16 core downlinks at 1/16, 4 spine downlinks at 1/4.
  const auto c = make(fat_tree(8));
  const std::vector<TrafficFlow> one = {{host(0), host(100), 1000000}};
  TrafficSimOptions o;
  o.routing = TrafficRouting::kAdaptive;
  o.queueing.enabled = false;
  auto r = railyard::sim::simulate_traffic(c, one, o);
  REQUIRE(r.ok());
  // Alone the sprayed flow runs at NIC speed: 1e6 B at 100 Gb/s = 80 us.
  CHECK(r->flows[0].transfer_us == doctest::Approx(80.0).epsilon(1e-9));
  CHECK(r->flows[0].ideal_us == doctest::Approx(80.0 + r->flows[0].latency_us).epsilon(1e-9));
  // Where the bytes went, per tier and per link.
  const auto& f = c.fabric;
  std::vector<double> tier_sum(railyard::topology::kLinkTierCount, 0.0);
  std::vector<std::vector<double>> per_tier(railyard::topology::kLinkTierCount);
  for (size_t l = 0; l < r->link_bytes.size(); ++l) {
    const double b = r->link_bytes[l];
    if (b <= 0) continue;
    const auto t = static_cast<size_t>(f.tier(railyard::LinkId{static_cast<int32_t>(l)}));
    tier_sum[t] += b;
    per_tier[t].push_back(b);
  }
  using railyard::topology::LinkTier;
  // Up and down links of a tier count together: leaf-spine = 4 up at 1/4 and
  // 4 down at 1/4; spine-core = 16 up at 1/16 and 16 down at 1/16.
  const auto ls = static_cast<size_t>(LinkTier::kLeafSpine);
  const auto sc = static_cast<size_t>(LinkTier::kSpineCore);
  CHECK(tier_sum[ls] == doctest::Approx(2e6).epsilon(1e-12));
  CHECK(tier_sum[sc] == doctest::Approx(2e6).epsilon(1e-12));
  REQUIRE(per_tier[ls].size() == 8);
  REQUIRE(per_tier[sc].size() == 32);
  for (double b : per_tier[ls]) CHECK(b == doctest::Approx(1e6 / 4).epsilon(1e-12));
  for (double b : per_tier[sc]) CHECK(b == doctest::Approx(1e6 / 16).epsilon(1e-12));
}

TEST_CASE("traffic: a permutation on a non-blocking fat tree — spraying reaches alone-time only without queueing") {
  const auto c = make(fat_tree(8));
  const auto perm = railyard::sim::permutation_traffic(c.descriptor, 2000000, 1);
  TrafficSimOptions o;
  o.routing = TrafficRouting::kAdaptive;
  o.queueing.enabled = false;
  auto fluid = railyard::sim::simulate_traffic(c, perm, o);
  REQUIRE(fluid.ok());
  for (const auto& f : fluid->flows) {
    // Every flow at 100 Gb/s: 2e6 B / 12,500 B/us = 160 us, plus latency.
    CHECK(f.transfer_us == doctest::Approx(160.0).epsilon(1e-9));
    CHECK(f.fct_us == doctest::Approx(f.ideal_us).epsilon(1e-9));
  }
  o.queueing.enabled = true;
  auto queued = railyard::sim::simulate_traffic(c, perm, o);
  REQUIRE(queued.ok());
  // Full load: every merged link is saturated, so each flow waits the standing
  // queue's drain time at least at its last hop, and never more than at all
  // six network hops (Q / C each; 150 kB at 100 Gb/s = 12 us).
  const double drain = 150000.0 / 12500.0;
  for (const auto& f : queued->flows) {
    CHECK(f.queue_us >= drain - 1e-9);
    CHECK(f.queue_us <= 6 * drain + 1e-9);
    CHECK(f.fct_us > f.ideal_us);
  }
  CHECK(queued->mean_fct_us > fluid->mean_fct_us);

  // ECMP: collisions slow some flows; none beats its alone-time and the
  // statistics are ordered.
  o.routing = TrafficRouting::kEcmp;
  auto ecmp = railyard::sim::simulate_traffic(c, perm, o);
  REQUIRE(ecmp.ok());
  for (const auto& f : ecmp->flows) CHECK(f.fct_us >= f.ideal_us - 1e-9);
  CHECK(ecmp->p50_fct_us <= ecmp->p99_fct_us);
  CHECK(ecmp->p99_fct_us <= ecmp->max_fct_us);
  CHECK(ecmp->max_fct_us > 1.5 * 160.0);  // 128 flows over 16 cores: some collide
}

TEST_CASE("traffic: incast N:1 shares the last hop — closed form") {
  const auto c = make(fat_tree(4));
  for (int n : {1, 3, 7}) {
    auto inc = railyard::sim::incast_traffic(c.descriptor, n, host(0), 125000);
    REQUIRE(inc.ok());
    for (TrafficRouting routing : {TrafficRouting::kEcmp, TrafficRouting::kAdaptive}) {
      TrafficSimOptions o;
      o.routing = routing;
      auto r = railyard::sim::simulate_traffic(c, *inc, o);
      REQUIRE(r.ok());
      for (const auto& f : r->flows) {
        // n flows of 125 kB into one 100 Gb/s NIC: n · 10 us together.
        CHECK(f.transfer_us == doctest::Approx(10.0 * n).epsilon(1e-9));
        // The receiver's downlink carries n entries at ρ = 1 (n > 1: Q / C).
        if (n > 1) CHECK(f.queue_us >= 150000.0 / 12500.0 - 1e-9);
      }
    }
  }
}

TEST_CASE("traffic: start times and QPs") {
  const auto c = make(fat_tree(4));
  // Two flows into host 0: the second starts at 5 us, both 125 kB (10 us alone).
  // 0..5: A alone (62.5 kB sent); then both at half: A done at 15, B has
  // 62.5 kB left at 15, alone: done at 20 (FCT 15).
  std::vector<TrafficFlow> t = {{host(4), host(0), 125000, 0.0, 1}, {host(8), host(0), 125000, 5.0, 1}};
  TrafficSimOptions o;
  o.queueing.enabled = false;
  auto r = railyard::sim::simulate_traffic(c, t, o);
  REQUIRE(r.ok());
  CHECK(r->flows[0].transfer_us == doctest::Approx(15.0).epsilon(1e-9));
  CHECK(r->flows[1].transfer_us == doctest::Approx(15.0).epsilon(1e-9));
  CHECK(r->flows[1].start_us == 5.0);
  CHECK(r->makespan_us == doctest::Approx(20.0 + r->flows[1].latency_us).epsilon(1e-9));
  // count_ack doubles the latency term.
  o.count_ack = true;
  auto ra = railyard::sim::simulate_traffic(c, t, o);
  REQUIRE(ra.ok());
  CHECK(ra->flows[0].latency_us == doctest::Approx(2 * r->flows[0].latency_us).epsilon(1e-12));
  // 4 QPs: 4 simulator flows; the flow's bytes are split, the NIC still limits.
  t = {{host(4), host(0), 125000, 0.0, 4}};
  o.count_ack = false;
  auto rq = railyard::sim::simulate_traffic(c, t, o);
  REQUIRE(rq.ok());
  CHECK(rq->sim_flows == 4);
  CHECK(rq->flows[0].transfer_us >= 10.0 - 1e-9);
  // Errors name the flow.
  t = {{host(4), host(4), 1, 0.0, 1}};
  auto bad = railyard::sim::simulate_traffic(c, t, o);
  REQUIRE_FALSE(bad.ok());
  CHECK(message(bad.status()).find("flow 0: dst=4:0") != std::string::npos);
}
