// Traffic matrices: the file format and its errors, the generators, the
// multipath (per-hop spraying) rule, closed-form FCTs on small fat trees, and
// steered routing against the path advisor's ports hashed hop by hop here.
#include "railyard/sim/traffic_sim.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "railyard/routing/hash.hpp"
#include "railyard/routing/spray.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_sim_traffic_sim_test {

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

namespace {

using railyard::LinkId;
using railyard::NicPort;
using railyard::SwitchIndex;
using railyard::topology::Fabric;

// The network links (leaf-spine, spine-core) a QP with 5-tuple (a, b, sport,
// dst_qp) crosses, recomputed hop by hop from the hash model and the fabric's
// cables, independently of routing::ecmp_paths: the source leaf picks among
// its uplinks in port order; if the spine reached has no cable down to the
// destination leaf, that spine picks among its uplinks to the cores and the
// core among its parallel cables down to the destination leaf's spine that it
// reaches (in that spine's port order); finally the spine picks among its
// parallel cables down to the destination leaf (in the leaf's port order). A
// switch with one candidate makes no decision.
std::vector<LinkId> hashed_network_links(const railyard::topology::Cluster& c,
                                         const railyard::routing::HashModel& model, NicPort a,
                                         NicPort b, uint16_t sport, uint32_t dst_qp) {
  namespace rr = railyard::routing;
  const auto& d = c.descriptor;
  const Fabric& f = c.fabric;
  const rr::FiveTuple t = rr::rocev2_tuple(d, a, b, sport, dst_qp);
  const SwitchIndex la = d.leaf_of(a);
  const SwitchIndex lb = d.leaf_of(b);
  if (la == lb) return {};
  auto pick = [&](rr::HopKind kind, int32_t sw, const std::vector<int32_t>& candidates) {
    if (candidates.size() == 1) return candidates[0];
    const int32_t k =
        model.pick(rr::EcmpHop{kind, SwitchIndex{sw}, static_cast<int32_t>(candidates.size())}, t);
    REQUIRE(k >= 0);
    REQUIRE(k < static_cast<int32_t>(candidates.size()));
    return candidates[static_cast<size_t>(k)];
  };
  const int32_t leaf_up = d.shape().leaf_up_ports;
  std::vector<int32_t> ports;
  for (int32_t j = 0; j < leaf_up; ++j) ports.push_back(j);
  const LinkId up1 = f.leaf_uplink(la, pick(rr::HopKind::kSrcLeafUp, la.value(), ports));
  std::vector<LinkId> out = {up1};
  railyard::NodeId down_spine = f.dst(up1);
  auto cables_to_leaf = [&](railyard::NodeId spine) {
    std::vector<int32_t> jb;
    for (int32_t j = 0; j < leaf_up; ++j)
      if (f.dst(f.leaf_uplink(lb, j)) == spine) jb.push_back(j);
    return jb;
  };
  if (cables_to_leaf(down_spine).empty()) {
    const SwitchIndex sa{f.owner(down_spine)};
    const int32_t spine_up = d.shape().spine_up_ports;
    ports.clear();
    for (int32_t k = 0; k < spine_up; ++k) ports.push_back(k);
    const LinkId up2 = f.spine_uplink(sa, pick(rr::HopKind::kSrcSpineUp, sa.value(), ports));
    out.push_back(up2);
    const railyard::NodeId core = f.dst(up2);
    // The destination leaf's spine that this core reaches.
    bool found = false;
    for (int32_t j = 0; j < leaf_up && !found; ++j) {
      const railyard::NodeId spine = f.dst(f.leaf_uplink(lb, j));
      const SwitchIndex sb{f.owner(spine)};
      ports.clear();
      for (int32_t k = 0; k < spine_up; ++k)
        if (f.dst(f.spine_uplink(sb, k)) == core) ports.push_back(k);
      if (ports.empty()) continue;
      found = true;
      const int32_t kb = pick(rr::HopKind::kCoreDown, f.owner(core), ports);
      out.push_back(Fabric::reverse(f.spine_uplink(sb, kb)));
      down_spine = spine;
    }
    REQUIRE(found);
  }
  const std::vector<int32_t> jb = cables_to_leaf(down_spine);
  REQUIRE_FALSE(jb.empty());
  out.push_back(
      Fabric::reverse(f.leaf_uplink(lb, pick(rr::HopKind::kSpineDown, f.owner(down_spine), jb))));
  return out;
}

bool network_tier(const Fabric& f, int32_t l) {
  const auto tier = f.tier(LinkId{l});
  return tier == railyard::topology::LinkTier::kLeafSpine ||
         tier == railyard::topology::LinkTier::kSpineCore;
}

NicPort nic_of_host(int h) { return {HostId{h}, railyard::NicIndex{0}, railyard::PlaneId{0}}; }

}  // namespace

TEST_CASE("traffic: steered QPs take the hash's path for the advisor's source ports") {
  // k=4 fat tree (3 tiers, 2 uplinks per leaf and per spine): flows across pods
  // (every hop kind decides), within a pod, under one leaf, with several QP
  // budgets, the budget above the uplinks included.
  const auto c = make(fat_tree(4));
  const std::vector<TrafficFlow> flows = {
      {host(0), host(9), 1000000, 0.0, 1},  {host(1), host(14), 2000000, 0.0, 2},
      {host(2), host(7), 3000000, 0.0, 4},  {host(5), host(3), 1500000, 0.0, 2},
      {host(6), host(7), 500000, 0.0, 3},   {host(12), host(4), 4000000, 0.0, 2},
      {host(15), host(0), 2500000, 10.0, 1}};
  namespace rr = railyard::routing;
  const rr::Crc5TupleHash crc(7);
  const rr::QpAwareHash qp_aware(7);
  const rr::UniformRandomHash unknown(7);
  for (const rr::HashModel* model :
       {static_cast<const rr::HashModel*>(&crc), static_cast<const rr::HashModel*>(&qp_aware),
        static_cast<const rr::HashModel*>(&unknown)}) {
    CAPTURE(model->name());
    TrafficSimOptions o;
    o.routing = TrafficRouting::kSteered;
    o.switch_hash = model;
    auto r = railyard::sim::simulate_traffic(c, flows, o);
    REQUIRE(r.ok());
    CHECK(r->hash_model == std::string(model->name()));
    CHECK(r->steerable == model->steerable());
    // The advisor's plan per flow (what a net plugin would be handed), its
    // destination QPs numbered on from the previous flows' QPs, each QP's
    // 5-tuple hashed here: bytes / k on every network link of its path.
    std::vector<double> want(static_cast<size_t>(c.fabric.link_count()), 0.0);
    uint32_t next_dst_qp = 0x100;
    int64_t qp_count = 0;
    for (size_t i = 0; i < flows.size(); ++i) {
      const NicPort a = nic_of_host(flows[i].src.host.value());
      const NicPort b = nic_of_host(flows[i].dst.host.value());
      auto plan = rr::advised_plan(c.descriptor, c.fabric, a, b, flows[i].qps, *model, next_dst_qp);
      REQUIRE(plan.ok());
      const auto k = static_cast<int32_t>(plan->qp.size());
      const bool same_leaf = c.descriptor.leaf_of(a) == c.descriptor.leaf_of(b);
      CHECK(k == (same_leaf ? 1 : std::min(flows[i].qps, 2)));  // 2 uplinks per leaf
      CHECK(r->flows[i].qps == k);
      for (const rr::QpRoute& q : plan->qp)
        for (LinkId l : hashed_network_links(c, *model, a, b, q.sport, q.dst_qpn))
          want[static_cast<size_t>(l.value())] += static_cast<double>(flows[i].bytes) / k;
      next_dst_qp += static_cast<uint32_t>(k);
      qp_count += k;
    }
    CHECK(r->sim_flows == qp_count);
    int32_t used = 0;
    for (int32_t l = 0; l < c.fabric.link_count(); ++l) {
      if (!network_tier(c.fabric, l)) continue;
      CAPTURE(l);
      CHECK(r->link_bytes[static_cast<size_t>(l)] ==
            doctest::Approx(want[static_cast<size_t>(l)]).epsilon(1e-12));
      used += want[static_cast<size_t>(l)] > 0;
    }
    CHECK(used > 0);
  }
}

TEST_CASE("traffic: steered spreads a permutation's QPs over distinct uplinks — between ECMP and spraying") {
  // The header's k=8 fat tree, a 2 MB permutation with 4 QPs per flow (= the 4
  // uplinks of a leaf), queueing on (the defaults).
  const auto c = make(fat_tree(8));
  auto perm = railyard::sim::permutation_traffic(c.descriptor, 2000000, 1);
  for (TrafficFlow& f : perm) f.qps = 4;
  auto run = [&](TrafficRouting routing) {
    TrafficSimOptions o;
    o.routing = routing;
    auto r = railyard::sim::simulate_traffic(c, perm, o);
    REQUIRE(r.ok());
    return *r;
  };
  const auto ecmp = run(TrafficRouting::kEcmp);
  const auto steered = run(TrafficRouting::kSteered);
  const auto adaptive = run(TrafficRouting::kAdaptive);
  CHECK(steered.routing == TrafficRouting::kSteered);
  CHECK(steered.hash_model == "crc32");
  CHECK(steered.steerable);
  MESSAGE("mean FCT us: ecmp ", ecmp.mean_fct_us, ", steered ", steered.mean_fct_us,
          ", adaptive ", adaptive.mean_fct_us, " (its alone-time ideal ", adaptive.mean_ideal_us,
          ")");
  // Steering puts a flow's 4 QPs on the leaf's 4 distinct uplinks, which ECMP's
  // independent draws do not; the spine-core hop can still collide, which
  // per-packet spraying avoids. None beats the alone-time ideal.
  CHECK(steered.mean_fct_us <= ecmp.mean_fct_us);
  CHECK(steered.max_fct_us <= ecmp.max_fct_us);
  CHECK(steered.mean_fct_us >= adaptive.mean_ideal_us);
  CHECK(steered.mean_fct_us >= adaptive.mean_fct_us);

  // Conservation: every flow completes after it starts, on the QPs the advisor
  // gives it (4 when it leaves its leaf, 1 under one leaf); each NIC sends and
  // receives one flow's 2 MB; a tier carries each flow that crosses it twice
  // (up and down).
  const auto& d = c.descriptor;
  const auto& f = c.fabric;
  REQUIRE(steered.flows.size() == perm.size());
  double leaf_spine_want = 0, spine_core_want = 0;
  int64_t qps_want = 0;
  for (size_t i = 0; i < perm.size(); ++i) {
    const auto& x = steered.flows[i];
    CHECK(std::isfinite(x.fct_us));
    CHECK(x.fct_us > 0);
    CHECK(x.fct_us >= x.ideal_us - 1e-9);
    const NicPort a = nic_of_host(perm[i].src.host.value());
    const NicPort b = nic_of_host(perm[i].dst.host.value());
    const bool same_leaf = d.leaf_of(a) == d.leaf_of(b);
    const bool cross_pod = d.pod_of_leaf(d.leaf_of(a)) != d.pod_of_leaf(d.leaf_of(b));
    CHECK(x.qps == (same_leaf ? 1 : 4));
    qps_want += x.qps;
    CHECK(steered.link_bytes[static_cast<size_t>(f.host_uplink(a).value())] ==
          doctest::Approx(2e6).epsilon(1e-12));
    CHECK(steered.link_bytes[static_cast<size_t>(Fabric::reverse(f.host_uplink(b)).value())] ==
          doctest::Approx(2e6).epsilon(1e-12));
    if (!same_leaf) leaf_spine_want += 2 * 2e6;
    if (cross_pod) spine_core_want += 2 * 2e6;
  }
  CHECK(steered.sim_flows == qps_want);
  double leaf_spine = 0, spine_core = 0;
  for (int32_t l = 0; l < f.link_count(); ++l) {
    const auto tier = f.tier(LinkId{l});
    if (tier == railyard::topology::LinkTier::kLeafSpine) leaf_spine += steered.link_bytes[static_cast<size_t>(l)];
    if (tier == railyard::topology::LinkTier::kSpineCore) spine_core += steered.link_bytes[static_cast<size_t>(l)];
  }
  CHECK(leaf_spine == doctest::Approx(leaf_spine_want).epsilon(1e-12));
  CHECK(spine_core == doctest::Approx(spine_core_want).epsilon(1e-12));
  CHECK(spine_core > 0);
}

TEST_CASE("traffic: routing names — steered accepted, spray and planned refused") {
  using railyard::sim::parse_traffic_routing;
  CHECK(*parse_traffic_routing("ecmp") == TrafficRouting::kEcmp);
  CHECK(*parse_traffic_routing("steered") == TrafficRouting::kSteered);
  CHECK(*parse_traffic_routing("adaptive") == TrafficRouting::kAdaptive);
  for (TrafficRouting r : {TrafficRouting::kEcmp, TrafficRouting::kSteered, TrafficRouting::kAdaptive})
    CHECK(*parse_traffic_routing(railyard::sim::traffic_routing_name(r)) == r);
  auto typo = parse_traffic_routing("steerd");
  REQUIRE_FALSE(typo.ok());
  CHECK(message(typo.status()).find("routing=steerd") != std::string::npos);
  CHECK(message(typo.status()).find("ecmp, steered or adaptive") != std::string::npos);
  auto spray = parse_traffic_routing("spray");
  REQUIRE_FALSE(spray.ok());
  CHECK(message(spray.status()).find("routing=spray") != std::string::npos);
  CHECK_FALSE(parse_traffic_routing("planned").ok());
}

TEST_CASE("traffic: an all-to-all-v byte matrix — flows, the diagonal, and a hand-worked incast") {
  const auto c = make(fat_tree(4));
  // Ranks are the cluster's GPUs host-major; one GPU per host here, so rank r
  // is host r. Row 0's diagonal stays in memory; zeros make no flow.
  const std::string text =
      "# comment\n"
      "7MiB, 0, 0, 0\n"
      "125000, 0, 0, 0\n"
      "\n"
      "125KB,0,0,0\r\n"
      "125000B, 0, 2MiB, 0\n";
  auto flows = railyard::sim::parse_traffic_matrix(text, c.descriptor);
  REQUIRE(flows.ok());
  REQUIRE(flows->size() == 4);
  const struct {
    int src, dst;
    int64_t bytes;
  } want[] = {{1, 0, 125000}, {2, 0, 125000}, {3, 0, 125000}, {3, 2, 2 << 20}};
  for (size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK((*flows)[i].src == host(want[i].src));
    CHECK((*flows)[i].dst == host(want[i].dst));
    CHECK((*flows)[i].bytes == want[i].bytes);
    CHECK((*flows)[i].start_us == 0.0);
    CHECK((*flows)[i].qps == 1);
  }
  // The 3:1 incast alone: 3 x 125 kB through rank 0's 100 Gb/s NIC, 30 us.
  flows->pop_back();
  auto r = railyard::sim::simulate_traffic(c, *flows, {});
  REQUIRE(r.ok());
  for (const auto& f : r->flows) CHECK(f.transfer_us == doctest::Approx(30.0).epsilon(1e-9));

  // On 8-GPU hosts rank 9 is host 1's GPU 1.
  const auto h = make("h100-1024");
  std::string big;
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10; ++j) {
      if (j > 0) big += ',';
      big += i == 0 && j == 9 ? "4096" : "0";
    }
    big += "\n";
  }
  auto one = railyard::sim::parse_traffic_matrix(big, h.descriptor);
  REQUIRE(one.ok());
  REQUIRE(one->size() == 1);
  CHECK((*one)[0].src == GpuEndpoint{HostId{0}, GpuIndex{0}});
  CHECK((*one)[0].dst == GpuEndpoint{HostId{1}, GpuIndex{1}});
}

TEST_CASE("traffic: a bad byte matrix names the row, the column and the value") {
  const auto c = make(fat_tree(4));  // 16 GPUs
  auto err = [&](const std::string& text) {
    auto f = railyard::sim::parse_traffic_matrix(text, c.descriptor);
    REQUIRE_FALSE(f.ok());
    return message(f.status());
  };
  CHECK(err("0,1\n1,0,0\n") == "row 2 (line 2): 3 columns; the matrix has 2 rows and must be square");
  CHECK(err("0,1x\n1,0\n").find("row 1, column 2: bytes=1x") == 0);
  CHECK(err("0,-1\n1,0\n").find("row 1, column 2: bytes=-1") == 0);
  CHECK(err("0\n").find("matrix=1 rows: needs at least 2 rows") == 0);
  CHECK(err("# nothing\n").find("matrix=0 rows") == 0);
  CHECK(err("0,0\n0,0\n") == "matrix: no flows (every entry off the diagonal is 0)");
  std::string seventeen;
  for (int i = 0; i < 17; ++i) {
    for (int j = 0; j < 17; ++j) {
      if (j > 0) seventeen += ',';
      seventeen += '1';
    }
    seventeen += "\n";
  }
  CHECK(err(seventeen).find("matrix=17 rows: has more ranks than the cluster's 16 GPUs") == 0);
}

}  // namespace railyard_test_sim_traffic_sim_test
