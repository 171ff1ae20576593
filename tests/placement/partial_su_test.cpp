// Placement, rank order and simulation on clusters with a partial last SU or pod
// (topology/shape.hpp): the allocator never hands out a host that does not exist
// and fills the partial SU by its real size; railyard's rank order is a bijection
// onto the job's GPUs with DP rings entering and leaving the partial SU once; a
// ring on every host takes no less than the hand-computed bandwidth bound.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../support/clusters.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_placement_partial_su_test {

using namespace railyard;
using namespace railyard::placement;

namespace {
topology::ClusterDescriptor<> cluster(std::string_view spec) {
  return railyard::testing::descriptor_of(spec);
}
JobRequest job(std::string name, int64_t gpus) { return {std::move(name), "", gpus}; }
}  // namespace

TEST_CASE("partial SU allocator: capacities, best fit into the partial SU, no phantom host") {
  const auto d = cluster("rail_fat_tree:hosts=100");
  Allocator a(d);
  CHECK(a.free_hosts() == 100);
  CHECK(a.free_hosts_in_su(SuId{3}) == 4);
  CHECK(a.free_hosts_in_pod(PodId{0}) == 100);
  CHECK(a.fragmentation().free_hosts_per_su == std::vector<int32_t>{32, 32, 32, 4});
  // A 4-host job fits only the partial SU exactly: best fit takes it there.
  auto four = a.allocate(job("four", 32));
  REQUIRE(four.ok());
  CHECK(four->hosts == railyard::testing::host_ids({96, 97, 98, 99}));
  CHECK(four->sus == std::vector<SuId>{SuId{3}});
  // A 5-host job would not fit the 4 hosts the partial SU has: a full SU.
  Allocator b(d);
  auto five = b.allocate(job("five", 40));
  REQUIRE(five.ok());
  CHECK(five->sus == std::vector<SuId>{SuId{0}});
  // The whole cluster: exactly hosts 0-99, nothing beyond.
  Allocator all(d);
  auto whole = all.allocate(job("all", 800));
  REQUIRE(whole.ok());
  CHECK(whole->hosts.size() == 100);
  CHECK(whole->hosts.back() == HostId{99});
  CHECK_FALSE(all.allocate(job("more", 8)).ok());
}

TEST_CASE("partial pod allocator: the last pod holds one partial SU") {
  // 70 hosts in SUs of 16, pods of 2 SUs: pods of 32, 32 and 6 hosts.
  const auto d = cluster("rail_fat_tree:hosts=70,hosts_per_su=16,tiers=3,sus_per_pod=2");
  Allocator a(d);
  CHECK(a.free_hosts_in_pod(PodId{2}) == 6);
  CHECK(a.free_hosts_in_su(SuId{4}) == 6);
  auto six = a.allocate(job("six", 48));
  REQUIRE(six.ok());
  CHECK(six->hosts.front() == HostId{64});
  CHECK(six->pods == std::vector<PodId>{PodId{2}});
  // 40 hosts span pods: the two full pods taken whole... minus what fits one.
  auto big = a.allocate(job("big", 40 * 8));
  REQUIRE(big.ok());
  CHECK(big->hosts.back().value() < 64);
  CHECK(a.free_hosts() == 70 - 6 - 40);
}

// Random job streams under every policy on partial clusters: every host handed
// out exists, no host twice, per-SU counts add up, and a job of at most the
// partial SU's free hosts is never split when it fits one SU.
TEST_CASE("partial SU allocator: random streams never hand out a missing host") {
  std::mt19937 rng(7);
  for (std::string_view spec :
       {"rail_fat_tree:hosts=100", "rail_fat_tree:hosts=37,hosts_per_su=8",
        "rail_fat_tree:hosts=70,hosts_per_su=16,tiers=3,sus_per_pod=2",
        "tor_fat_tree:hosts=45,hosts_per_su=8", "rail_only:hosts=13,hosts_per_su=4"}) {
    const auto d = cluster(spec);
    for (Policy policy : kAllPolicies) {
      CAPTURE(spec);
      CAPTURE(static_cast<int>(policy));
      Allocator a(d, {.policy = policy, .seed = 3});
      std::vector<std::string> live;
      for (int step = 0; step < 300; ++step) {
        if (!live.empty() && rng() % 3 == 0) {
          const size_t i = rng() % live.size();
          CHECK(a.release(live[i]).ok());
          live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
          continue;
        }
        const int32_t hosts = 1 + static_cast<int32_t>(rng() % 20);
        const std::string name = str_cat("j", step);
        auto r = a.allocate(job(name, int64_t{hosts} * d.gpus_per_host()));
        if (!r.ok()) {
          CHECK(hosts > a.free_hosts());
          continue;
        }
        live.push_back(name);
        CHECK(static_cast<int32_t>(r->hosts.size()) == hosts);
        for (HostId h : r->hosts) CHECK(h.value() < d.hosts());
      }
      std::set<int32_t> held;
      int32_t held_count = 0;
      for (JobId id : a.jobs())
        for (HostId h : a.find(id)->hosts) {
          held.insert(h.value());
          ++held_count;
        }
      CHECK(static_cast<int32_t>(held.size()) == held_count);
      CHECK(a.free_hosts() == d.hosts() - held_count);
      const Fragmentation f = a.fragmentation();
      for (int32_t su = 0; su < d.sus(); ++su) {
        int32_t free = 0;
        for (int32_t h = d.first_host_of_su(su); h < d.first_host_of_su(su) + d.hosts_in_su(su);
             ++h)
          free += a.is_free(HostId{h}) ? 1 : 0;
        CHECK(f.free_hosts_per_su[static_cast<size_t>(su)] == free);
      }
    }
  }
}

TEST_CASE("partial SU ordering: a bijection onto the job's GPUs, rings cross into the SU once") {
  const auto d = cluster("rail_fat_tree:hosts=100");
  // Hosts 90-99: 6 in SU2, 4 in the partial SU3, given interleaved.
  const std::vector<HostId> hosts =
      railyard::testing::host_ids({96, 90, 97, 91, 98, 92, 99, 93, 94, 95});
  auto plan = parse_plan("tp=8,dp=10");
  REQUIRE(plan.ok());
  auto order = order_ranks(d, *plan, hosts);
  REQUIRE(order.ok());
  std::set<std::pair<int32_t, int32_t>> gpus;
  for (const Device& dev : order->devices()) gpus.insert({dev.host.value(), dev.gpu.value()});
  CHECK(gpus.size() == 80);
  std::set<std::pair<int32_t, int32_t>> expected;
  for (HostId h : hosts)
    for (int32_t g = 0; g < 8; ++g) expected.insert({h.value(), g});
  CHECK(gpus == expected);
  // Each DP ring (one per TP rank) walks SU2 then SU3: two SU crossings.
  for (int32_t tp = 0; tp < 8; ++tp) {
    int crossings = 0;
    for (int32_t dp = 0; dp < 10; ++dp) {
      const Device a = order->device(order->plan.rank_of({tp, 0, 0, dp, 0}));
      const Device b = order->device(order->plan.rank_of({tp, 0, 0, (dp + 1) % 10, 0}));
      crossings += d.su_of(a.host) != d.su_of(b.host) ? 1 : 0;
    }
    CHECK(crossings == 2);
  }
}

TEST_CASE("partial SU simulation: a ring on every host against the hand bound") {
  auto c = topology::make_cluster("rail_fat_tree:hosts=100");
  REQUIRE(c.ok());
  std::vector<std::vector<routing::GpuEndpoint>> groups(1);
  for (int32_t h = 0; h < 100; ++h)
    for (int32_t g = 0; g < 8; ++g) groups[0].push_back({HostId{h}, GpuIndex{g}});
  const int64_t bytes = int64_t{1} << 30;
  sim::CollectiveSimOptions o;
  o.routing = sim::Routing::kPlanned;
  auto r = sim::simulate_collective(*c, groups, collective::Collective::kAllReduce, bytes, o);
  REQUIRE(r.ok());
  // Ring all-reduce over k = 100 hosts: each host sends and receives 2(k-1)/k x S
  // over its 8 NICs at 400 Gb/s, in whatever order: 2 x 99 x S bytes over
  // 100 x 8 x 400 Gb/s in total.
  const double bound_us = 2.0 * 99 * static_cast<double>(bytes) * 8 / (100 * 8 * 400e3);
  CHECK(std::isfinite(r->time_us));
  CHECK(r->time_us >= bound_us * (1 - 1e-9));
  // Planned paths leave only the pipeline's fill and the hops' latency on top.
  CHECK(r->time_us - r->latency_us <= bound_us * 1.05);
}

}  // namespace railyard_test_placement_partial_su_test
