// The collective simulator against closed forms (ring busbw on a non-blocking
// HGX fabric, hierarchical all-reduce, rail-aligned all-to-all, the lower
// bounds), ECMP against the balls-into-bins figures of docs/constants.md#ecmp, and
// properties on random fabrics (the bound holds, the analytic model never
// exceeds the simulation, bytes are conserved, same input same output).
#include "railyard/sim/collective_sim.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../support/random_shapes.hpp"
#include "railyard/collective/cost.hpp"
#include "railyard/plugin/advisor.hpp"
#include "railyard/routing/assign.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/sim/flow_sim.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_sim_collective_sim_test {

namespace {

using railyard::GpuIndex;
using railyard::HostId;
using railyard::collective::Algorithm;
using railyard::collective::Collective;
using railyard::routing::GpuEndpoint;
using railyard::sim::CollectiveSimOptions;
using railyard::sim::Routing;
using railyard::sim::simulate_collective;
using Groups = std::vector<std::vector<GpuEndpoint>>;

// Every GPU of hosts [first, first + count), host-major.
Groups all_gpus(int32_t first, int32_t count, int32_t gpus) {
  Groups g(1);
  for (int32_t h = first; h < first + count; ++h)
    for (int32_t i = 0; i < gpus; ++i) g[0].push_back({HostId{h}, GpuIndex{i}});
  return g;
}

CollectiveSimOptions no_latency() {
  CollectiveSimOptions o;
  o.latency = {.switch_ns = 0, .nvswitch_ns = 0, .nic_ns = 0, .step_overhead_us = 0};
  return o;
}

constexpr double kBytesPerUsPerGbps = 125.0;
double us(double bytes, double gbps) { return bytes / (gbps * kBytesPerUsPerGbps); }

}  // namespace

TEST_CASE(
    "collective_sim: ring all-reduce on a non-blocking HGX fabric reaches 8 x 400 Gb/s busbw") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  for (int32_t hosts : {2, 16, 128}) {
    CAPTURE(hosts);
    const Groups g = all_gpus(0, hosts, 8);
    // Large enough that the per-step latency (2(n-1) steps of a few µs) is < 1%.
    const int64_t S = hosts < 128 ? int64_t{64} << 30 : int64_t{512} << 30;
    auto r = simulate_collective(*cluster, g, Collective::kAllReduce, S, CollectiveSimOptions{});
    REQUIRE(r.ok());
    CHECK(r->channels == 8);
    // nccl-tests shows about 400 GB/s for a healthy HGX H100 host: 8 NICs x 400 Gb/s.
    CHECK(r->busbw_gbps == doctest::Approx(3200.0).epsilon(0.01));
    CHECK(r->busbw_gbps <= 3200.0 * (1 + 1e-9));
    // The bound: the hosts' aggregate NIC bandwidth, 2(h-1)/h S / 3200 Gb/s, or
    // for few hosts the GPUs' own links (NVLink 3600 + PCIe 400), 2(n-1)/n S / 4000.
    const int32_t ranks = hosts * 8;
    const double bound = std::max(us(2.0 * (hosts - 1) / hosts * static_cast<double>(S), 3200.0),
                                  us(2.0 * (ranks - 1) / ranks * static_cast<double>(S), 4000.0));
    CHECK(r->lower_bound_us == doctest::Approx(bound).epsilon(1e-9));
    CHECK(r->time_us >= r->lower_bound_us);
    // Transfer time alone is exact: 2(n-1) steps of S/(8n) over one 400G NIC each.
    const int32_t n = hosts * 8;
    CHECK(r->time_us - r->latency_us ==
          doctest::Approx(2.0 * (n - 1) * us(static_cast<double>(S) / (8.0 * n), 400.0))
              .epsilon(1e-9));
    CHECK(r->analytic_us == doctest::Approx(r->time_us).epsilon(1e-9));
  }
}

TEST_CASE("collective_sim: one channel is NIC-bound at 400 Gb/s per ring") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CollectiveSimOptions o = no_latency();
  o.channels = 1;
  const int64_t S = int64_t{1} << 32;
  auto r = simulate_collective(*cluster, all_gpus(0, 4, 8), Collective::kAllReduce, S, o);
  REQUIRE(r.ok());
  CHECK(r->time_us - r->latency_us ==
        doctest::Approx(2.0 * 31 * us(static_cast<double>(S) / 32, 400.0)).epsilon(1e-9));
}

TEST_CASE("collective_sim: hierarchical all-reduce matches its closed form") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CollectiveSimOptions o = no_latency();
  o.algorithm = Algorithm::kHierarchical;
  CollectiveSimOptions serial = o;
  serial.pipeline.enabled = false;
  for (int32_t hosts : {1, 2, 8}) {
    CAPTURE(hosts);
    const double S = static_cast<double>(int64_t{1} << 33);
    auto r = simulate_collective(*cluster, all_gpus(0, hosts, 8), Collective::kAllReduce,
                                 int64_t{1} << 33, serial);
    REQUIRE(r.ok());
    const double g = 8, h = hosts;
    // NVLink reduce-scatter and all-gather: (g-1) steps of S/g each over a 3600 Gb/s
    // GPU link; per-rail ring: 2(h-1) steps of S/(gh) over a 400 Gb/s NIC.
    const double nvlink = (g - 1) * us(S / g, 3600.0);
    const double rail = 2 * (h - 1) * us(S / (g * h), 400.0);
    const double closed = 2 * nvlink + rail;
    CHECK(r->time_us - r->latency_us == doctest::Approx(closed).epsilon(1e-9));
    CHECK(r->steps == 2 * 7 + 2 * (hosts - 1));
    CHECK(r->time_us >= r->lower_bound_us);
    CHECK(r->overlap_us == doctest::Approx(0.0));
    // Pipelined, the phases overlap piece by piece (Q pieces): the slowest of
    // (both NVLink phases, which share the GPU's NVLink links, and the rail ring)
    // plus the others' time for one piece. Without switch/NIC latency only cable
    // propagation (< 1 us per hop, paid as fill per loop) is left: within 0.5 %.
    auto p = simulate_collective(*cluster, all_gpus(0, hosts, 8), Collective::kAllReduce,
                                 int64_t{1} << 33, o);
    REQUIRE(p.ok());
    // Q: the power of two up to S/(g · 2 MiB) with the shortest time.
    const auto q = static_cast<double>(p->pieces);
    CHECK(p->pieces >= 1);
    CHECK(p->pieces <= int64_t{1} << 33 >> 3 >> 21);
    CHECK((p->pieces & (p->pieces - 1)) == 0);
    const double top = std::max(nvlink, rail), sum = 2 * nvlink + rail;
    const double overlapped = std::min(sum, std::max(top + (sum - top) / q, 2 * nvlink));
    CHECK(p->time_us == doctest::Approx(overlapped).epsilon(5e-3));
    CHECK(p->time_us >= p->lower_bound_us);
    // One host: both phases are NVLink-bound on the same links, nothing overlaps,
    // and the 512 loops of 2 MiB pay a hop of fill each.
    if (hosts > 1) CHECK(p->time_us < r->time_us);
    REQUIRE(p->phases.size() == (hosts == 1 ? 2u : 3u));
    double phases = 0;
    for (const auto& ph : p->phases) phases += ph.time_us;
    CHECK(p->overlap_us == doctest::Approx(phases - p->time_us).epsilon(1e-12));
    CHECK(p->time_us <= phases * (1 + 1e-12));
  }
}

// The pipelined ring against its closed form, written out here from NCCL's
// Simple-protocol figures (2 MiB chunks of 2 slices; docs/models.md#pipelining):
// one channel over h hosts, one GPU each (every hop a 400G network crossing:
// GPU, PCIe, NIC, leaf, NIC, PCIe, GPU), so every step moves S/h per rank.
TEST_CASE("collective_sim: pipelined ring on an uncontended rail equals the closed form") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const railyard::collective::LatencyModel lm;  // 600 ns switch, 500 ns NIC
  // alpha by hand: source and destination NIC (2 x 500 ns), one leaf (600 ns),
  // rail host-leaf optics 30 m each way (2 x 150 ns); PCIe inside the host adds no
  // cable.
  const double alpha = (2 * 500 + 600 + 2 * 150) / 1000.0;
  for (int64_t S : {int64_t{1} << 20, int64_t{64} << 20, int64_t{1} << 30}) {
    for (int32_t hosts : {4, 32}) {
      CAPTURE(S);
      CAPTURE(hosts);
      Groups g(1);
      for (int32_t h = 0; h < hosts; ++h) g[0].push_back({HostId{h}, GpuIndex{0}});
      CollectiveSimOptions o;
      o.latency = lm;
      auto r = simulate_collective(*cluster, g, Collective::kAllReduce, S, o);
      REQUIRE(r.ok());
      REQUIRE(r->phases.size() == 1);
      CHECK(r->phases[0].alpha_us == doctest::Approx(alpha).epsilon(1e-9));
      const double k = 2.0 * (hosts - 1);
      const double block = static_cast<double>(S) / hosts;
      const double chunk = 2.0 * 1024 * 1024;
      const double loops = std::ceil(block / chunk);
      // slices of max(half the loop's block, 1 MiB / 32): 1 or 2
      const double slices = block / loops > 32 * 1024 ? 2 : 1;
      const double t = us(block / loops / slices, 400.0);
      const double closed =
          loops * ((k - 1) * std::max(alpha + t, slices * t) + slices * t + alpha);
      CHECK(r->time_us == doctest::Approx(closed).epsilon(1e-9));
      CHECK(r->analytic_us == doctest::Approx(closed).epsilon(1e-9));
      // Never better than the transfer alone + one hop of fill per loop; worse than
      // unpipelined by at most that fill (few ranks, many 2 MiB loops: NCCL's
      // buffers cannot move a 256 MiB block in one step).
      CollectiveSimOptions off = o;
      off.pipeline.enabled = false;
      auto u = simulate_collective(*cluster, g, Collective::kAllReduce, S, off);
      REQUIRE(u.ok());
      CHECK(u->time_us == doctest::Approx(k * (alpha + us(block, 400.0))).epsilon(1e-9));
      CHECK(r->time_us <= u->time_us + loops * alpha + 1e-9);
      CHECK(r->time_us >= k * us(block, 400.0) + loops * alpha - 1e-9);
      if (loops == 1 && slices == 2) CHECK(r->time_us < u->time_us);
      CHECK(r->phases[0].saved_us == doctest::Approx(u->time_us - r->time_us).epsilon(1e-9));
    }
  }
}

TEST_CASE("collective_sim: rail-aligned all-to-all matches its closed form") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CollectiveSimOptions o = no_latency();
  o.algorithm = Algorithm::kRailAligned;
  for (int32_t hosts : {2, 4, 32}) {  // inside one SU: every rail is one leaf
    CAPTURE(hosts);
    const double S = static_cast<double>(int64_t{1} << 30);
    auto r = simulate_collective(*cluster, all_gpus(0, hosts, 8), Collective::kAllToAll,
                                 int64_t{1} << 30, o);
    REQUIRE(r.ok());
    const double g = 8, h = hosts, n = g * h;
    // Step 1: each GPU sends h blocks of S/n to each of its g-1 host-mates over
    // NVLink. Step 2: g blocks of S/n to each of h-1 GPUs on its rail, one NIC.
    const double closed = us((g - 1) * h * S / n, 3600.0) + us((h - 1) * g * S / n, 400.0);
    CHECK(r->time_us - r->latency_us == doctest::Approx(closed).epsilon(1e-9));
    CHECK(r->time_us >= r->lower_bound_us);
  }
}

TEST_CASE("collective_sim: lower bounds follow the unit cuts") {
  auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
  REQUIRE(cluster.ok());
  const double S = static_cast<double>(int64_t{1} << 30);
  const Groups every = all_gpus(0, 128, 8);
  // All-to-all over all 1,024 GPUs: an SU (256 ranks) sends 256 * 768 / 1024 S over
  // its 8 leaves x 16 uplinks x 400 Gb/s; a host only 8 * 1016 / 1024 S over 3200.
  auto a2a = railyard::collective::bandwidth_lower_bound(*cluster, Collective::kAllToAll,
                                                         int64_t{1} << 30, every);
  REQUIRE(a2a.ok());
  CHECK(a2a->time_us == doctest::Approx(us(256.0 * 768 / 1024 * S, 8 * 16 * 400.0)));
  CHECK(a2a->level == railyard::collective::UnitLevel::kSu);
  // All-gather on one host: a GPU must take in 7/8 S through NVLink (its PCIe link
  // does not count: traffic inside an NVLink domain never takes it).
  auto ag = railyard::collective::bandwidth_lower_bound(*cluster, Collective::kAllGather,
                                                        int64_t{1} << 30, all_gpus(5, 1, 8));
  REQUIRE(ag.ok());
  CHECK(ag->time_us == doctest::Approx(us(7.0 / 8 * S, 3600.0)));
  // Reduce-scatter across 4 hosts, 8 GPUs each: a host sends (1 - 1/4) S over
  // 3200, a GPU (1 - 1/32) S over its 4000: the GPU binds.
  auto rs = railyard::collective::bandwidth_lower_bound(*cluster, Collective::kReduceScatter,
                                                        int64_t{1} << 30, all_gpus(0, 4, 8));
  REQUIRE(rs.ok());
  CHECK(rs->time_us == doctest::Approx(std::max(us(0.75 * S, 3200.0), us(31.0 / 32 * S, 4000.0))));
  CHECK(rs->level == railyard::collective::UnitLevel::kGpu);
  // On 16 hosts the host NICs bind: (1 - 1/16) S / 3200 > (1 - 1/128) S / 4000.
  auto rs16 = railyard::collective::bandwidth_lower_bound(*cluster, Collective::kReduceScatter,
                                                          int64_t{1} << 30, all_gpus(0, 16, 8));
  REQUIRE(rs16.ok());
  CHECK(rs16->time_us == doctest::Approx(us(15.0 / 16 * S, 3200.0)));
  CHECK(rs16->level == railyard::collective::UnitLevel::kDomain);
  // Eight DP groups (one per local GPU) of 16 hosts at once: per host 8 groups x S
  // must leave (all-reduce, per-unit rule), and 8 x 2(16-1) S cross 16 hosts' NICs.
  Groups dp(8);
  for (int32_t l = 0; l < 8; ++l)
    for (int32_t h = 0; h < 16; ++h) dp[static_cast<size_t>(l)].push_back({HostId{h}, GpuIndex{l}});
  auto ar = railyard::collective::bandwidth_lower_bound(*cluster, Collective::kAllReduce,
                                                        int64_t{1} << 30, dp);
  REQUIRE(ar.ok());
  CHECK(ar->time_us == doctest::Approx(us(8 * 2.0 * 15 * S, 16 * 3200.0)));
}

TEST_CASE("collective_sim: ECMP with one QP reproduces the balls-into-bins efficiencies") {
  // m hosts under one leaf (m uplinks, 1:1) each send one flow to a host under a
  // different leaf: only the source leaf's hashing can collide, so the step time
  // over the ideal time is the fullest of m bins after m balls (docs/constants.md#ecmp).
  struct Case {
    int32_t m;
    int32_t qps;
    double efficiency;  // docs/constants.md#ecmp table
  };
  for (const Case c : {Case{8, 1, 0.38}, Case{16, 1, 0.32}, Case{8, 4, 0.57}, Case{16, 16, 0.68}}) {
    CAPTURE(c.m);
    CAPTURE(c.qps);
    const std::string spec =
        railyard::str_cat("rail_fat_tree:hosts=", c.m * (c.m + 1),
                          ",gpus_per_host=1,nics_per_host=1,hosts_per_su=", c.m,
                          ",switch_radix=", 2 * c.m, ",scale_up=1");
    auto cluster = railyard::topology::make_cluster(spec);
    REQUIRE(cluster.ok());
    // m groups of two ranks would send both ways; build the one-way step directly
    // from the ECMP routes the simulator uses.
    const auto& d = cluster->descriptor;
    const auto& f = cluster->fabric;
    const std::vector<double> caps = railyard::sim::capacities(f);
    const int trials = 600;
    double max_load_sum = 0;
    for (int t = 0; t < trials; ++t) {
      railyard::routing::UniformRandomHash hash(static_cast<uint64_t>(t) + 1);
      std::vector<railyard::routing::Flow> flows;
      std::vector<uint16_t> sports;
      std::vector<uint32_t> qpns;
      for (int32_t i = 0; i < c.m; ++i)
        for (int32_t q = 0; q < c.qps; ++q) {
          flows.push_back({railyard::NicPort{HostId{i}, railyard::NicIndex{0}},
                           railyard::NicPort{HostId{c.m * (i + 1)}, railyard::NicIndex{0}},
                           1e6 / c.qps});
          sports.push_back(static_cast<uint16_t>(railyard::routing::kSportBase + i * c.qps + q));
          qpns.push_back(static_cast<uint32_t>(0x100 + i * c.qps + q));
        }
      auto routes = railyard::routing::ecmp_paths(d, f, flows, hash,
                                                  railyard::routing::EcmpOptions{sports, qpns});
      REQUIRE(routes.ok());
      railyard::sim::FlowStep step;
      for (size_t i = 0; i < flows.size(); ++i)
        step.add(f.route_links(flows[i].src, flows[i].dst, (*routes)[i]), flows[i].bytes);
      auto r = railyard::sim::simulate_step(caps, step);
      REQUIRE(r.ok());
      max_load_sum += r->time_us / us(1e6, 400.0);
    }
    const double efficiency = 1.0 / (max_load_sum / trials);
    // E[1/max] and 1/E[max] differ; the table uses (n/m)/E[max load].
    CHECK(efficiency == doctest::Approx(c.efficiency).epsilon(0.05));
  }
}

TEST_CASE("collective_sim: routing choices rank as expected on a scattered ring") {
  // Hosts interleaved across the 4 SUs: every ring hop crosses SUs.
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  Groups g(1);
  for (int32_t i = 0; i < 64; ++i) {
    const int32_t h = (i % 4) * 32 + i / 4;
    for (int32_t k = 0; k < 8; ++k) g[0].push_back({HostId{h}, GpuIndex{k}});
  }
  auto run = [&](Routing routing, int32_t qps, uint64_t seed) {
    CollectiveSimOptions o = no_latency();
    o.routing = routing;
    o.qps = qps;
    o.seed = seed;
    auto r = simulate_collective(*cluster, g, Collective::kAllGather, int64_t{1} << 30, o);
    REQUIRE(r.ok());
    return *r;
  };
  const auto planned = run(Routing::kPlanned, 1, 1);
  const auto ecmp1 = run(Routing::kEcmp, 1, 1);
  const auto ecmp1b = run(Routing::kEcmp, 1, 1);
  const auto ecmp4 = run(Routing::kEcmp, 4, 1);
  // Planned paths reach the NIC floor: (n-1) steps of S/(8n) over one NIC each.
  const double n = 512;
  CHECK(planned.time_us - planned.latency_us ==
        doctest::Approx((n - 1) * us(static_cast<double>(int64_t{1} << 30) / (8 * n), 400.0))
            .epsilon(1e-9));
  CHECK(ecmp1.time_us > 1.5 * planned.time_us);
  CHECK(ecmp4.time_us < ecmp1.time_us);
  CHECK(ecmp1.time_us == ecmp1b.time_us);  // same seed, same answer
  CHECK(ecmp1.link_bytes == ecmp1b.link_bytes);
  for (const auto* r : {&planned, &ecmp1, &ecmp4}) {
    CHECK(r->time_us >= r->lower_bound_us);
    CHECK(r->analytic_us <= r->time_us * (1 + 1e-9));
  }
}

TEST_CASE("collective_sim: properties on random fabrics, jobs and collectives") {
  std::mt19937 rng(2026);
  const auto specs = railyard::testing::random_valid_specs(100, 611, 24);
  int checked = 0;
  for (const auto& spec : specs) {
    auto desc = railyard::topology::make_descriptor(spec);
    REQUIRE(desc.ok());
    railyard::topology::Cluster cluster{*desc, railyard::topology::materialize(*desc)};
    const auto& d = cluster.descriptor;
    // A random job: a random subset of hosts, every GPU, in random order.
    std::vector<int32_t> hosts(static_cast<size_t>(d.hosts()));
    for (int32_t h = 0; h < d.hosts(); ++h) hosts[static_cast<size_t>(h)] = h;
    std::shuffle(hosts.begin(), hosts.end(), rng);
    const auto used = 1 + rng() % static_cast<uint32_t>(d.hosts());
    Groups g(1);
    for (uint32_t i = 0; i < used; ++i)
      for (int32_t k = 0; k < d.gpus_per_host(); ++k)
        g[0].push_back({HostId{hosts[i]}, GpuIndex{k}});
    if (d.gpus_per_host() > 1 && rng() % 2) {
      // One group per local GPU index (as --group dp over TP-inside-host ranks).
      Groups by_local(static_cast<size_t>(d.gpus_per_host()));
      for (const GpuEndpoint& e : g[0]) by_local[static_cast<size_t>(e.gpu.value())].push_back(e);
      g = by_local;
    }
    const int32_t n = static_cast<int32_t>(g[0].size());
    const Collective kinds[] = {Collective::kAllReduce, Collective::kAllGather,
                                Collective::kReduceScatter, Collective::kAllToAll};
    const Collective kind = kinds[rng() % 4];
    CollectiveSimOptions o;
    o.algorithm = kind == Collective::kAllToAll
                      ? (rng() % 2 ? Algorithm::kPairwise : Algorithm::kRailAligned)
                      : (kind == Collective::kAllReduce && rng() % 2 ? Algorithm::kHierarchical
                                                                     : Algorithm::kRing);
    o.routing = static_cast<Routing>(rng() % railyard::sim::kRoutingCount);
    o.qps = 1 + static_cast<int32_t>(rng() % 4);
    o.seed = rng();
    const int64_t S = int64_t{1} << (10 + rng() % 20);
    CAPTURE(railyard::topology::to_spec_string(spec));
    CAPTURE(railyard::collective::collective_name(kind));
    CAPTURE(railyard::collective::algorithm_name(o.algorithm));
    CAPTURE(railyard::sim::routing_name(o.routing));
    auto r = simulate_collective(cluster, g, kind, S, o);
    if (!r.ok()) {
      // Only the rail-only fabric may refuse (no route between rails is
      // reachable without NVLink forwarding, which the planner always uses).
      FAIL_CHECK(std::string(r.status().message()));
      continue;
    }
    ++checked;
    CHECK(r->time_us >= r->lower_bound_us * (1 - 1e-9));
    CHECK(r->analytic_us <= r->time_us * (1 + 1e-9));
    CHECK(r->busbw_gbps >= 0);
    CHECK(r->max_link_utilization <= 1 + 1e-9);
    // Bytes leaving GPUs = bytes arriving at GPUs (conservation end to end).
    const auto& f = cluster.fabric;
    double out = 0, in = 0;
    for (int32_t l = 0; l < f.link_count(); ++l) {
      const auto link = railyard::LinkId{l};
      if (f.kind(f.src(link)) == railyard::topology::NodeKind::kGpu)
        out += r->link_bytes[static_cast<size_t>(l)];
      if (f.kind(f.dst(link)) == railyard::topology::NodeKind::kGpu)
        in += r->link_bytes[static_cast<size_t>(l)];
    }
    CHECK(out == doctest::Approx(in).epsilon(1e-9));
    // Same input, same output.
    auto again = simulate_collective(cluster, g, kind, S, o);
    REQUIRE(again.ok());
    CHECK(again->time_us == r->time_us);
    CHECK(again->link_bytes == r->link_bytes);
    (void)n;
  }
  CHECK(checked >= 90);
}

TEST_CASE("collective_sim: groups run at once and share the fabric") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  // 8 DP groups (one per local GPU index) over 4 hosts: each ring stays on its
  // rail, so together they take as long as one alone.
  Groups dp(8);
  for (int32_t l = 0; l < 8; ++l)
    for (int32_t h = 0; h < 4; ++h) dp[static_cast<size_t>(l)].push_back({HostId{h}, GpuIndex{l}});
  const CollectiveSimOptions o = no_latency();
  auto all = simulate_collective(*cluster, dp, Collective::kAllReduce, int64_t{1} << 30, o);
  auto one =
      simulate_collective(*cluster, Groups{dp[0]}, Collective::kAllReduce, int64_t{1} << 30, o);
  REQUIRE(all.ok());
  REQUIRE(one.ok());
  CHECK(all->time_us == doctest::Approx(one->time_us).epsilon(1e-12));
  CHECK(all->groups == 8);
  CHECK(all->ranks == 4);
  // 400 Gb/s less one hop of pipeline fill per 2 MiB loop (128 loops of 2(n-1)
  // steps: about 0.1 %).
  CHECK(one->busbw_gbps == doctest::Approx(400.0).epsilon(2e-3));
  CHECK(one->busbw_gbps <= 400.0);
}

TEST_CASE("collective_sim: bad input names the field and value") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const Groups g = all_gpus(0, 2, 8);
  auto msg = [](const auto& r) { return std::string(r.status().message()); };
  auto zero = simulate_collective(*cluster, g, Collective::kAllReduce, 0);
  REQUIRE_FALSE(zero.ok());
  CHECK(msg(zero).find("bytes=0") != std::string::npos);
  auto huge = simulate_collective(*cluster, g, Collective::kAllReduce, int64_t{1} << 51);
  REQUIRE_FALSE(huge.ok());
  CHECK(msg(huge).find("bytes=") != std::string::npos);
  CollectiveSimOptions o;
  o.qps = 0;
  auto qps = simulate_collective(*cluster, g, Collective::kAllReduce, 1 << 20, o);
  REQUIRE_FALSE(qps.ok());
  CHECK(msg(qps).find("qps=0") != std::string::npos);
  o = {};
  o.algorithm = Algorithm::kPairwise;
  auto algo = simulate_collective(*cluster, g, Collective::kAllReduce, 1 << 20, o);
  REQUIRE_FALSE(algo.ok());
  CHECK(msg(algo).find("algorithm=pairwise") != std::string::npos);
  Groups twice = g;
  twice[0].push_back(g[0][3]);
  auto dup = simulate_collective(*cluster, twice, Collective::kAllReduce, 1 << 20);
  REQUIRE_FALSE(dup.ok());
  CHECK(msg(dup).find("gpu=0:3") != std::string::npos);
  Groups uneven = {g[0], {GpuEndpoint{HostId{9}, GpuIndex{0}}}};
  auto sizes = simulate_collective(*cluster, uneven, Collective::kAllReduce, 1 << 20);
  REQUIRE_FALSE(sizes.ok());
  CHECK(msg(sizes).find("groups[1]") != std::string::npos);
  Groups outside = {{GpuEndpoint{HostId{128}, GpuIndex{0}}}};
  auto far = simulate_collective(*cluster, outside, Collective::kAllReduce, 1 << 20);
  REQUIRE_FALSE(far.ok());
  CHECK(msg(far).find("gpu=128:0") != std::string::npos);
  o = {};
  o.algorithm = Algorithm::kHierarchical;
  Groups ragged = {{GpuEndpoint{HostId{0}, GpuIndex{0}}, GpuEndpoint{HostId{0}, GpuIndex{1}},
                    GpuEndpoint{HostId{1}, GpuIndex{0}}}};
  auto rag = simulate_collective(*cluster, ragged, Collective::kAllReduce, 1 << 20, o);
  REQUIRE_FALSE(rag.ok());
  CHECK(msg(rag).find("host") != std::string::npos);
}

TEST_CASE("collective_sim: an NVLink-only ring all-reduce meets its bound exactly") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const double S = static_cast<double>(int64_t{1} << 32);
  auto r = simulate_collective(*cluster, all_gpus(3, 1, 8), Collective::kAllReduce,
                               int64_t{1} << 32, no_latency());
  REQUIRE(r.ok());
  // 2(n-1) steps of S/n over each GPU's 3600 Gb/s NVLink = the GPU-level bound.
  CHECK(r->lower_bound_us == doctest::Approx(us(2.0 * 7 / 8 * S, 3600.0)));
  CHECK(r->time_us == doctest::Approx(r->lower_bound_us).epsilon(1e-9));
  CHECK(r->busbw_gbps == doctest::Approx(3600.0).epsilon(1e-9));
}

TEST_CASE("collective_sim: pipelining the double binary tree shortens it") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CollectiveSimOptions o = no_latency();
  o.algorithm = Algorithm::kDoubleBinaryTree;
  o.tree_pieces = 1;
  const Groups g = all_gpus(0, 16, 8);
  auto one = simulate_collective(*cluster, g, Collective::kAllReduce, int64_t{1} << 30, o);
  o.tree_pieces = 0;  // automatic: 128 pieces of 4 MiB per tree at 1 GiB
  auto many = simulate_collective(*cluster, g, Collective::kAllReduce, int64_t{1} << 30, o);
  o.pipeline.enabled = false;
  o.tree_pieces = 1;  // the whole half-buffer per tree, one step per hop
  auto serial = simulate_collective(*cluster, g, Collective::kAllReduce, int64_t{1} << 30, o);
  REQUIRE(one.ok());
  REQUIRE(many.ok());
  REQUIRE(serial.ok());
  // Pipelined, the tree moves NCCL's 512 KiB chunks whatever the schedule's
  // piece count (a simulation granularity): the same time either way.
  CHECK(many->time_us == doctest::Approx(one->time_us).epsilon(1e-9));
  CHECK(many->time_us < serial->time_us / 3);
  CHECK(many->time_us >= many->lower_bound_us);
  CHECK(railyard::collective::auto_tree_pieces(int64_t{1} << 30) == 128);
  CHECK(railyard::collective::auto_tree_pieces(int64_t{1} << 20) == 1);
  CHECK(railyard::collective::auto_tree_pieces(int64_t{8} << 20) == 8);
}

TEST_CASE("collective_sim: the bound counts only the NICs of the rails a group uses") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  // GPU 0 of host 0 and GPU 0 of host 40: traffic can only use rail 0's NICs.
  Groups pair = {{GpuEndpoint{HostId{0}, GpuIndex{0}}, GpuEndpoint{HostId{40}, GpuIndex{0}}}};
  const double S = static_cast<double>(int64_t{1} << 30);
  auto lb = railyard::collective::bandwidth_lower_bound(*cluster, Collective::kAllReduce,
                                                        int64_t{1} << 30, pair);
  REQUIRE(lb.ok());
  CHECK(lb->time_us == doctest::Approx(us(S, 400.0)));  // S out of one 400G NIC
  auto r =
      simulate_collective(*cluster, pair, Collective::kAllReduce, int64_t{1} << 30, no_latency());
  REQUIRE(r.ok());
  CHECK(r->time_us - r->latency_us == doctest::Approx(lb->time_us).epsilon(1e-9));
}

namespace {

// The leaf-spine links QP port `sport` takes from a to b on a 2-tier fabric,
// recomputed hop by hop from the hash model (independently of ecmp_paths):
// the source leaf picks among its U uplinks in order; the spine above picks
// among its parallel cables to the destination leaf, ordered by that leaf's
// uplink ordinal.
std::vector<railyard::LinkId> hashed_links(const railyard::topology::Cluster& c,
                                           const railyard::routing::HashModel& model,
                                           railyard::NicPort a, railyard::NicPort b,
                                           uint16_t sport, uint32_t dst_qp) {
  namespace rr = railyard::routing;
  const auto& d = c.descriptor;
  const auto& f = c.fabric;
  const rr::FiveTuple t = rr::rocev2_tuple(d, a, b, sport, dst_qp);
  const railyard::SwitchIndex la = d.leaf_of(a);
  const railyard::SwitchIndex lb = d.leaf_of(b);
  if (la == lb) return {};
  const int32_t up = d.shape().leaf_up_ports;
  const int32_t j = model.pick(rr::EcmpHop{rr::HopKind::kSrcLeafUp, la, up}, t);
  std::vector<int32_t> down;
  for (int32_t jb = 0; jb < up; ++jb)
    if (d.spine_of_uplink(lb, jb) == d.spine_of_uplink(la, j)) down.push_back(jb);
  const int32_t k =
      down.size() == 1
          ? 0
          : model.pick(rr::EcmpHop{rr::HopKind::kSpineDown, d.spine_above(la, j),
                                   static_cast<int32_t>(down.size())},
                       t);
  return {f.leaf_uplink(la, j),
          railyard::topology::Fabric::reverse(f.leaf_uplink(lb, down[static_cast<size_t>(k)]))};
}

}  // namespace

TEST_CASE("collective_sim: steered QPs take the hash's path for the advisor's source ports") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const auto& f = cluster->fabric;
  // Two GPUs on rail 3 in different SUs, one channel: connections a->b and b->a.
  const GpuEndpoint ga{HostId{2}, GpuIndex{3}}, gb{HostId{70}, GpuIndex{3}};
  const railyard::NicPort a{HostId{2}, railyard::NicIndex{3}}, b{HostId{70}, railyard::NicIndex{3}};
  constexpr uint32_t kSeed = 11;
  for (int32_t qps : {1, 4, 16, 64}) {
    CAPTURE(qps);
    CollectiveSimOptions o = no_latency();
    o.routing = Routing::kSteered;
    o.qps = qps;
    o.seed = kSeed;
    o.channels = 1;
    const int64_t S = int64_t{1} << 30;
    auto r = simulate_collective(*cluster, Groups{{ga, gb}}, Collective::kAllGather, S, o);
    REQUIRE(r.ok());
    CHECK(r->steerable);
    CHECK(r->hash_model == "crc32");
    // What the advisor hands the plugin (crc32 model, same seed), each QP pushed
    // through the hash: every QP carries S/2 / k on its two leaf-spine links.
    auto adv = railyard::plugin::PathAdvisor::create({.cluster = "h100-1024", .hash_seed = kSeed});
    REQUIRE(adv.ok());
    const railyard::routing::Crc5TupleHash crc(kSeed);
    std::vector<double> want(static_cast<size_t>(f.link_count()), 0.0);
    for (const auto& [src, dst] : {std::pair{a, b}, std::pair{b, a}}) {
      auto c = (*adv)->connect(src, dst, qps);
      REQUIRE(c.ok());
      CHECK(c->qps == std::min(qps, 32));  // 32 uplinks per leaf on h100-1024
      for (int32_t q = 0; q < c->qps; ++q)
        for (railyard::LinkId l :
             hashed_links(*cluster, crc, src, dst, c->source_ports[static_cast<size_t>(q)], 0))
          want[static_cast<size_t>(l.value())] += static_cast<double>(S) / 2 / c->qps;
    }
    int32_t network_links = 0;
    for (int32_t l = 0; l < f.link_count(); ++l) {
      const auto tier = f.tier(railyard::LinkId{l});
      if (tier != railyard::topology::LinkTier::kLeafSpine) continue;
      CAPTURE(l);
      CHECK(r->link_bytes[static_cast<size_t>(l)] ==
            doctest::Approx(want[static_cast<size_t>(l)]).epsilon(1e-12));
      network_links += want[static_cast<size_t>(l)] > 0;
    }
    // k QPs on k distinct uplinks and, below 32, on k distinct down-cables too.
    CHECK(network_links == 2 * 2 * std::min(qps, 32));
  }
}

TEST_CASE("collective_sim: steered lies between ECMP and the planned bound") {
  // Hosts interleaved across the 4 SUs of a non-blocking fabric: every ring hop
  // crosses the spines. The planned bound reaches the NIC floor (closed form).
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  Groups g(1);
  for (int32_t i = 0; i < 64; ++i) {
    const int32_t h = (i % 4) * 32 + i / 4;
    for (int32_t k = 0; k < 8; ++k) g[0].push_back({HostId{h}, GpuIndex{k}});
  }
  auto run = [&](Routing routing, int32_t qps) {
    CollectiveSimOptions o = no_latency();
    o.routing = routing;
    o.qps = qps;
    auto r = simulate_collective(*cluster, g, Collective::kAllGather, int64_t{1} << 30, o);
    REQUIRE(r.ok());
    return r->time_us - r->latency_us;  // transfer time (cables still have latency)
  };
  const double n = 512;
  const double floor_us = (n - 1) * us(static_cast<double>(int64_t{1} << 30) / (8 * n), 400.0);
  CHECK(run(Routing::kPlanned, 1) == doctest::Approx(floor_us).epsilon(1e-9));
  // One QP: the advisor starts each host's connection on a distinct leaf uplink
  // (its position on the leaf), so only the spines' two down-cables can collide:
  // at most twice the floor, never above ECMP, never below the bound.
  const double steered1 = run(Routing::kSteered, 1);
  CHECK(steered1 >= floor_us * (1 - 1e-9));
  CHECK(steered1 <= 2 * floor_us * (1 + 1e-9));
  CHECK(steered1 <= run(Routing::kEcmp, 1));
  // 32 QPs = every uplink: each QP carries 1/32 of the connection and the plan
  // balances the down-cables too, so steering meets the bound exactly.
  CHECK(run(Routing::kSteered, 32) == doctest::Approx(floor_us).epsilon(1e-9));
  CHECK(run(Routing::kSteered, 8) <= steered1 * (1 + 1e-9));
}

TEST_CASE("collective_sim: steering under an unknown hash lands where the hash puts the QPs") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const railyard::routing::UniformRandomHash unknown(5);
  CollectiveSimOptions o = no_latency();
  o.routing = Routing::kSteered;
  o.qps = 4;
  o.channels = 1;
  o.switch_hash = &unknown;
  const GpuEndpoint ga{HostId{0}, GpuIndex{0}}, gb{HostId{40}, GpuIndex{0}};
  auto r = simulate_collective(*cluster, Groups{{ga, gb}}, Collective::kAllGather, 1 << 20, o);
  REQUIRE(r.ok());
  CHECK_FALSE(r->steerable);
  CHECK(r->hash_model == "random");
  // The advisor's ports are consecutive (0xC000 + i), connection c's destination
  // QPs 0x100 + 4c + i (the random model hashes them); the links are the hash's.
  const railyard::NicPort a{HostId{0}, railyard::NicIndex{0}}, b{HostId{40}, railyard::NicIndex{0}};
  std::vector<double> want(static_cast<size_t>(cluster->fabric.link_count()), 0.0);
  for (const auto& [src, dst, c] : {std::tuple{a, b, 0u}, std::tuple{b, a, 1u}}) {
    for (uint32_t q = 0; q < 4; ++q)
      for (railyard::LinkId l : hashed_links(*cluster, unknown, src, dst,
                                             static_cast<uint16_t>(0xC000 + q), 0x100 + 4 * c + q))
        want[static_cast<size_t>(l.value())] += (1 << 20) / 2.0 / 4;
  }
  for (int32_t l = 0; l < cluster->fabric.link_count(); ++l)
    if (cluster->fabric.tier(railyard::LinkId{l}) == railyard::topology::LinkTier::kLeafSpine)
      CHECK(r->link_bytes[static_cast<size_t>(l)] ==
            doctest::Approx(want[static_cast<size_t>(l)]).epsilon(1e-12));
}

TEST_CASE("collective_sim: routing names") {
  using railyard::sim::parse_routing;
  CHECK(*parse_routing("ecmp") == Routing::kEcmp);
  CHECK(*parse_routing("steered") == Routing::kSteered);
  CHECK(*parse_routing("spray") == Routing::kSteered);  // the old name
  CHECK(*parse_routing("planned") == Routing::kPlanned);
  CHECK(CollectiveSimOptions{}.routing == Routing::kEcmp);
  CHECK(railyard::sim::deployable(Routing::kSteered));
  CHECK_FALSE(railyard::sim::deployable(Routing::kPlanned));
  auto bad = parse_routing("adaptiv");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).find("routing=adaptiv") != std::string::npos);
}

TEST_CASE("collective_sim: adaptive routing splits each flow per hop (hand-computed)") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const auto& d = cluster->descriptor;
  const auto& f = cluster->fabric;
  // Rail 3 of hosts 2 (SU0) and 70 (SU2): 32 leaf uplinks, 16 spines with 2
  // cables to each leaf. Uplink 5 of host 2's leaf runs at half capacity.
  const railyard::NicPort a{HostId{2}, railyard::NicIndex{3}}, b{HostId{70}, railyard::NicIndex{3}};
  const railyard::SwitchIndex la = d.leaf_of(a), lb = d.leaf_of(b);
  REQUIRE(d.shape().leaf_up_ports == 32);
  railyard::topology::FailureOverlay half(f);
  half.set_cable_fraction(f.leaf_uplink(la, 5), 0.5);
  CollectiveSimOptions o = no_latency();
  o.routing = Routing::kAdaptive;
  o.channels = 1;
  o.failures = &half;
  const double S = static_cast<double>(int64_t{1} << 30);
  auto r = simulate_collective(*cluster, Groups{{{HostId{2}, GpuIndex{3}}, {HostId{70}, GpuIndex{3}}}},
                               Collective::kAllGather, int64_t{1} << 30, o);
  REQUIRE(r.ok());
  auto bytes = [&](railyard::LinkId l) { return r->link_bytes[static_cast<size_t>(l.value())]; };
  const int32_t s5 = d.spine_of_uplink(la, 5);
  // a -> b, S/2: at a's leaf 31 uplinks of 400 and one of 200 share 12,600 Gb/s,
  // so uplink 5 carries 1/63 and the others 2/63; each spine halves what it gets
  // over its two healthy cables to b's leaf: 3/126 below uplink 5's spine, 4/126
  // below the others.
  double up_sum = 0;
  for (int32_t j = 0; j < 32; ++j) {
    CAPTURE(j);
    const double up = bytes(f.leaf_uplink(la, j));
    CHECK(up == doctest::Approx(S / 2 * (j == 5 ? 1.0 : 2.0) / 63).epsilon(1e-12));
    up_sum += up;
    const railyard::LinkId down = railyard::topology::Fabric::reverse(f.leaf_uplink(lb, j));
    CHECK(bytes(down) ==
          doctest::Approx(S / 2 * (d.spine_of_uplink(lb, j) == s5 ? 3.0 : 4.0) / 126)
              .epsilon(1e-12));
  }
  CHECK(up_sum == doctest::Approx(S / 2).epsilon(1e-12));  // bytes conserved
  // b -> a: 1/32 per uplink of b's leaf; uplink 5's spine splits its 1/16 over
  // the half cable (1/3) and the healthy one (2/3), the others over 2 equal ones.
  for (int32_t j = 0; j < 32; ++j) {
    CAPTURE(j);
    CHECK(bytes(f.leaf_uplink(lb, j)) == doctest::Approx(S / 2 / 32).epsilon(1e-12));
    const double share = d.spine_of_uplink(la, j) != s5 ? 1.0 / 32
                         : j == 5                       ? 1.0 / 48
                                                        : 1.0 / 24;
    CHECK(bytes(railyard::topology::Fabric::reverse(f.leaf_uplink(la, j))) ==
          doctest::Approx(S / 2 * share).epsilon(1e-12));
  }
  // The NIC is the bottleneck (uplink 5 carries 400/63 Gb/s of its 200).
  CHECK(r->time_us - r->latency_us == doctest::Approx(us(S / 2, 400.0)).epsilon(1e-9));
  CHECK(r->analytic_us - r->latency_us == doctest::Approx(us(S / 2, 400.0)).epsilon(1e-9));
  CHECK(r->hash_model.empty());
}

TEST_CASE("collective_sim: adaptive routing reaches the NIC floor where ECMP collides") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  Groups g(1);
  for (int32_t i = 0; i < 64; ++i) {
    const int32_t h = (i % 4) * 32 + i / 4;
    for (int32_t k = 0; k < 8; ++k) g[0].push_back({HostId{h}, GpuIndex{k}});
  }
  CollectiveSimOptions o = no_latency();
  o.routing = Routing::kAdaptive;
  auto r = simulate_collective(*cluster, g, Collective::kAllGather, int64_t{1} << 30, o);
  REQUIRE(r.ok());
  // 32 connections leave each leaf, each spread 1/32 over its 32 uplinks: every
  // uplink carries exactly one connection's worth, so the ring runs at the NIC
  // floor as planned paths do.
  const double n = 512;
  CHECK(r->time_us - r->latency_us ==
        doctest::Approx((n - 1) * us(static_cast<double>(int64_t{1} << 30) / (8 * n), 400.0))
            .epsilon(1e-9));
  CHECK(r->qp_flows == 0);  // no QPs: one multipath flow per transfer
}

}  // namespace railyard_test_sim_collective_sim_test
