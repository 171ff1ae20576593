#include "railyard/placement/ordering.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../support/clusters.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_placement_ordering_test {

using namespace railyard;
using namespace railyard::placement;

namespace {
topology::ClusterDescriptor<> cluster(std::string_view spec) {
  return railyard::testing::descriptor_of(spec);
}
ParallelPlan plan_of(std::string_view text) {
  auto plan = parse_plan(text);
  REQUIRE_MESSAGE(plan.ok(), text, ": ", plan.status().message());
  return *plan;
}
bool contains(const absl::Status& s, std::string_view needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}
}  // namespace

TEST_CASE("plan: sizes, order, bytes, coordinates round-trip") {
  const ParallelPlan p = plan_of("tp=8,pp=4,dp=32");
  CHECK(p.world() == 1024);
  CHECK(p.order_string() == "tp-cp-ep-dp-pp");
  CHECK(p.stride(Dim::kDp) == 8);
  CHECK(p.stride(Dim::kPp) == 256);
  for (int64_t r = 0; r < p.world(); ++r) CHECK(p.rank_of(p.coords(r)) == r);
  const ParallelPlan q = plan_of("tp=2,ep=4,dp=2,order=tp-dp-ep-cp-pp,ep_bytes=1GiB");
  CHECK(q.stride(Dim::kEp) == 4);
  CHECK(q.bytes(Dim::kEp) == doctest::Approx(double(1ull << 30)));
  CHECK(q.bytes(Dim::kTp) == doctest::Approx(kDefaultBytesPerStep[0]));
  CHECK(plan_of(q.to_string()).to_string() == q.to_string());
}

TEST_CASE("plan: bad plans name the key and the value") {
  struct Case {
    const char* text;
    const char* needle;
  };
  for (Case c : {Case{"tp=0", "tp=0"}, Case{"tp=x", "tp=x"}, Case{"tq=2", "tq=2"},
                 Case{"tp=2,order=tp-cp-ep-dp", "order=tp-cp-ep-dp"},
                 Case{"tp=2,order=tp-cp-ep-dp-xx", "xx"}, Case{"tp=2,order=tp-tp-ep-dp-pp", "tp"},
                 Case{"tp=2,tp=4", "tp"}, Case{"tp=2,tp_bytes=lots", "tp_bytes=lots"},
                 Case{"", "job"}, Case{"tp=4096,dp=4096,pp=4096", "too large"}}) {
    auto plan = parse_plan(c.text);
    REQUIRE_FALSE_MESSAGE(plan.ok(), c.text);
    CHECK_MESSAGE(contains(plan.status(), c.needle), c.text, " -> ", plan.status().message());
  }
}

TEST_CASE("ordering: job/host mismatches are errors naming the value") {
  const auto d = cluster("h100-1024");
  struct Case {
    const char* plan;
    std::vector<int32_t> hosts;
    const char* needle;
  };
  const Case cases[] = {
      {"tp=8,dp=4", {0, 1, 2}, "3 hosts given"},     // product != GPUs given
      {"tp=16,dp=2", {}, "tp=16"},                   // larger than the NVLink domain
      {"tp=3,dp=8", {0, 1, 2}, "tp=3"},              // straddles domains
      {"tp=8,dp=2", {0, 200}, "hosts=200"},          // out of range
      {"tp=8,dp=2", {5, 5}, "hosts=5"},              // repeated
      {"tp=8,dp=256", {}, "more than the cluster"},  // larger than the cluster
      {"tp=2,dp=3", {}, "whole number"},             // not whole hosts
  };
  for (const Case& c : cases) {
    auto placed = order_ranks(d, plan_of(c.plan), testing::host_ids(c.hosts));
    REQUIRE_FALSE_MESSAGE(placed.ok(), c.plan);
    CHECK_MESSAGE(contains(placed.status(), c.needle), c.plan, " -> ", placed.status().message());
    CHECK_FALSE(naive_order(d, plan_of(c.plan), testing::host_ids(c.hosts)).ok());
  }
}

// Properties over a sweep of clusters, plans and (non-contiguous) host sets:
// every rank on exactly one of the job's GPUs, TP inside an NVLink domain,
// zero spine bytes for jobs inside one SU, DP rings crossing the spine exactly
// once per SU they span, and never worse than the naive numbering.
TEST_CASE("ordering: properties over a sweep of shapes") {
  std::mt19937 rng(42);
  int checked = 0;
  for (const char* cluster_text :
       {"h100-1024", "h100-1024-2to1", "h100-1024-tor", "h100-16k-3tier", "gb200-nvl72-576",
        "rail_fat_tree:hosts=64,gpus_per_host=4,nics_per_host=4,hosts_per_su=8"}) {
    const auto d = cluster(cluster_text);
    const int32_t g = d.gpus_per_host();
    for (int trial = 0; trial < 40; ++trial) {
      // A random plan whose TP divides the domain, on a random set of hosts.
      const int32_t domain = d.hosts_per_domain() * g;
      std::vector<int32_t> tps;
      for (int32_t t = 1; t <= domain; ++t)
        if (domain % t == 0 && t <= 16) tps.push_back(t);
      const int32_t tp = tps[rng() % tps.size()];
      const int32_t others[] = {1, 2, 4};
      const int32_t cp = others[rng() % 3], ep = others[rng() % 3], pp = others[rng() % 3];
      int64_t rest = int64_t{tp} * cp * ep * pp;
      int32_t dp = 1;
      while ((rest * dp) % g != 0 || rest * dp < g) dp *= 2;
      if (rng() % 2) dp *= 2 + static_cast<int32_t>(rng() % 3);
      const int64_t world = rest * dp;
      const int64_t job_hosts = world / g;
      if (job_hosts > d.hosts() || job_hosts > 512) continue;
      std::vector<int32_t> all(static_cast<size_t>(d.hosts()));
      std::iota(all.begin(), all.end(), 0);
      std::vector<int32_t> hosts;
      if (rng() % 2) {  // a contiguous block of whole domains
        const int32_t per = d.hosts_per_domain();
        const int64_t blocks = (d.hosts() - job_hosts) / per + 1;
        const int64_t start = (static_cast<int64_t>(rng()) % blocks) * per;
        hosts.assign(all.begin() + start, all.begin() + start + job_hosts);
      } else if (d.hosts_per_domain() == 1) {  // scattered hosts in random order
        std::shuffle(all.begin(), all.end(), rng);
        hosts.assign(all.begin(), all.begin() + job_hosts);
      } else {
        continue;
      }
      const ParallelPlan plan =
          plan_of(str_cat("tp=", tp, ",cp=", cp, ",ep=", ep, ",pp=", pp, ",dp=", dp));
      const std::string cluster_name = cluster_text;
      CAPTURE(cluster_name);
      CAPTURE(plan.to_string());
      CAPTURE(hosts.front());
      auto ours = order_ranks(d, plan, testing::host_ids(hosts));
      REQUIRE_MESSAGE(ours.ok(), ours.status().message());
      auto naive = naive_order(d, plan, testing::host_ids(hosts));
      REQUIRE(naive.ok());
      // Every rank exactly once on the job's GPUs.
      std::set<std::pair<int32_t, int32_t>> used;
      for (const Device& dev : ours->devices()) used.insert({dev.host.value(), dev.gpu.value()});
      CHECK(static_cast<int64_t>(used.size()) == world);
      for (const auto& [h, gpu] : used)
        CHECK(std::find(hosts.begin(), hosts.end(), h) != hosts.end());
      const TrafficReport t = traffic(d, *ours);
      const TrafficReport n = traffic(d, *naive);
      CHECK(t.tp_within_domain);
      const auto cost = ordering_cost(t);
      CHECK(cost <= ordering_cost(n));
      // Byte conservation: both numberings move the same bytes in total.
      double total_t = 0, total_n = 0;
      for (int i = 0; i < 4; ++i) total_t += t.bytes_by_tier[i], total_n += n.bytes_by_tier[i];
      CHECK(total_t == doctest::Approx(total_n));
      // Inside one leaf group (an SU of a rail design, one ToR's hosts) no byte
      // reaches a spine.
      std::set<int32_t> groups;
      for (int32_t h : hosts)
        groups.insert(d.kind() == topology::Kind::kTorFatTree
                          ? d.leaf_of(HostId{h}, RailId{0}).value()
                          : d.su_of(HostId{h}).value());
      if (groups.size() == 1) CHECK(t.bytes_at_or_above(Tier::kSpine) == 0);
      for (size_t r = 0; r < t.dp_ring_spine_crossings.size(); ++r) {
        const int32_t spanned = t.dp_ring_sus[r];
        CHECK(t.dp_ring_spine_crossings[r] == (spanned > 1 ? spanned : 0));
      }
      ++checked;
    }
  }
  CHECK(checked > 120);
}

// Brute force: on tiny clusters, every bijection of ranks onto the job's GPUs
// (8! = 40,320), scored with the same lexicographic cost; railyard's ordering
// must reach the minimum.
TEST_CASE("ordering: optimal against every bijection on tiny clusters") {
  struct Case {
    const char* cluster;
    const char* plan;
  };
  const Case cases[] = {
      {"rail_fat_tree:hosts=4,gpus_per_host=2,nics_per_host=2,hosts_per_su=2", "tp=2,dp=4"},
      {"rail_fat_tree:hosts=4,gpus_per_host=2,nics_per_host=2,hosts_per_su=2", "tp=2,pp=2,dp=2"},
      {"rail_fat_tree:hosts=4,gpus_per_host=2,nics_per_host=2,hosts_per_su=2",
       "tp=2,ep=2,dp=2,order=tp-dp-ep-cp-pp"},
      {"rail_fat_tree:hosts=4,gpus_per_host=2,nics_per_host=2,hosts_per_su=2",
       "tp=2,cp=2,dp=2,dp_bytes=4GiB,cp_bytes=1GiB"},
      {"rail_fat_tree:hosts=8,gpus_per_host=1,nics_per_host=1,hosts_per_su=2,tiers=3,sus_per_pod=2",
       "pp=2,dp=4"},
      {"rail_fat_tree:hosts=8,gpus_per_host=1,nics_per_host=1,hosts_per_su=2,tiers=3,sus_per_pod=2",
       "ep=2,dp=2,pp=2,order=tp-pp-dp-ep-cp"},
      {"tor_fat_tree:hosts=8,gpus_per_host=1,nics_per_host=1,hosts_per_su=4,switch_radix=4",
       "cp=2,dp=4"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.cluster);
    CAPTURE(c.plan);
    const auto d = cluster(c.cluster);
    const ParallelPlan plan = plan_of(c.plan);
    auto ours = order_ranks(d, plan);
    REQUIRE(ours.ok());
    const auto our_cost = ordering_cost(traffic(d, *ours));
    std::vector<Device> devices;
    for (int32_t h = 0; h < plan.world() / d.gpus_per_host(); ++h)
      for (int32_t gpu = 0; gpu < d.gpus_per_host(); ++gpu)
        devices.push_back({HostId{h}, GpuIndex{gpu}});
    REQUIRE(devices.size() == 8);
    std::vector<int> perm(devices.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::array<double, 3> best{1e300, 1e300, 1e300};
    std::vector<Device> mapped(devices.size());
    do {
      for (size_t r = 0; r < perm.size(); ++r) mapped[r] = devices[static_cast<size_t>(perm[r])];
      const TrafficReport t = traffic(d, plan, mapped);
      if (!t.tp_within_domain) continue;
      best = std::min(best, ordering_cost(t));
    } while (std::next_permutation(perm.begin(), perm.end()));
    CHECK(our_cost == best);
  }
}

TEST_CASE("ordering: the reference case — a 512-GPU job across 2 SUs of h100-1024-2to1") {
  const auto d = cluster("h100-1024-2to1");
  // Hosts given out of order, half in SU 1 and half in SU 3, interleaved.
  std::vector<int32_t> hosts;
  for (int32_t i = 0; i < 32; ++i) {
    hosts.push_back(96 + i);
    hosts.push_back(32 + i);
  }
  const ParallelPlan plan = plan_of("tp=8,pp=4,dp=16");
  const TrafficReport ours = traffic(d, *order_ranks(d, plan, testing::host_ids(hosts)));
  const TrafficReport naive = traffic(d, *naive_order(d, plan, testing::host_ids(hosts)));
  MESSAGE("spine bytes per step: railyard ", ours.bytes(Tier::kSpine) / double(1ull << 30),
          " GiB, naive ", naive.bytes(Tier::kSpine) / double(1ull << 30), " GiB");
  CHECK(ours.bytes(Tier::kSpine) < naive.bytes(Tier::kSpine));
  for (int32_t c : ours.dp_ring_spine_crossings) CHECK(c <= 2);
}

TEST_CASE("ordering: NVL72 keeps TP and EP inside the rack, DP on the fabric") {
  const auto d = cluster("gb200-nvl72-576");
  // 16 hosts x 4 GPUs from each of 2 racks = 128 GPUs, given interleaved.
  std::vector<int32_t> hosts;
  for (int32_t i = 0; i < 16; ++i) {
    hosts.push_back(i);
    hosts.push_back(18 + i);
  }
  const ParallelPlan plan = plan_of("tp=4,ep=8,dp=2,pp=2,order=tp-dp-pp-ep-cp");
  const auto ours = order_ranks(d, plan, testing::host_ids(hosts));
  REQUIRE(ours.ok());
  const auto devices = ours->devices();
  for (int64_t r = 0; r < plan.world(); ++r) {
    // Every EP and TP peer of r sits in r's NVLink domain.
    const auto c = ours->plan.coords(r);
    for (Dim dim : {Dim::kTp, Dim::kEp})
      for (int32_t k = 0; k < plan.size(dim); ++k) {
        auto peer = c;
        peer[static_cast<size_t>(dim)] = k;
        CHECK(d.domain_of(devices[static_cast<size_t>(ours->plan.rank_of(peer))].host) ==
              d.domain_of(devices[static_cast<size_t>(r)].host));
      }
  }
  const TrafficReport t = traffic(d, *ours);
  const TrafficReport n = traffic(d, *naive_order(d, plan, testing::host_ids(hosts)));
  CHECK(t.tp_within_domain);
  CHECK(t.bytes_at_or_above(Tier::kLeaf) < n.bytes_at_or_above(Tier::kLeaf));
}

}  // namespace railyard_test_placement_ordering_test
