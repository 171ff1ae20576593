// Phases against the step-by-step schedules of schedule.hpp (which verify.hpp
// executes symbolically): expanding the run-length encoding must give the same
// transfers, step for step.
#include "railyard/collective/traffic.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "railyard/collective/schedule.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_collective_traffic_test {

namespace {

using railyard::collective::Algorithm;
using railyard::collective::Collective;
using railyard::collective::collective_traffic;
using railyard::collective::make_schedule;
using railyard::collective::Schedule;
using railyard::collective::ScheduleOptions;
using railyard::collective::Traffic;
using railyard::collective::TrafficOptions;

// Every step of the schedule as a sorted multiset of (src, dst, bytes) with
// transfers between the same pair merged.
using StepSet = std::vector<std::tuple<int32_t, int32_t, double>>;

std::vector<StepSet> expand(const Schedule& s) {
  std::vector<StepSet> out;
  for (const auto& step : s.steps) {
    std::map<std::pair<int32_t, int32_t>, double> m;
    for (const auto& t : step.transfers) m[{t.src, t.dst}] += static_cast<double>(t.bytes);
    StepSet set;
    for (const auto& [k, b] : m) set.emplace_back(k.first, k.second, b);
    out.push_back(set);
  }
  return out;
}

std::vector<StepSet> expand(const Traffic& t) {
  std::vector<StepSet> out;
  for (const auto& p : t.phases) {
    std::map<std::pair<int32_t, int32_t>, double> m;
    for (const auto& x : p.transfers) m[{x.src, x.dst}] += x.bytes;
    StepSet set;
    for (const auto& [k, b] : m) set.emplace_back(k.first, k.second, b);
    for (int64_t r = 0; r < p.repeat; ++r) out.push_back(set);
  }
  return out;
}

std::vector<int32_t> hosts_of(int32_t hosts, int32_t per_host) {
  std::vector<int32_t> h;
  for (int32_t i = 0; i < hosts; ++i)
    for (int32_t g = 0; g < per_host; ++g) h.push_back(i);
  return h;
}

}  // namespace

TEST_CASE("traffic: one-channel rings equal the ring schedules step for step") {
  for (Collective kind :
       {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter}) {
    for (int32_t n : {1, 2, 3, 5, 8, 12}) {
      const int64_t bytes = int64_t{n} * 1000;  // divisible: integer chunks are exact
      auto t = collective_traffic(kind, Algorithm::kRing, n, bytes, {.channels = 1});
      auto s = make_schedule(kind, Algorithm::kRing, n, bytes);
      REQUIRE(t.ok());
      REQUIRE(s.ok());
      CHECK(expand(*t) == expand(*s));
      CHECK(t->steps() == static_cast<int64_t>(s->steps.size()));
      CHECK(t->phases.size() <= 1);
    }
  }
}

TEST_CASE("traffic: hierarchical phases equal the hierarchical schedule") {
  for (auto [hosts, g] :
       std::vector<std::pair<int32_t, int32_t>>{{1, 4}, {2, 1}, {2, 4}, {3, 2}, {4, 8}}) {
    const std::vector<int32_t> h = hosts_of(hosts, g);
    const int32_t n = hosts * g;
    const int64_t bytes = int64_t{g} * hosts * 64;
    auto t = collective_traffic(Collective::kAllReduce, Algorithm::kHierarchical, n, bytes,
                                {.host_of_rank = h});
    ScheduleOptions so;
    so.host_of_rank = h;
    auto s = make_schedule(Collective::kAllReduce, Algorithm::kHierarchical, n, bytes, so);
    REQUIRE(t.ok());
    REQUIRE(s.ok());
    CAPTURE(hosts);
    CAPTURE(g);
    CHECK(expand(*t) == expand(*s));
    CHECK(t->total_bytes() == doctest::Approx(2.0 * (n - 1) * static_cast<double>(bytes)));
  }
}

TEST_CASE("traffic: tree and all-to-all phases carry the schedule's bytes in its steps") {
  const std::vector<int32_t> h = hosts_of(3, 4);
  for (auto [kind, algo] : std::vector<std::pair<Collective, Algorithm>>{
           {Collective::kAllReduce, Algorithm::kDoubleBinaryTree},
           {Collective::kAllToAll, Algorithm::kPairwise},
           {Collective::kAllToAll, Algorithm::kRailAligned}}) {
    auto t = collective_traffic(kind, algo, 12, 12 * 1024, {.host_of_rank = h, .tree_pieces = 3});
    ScheduleOptions so;
    so.host_of_rank = h;
    so.tree_pieces = 3;
    auto s = make_schedule(kind, algo, 12, 12 * 1024, so);
    REQUIRE(t.ok());
    REQUIRE(s.ok());
    CHECK(expand(*t) == expand(*s));
    CHECK(t->total_bytes() == static_cast<double>(railyard::collective::total_bytes(*s)));
  }
}

TEST_CASE("traffic: C channels move the same bytes, each channel a ring through every rank") {
  const int32_t hosts = 4, g = 8;
  const std::vector<int32_t> h = hosts_of(hosts, g);
  auto t = collective_traffic(Collective::kAllReduce, Algorithm::kRing, hosts * g, 1 << 20,
                              {.host_of_rank = h, .nics_per_host = 8});
  REQUIRE(t.ok());
  CHECK(t->channels == 8);  // automatic: one per NIC
  REQUIRE(t->phases.size() == 1);
  CHECK(t->phases[0].repeat == 2 * (hosts * g - 1));
  CHECK(t->total_bytes() == doctest::Approx(2.0 * (hosts * g - 1) * (1 << 20)));
  std::set<std::pair<int32_t, int32_t>> exits;  // (host, rank leaving it)
  for (int32_t c = 0; c < t->channels; ++c) {
    std::map<int32_t, int32_t> next;
    for (const auto& x : t->phases[0].transfers)
      if (x.channel == c) next[x.src] = x.dst;
    REQUIRE(next.size() == static_cast<size_t>(hosts * g));
    // One cycle through every rank.
    std::set<int32_t> seen;
    int32_t r = 0;
    for (int32_t i = 0; i < hosts * g; ++i) {
      seen.insert(r);
      const int32_t nx = next[r];
      if (h[static_cast<size_t>(nx)] != h[static_cast<size_t>(r)]) {
        // Leaves its host exactly once per host per channel, from a different
        // GPU for every channel.
        CHECK(exits.insert({h[static_cast<size_t>(r)], r}).second);
      }
      r = nx;
    }
    CHECK(r == 0);
    CHECK(seen.size() == static_cast<size_t>(hosts * g));
  }
  CHECK(exits.size() == static_cast<size_t>(hosts * 8));
}

TEST_CASE("traffic: automatic channels") {
  // Single host: one ring. One rank per host: one ring. 4 per host with 8 NICs: 4.
  auto one = collective_traffic(Collective::kAllGather, Algorithm::kRing, 8, 800,
                                {.host_of_rank = std::vector<int32_t>(8, 0), .nics_per_host = 8});
  REQUIRE(one.ok());
  CHECK(one->channels == 1);
  const std::vector<int32_t> spread = {0, 1, 2, 3};
  auto dp = collective_traffic(Collective::kAllGather, Algorithm::kRing, 4, 800,
                               {.host_of_rank = spread, .nics_per_host = 8});
  REQUIRE(dp.ok());
  CHECK(dp->channels == 1);
  const std::vector<int32_t> four = hosts_of(2, 4);
  auto quad = collective_traffic(Collective::kAllGather, Algorithm::kRing, 8, 800,
                                 {.host_of_rank = four, .nics_per_host = 8});
  REQUIRE(quad.ok());
  CHECK(quad->channels == 4);
  auto capped = collective_traffic(Collective::kAllGather, Algorithm::kRing, 8, 800,
                                   {.host_of_rank = four, .nics_per_host = 2});
  REQUIRE(capped.ok());
  CHECK(capped->channels == 2);
}

TEST_CASE("traffic: bad input names the field") {
  auto msg = [](const auto& s) { return std::string(s.status().message()); };
  auto a = collective_traffic(Collective::kAllReduce, Algorithm::kRing, 4, 100, {.channels = 65});
  REQUIRE_FALSE(a.ok());
  CHECK(msg(a).find("channels=65") != std::string::npos);
  auto b = collective_traffic(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, 4, 100,
                              {.channels = 2});
  REQUIRE_FALSE(b.ok());
  CHECK(msg(b).find("channels=2") != std::string::npos);
  const std::vector<int32_t> three = {0, 0, 1};
  auto c =
      collective_traffic(Collective::kAllReduce, Algorithm::kRing, 4, 100, {.host_of_rank = three});
  REQUIRE_FALSE(c.ok());
  CHECK(msg(c).find("host_of_rank") != std::string::npos);
  auto d = collective_traffic(Collective::kAllToAll, Algorithm::kRing, 4, 100);
  REQUIRE_FALSE(d.ok());
  CHECK(msg(d).find("algorithm=ring") != std::string::npos);
  auto e = collective_traffic(Collective::kAllReduce, Algorithm::kHierarchical, 4, 100);
  REQUIRE_FALSE(e.ok());
  CHECK(msg(e).find("host_of_rank") != std::string::npos);
  auto f = collective_traffic(Collective::kAllReduce, Algorithm::kRing, 0, 100);
  REQUIRE_FALSE(f.ok());
  auto g = collective_traffic(Collective::kAllReduce, Algorithm::kRing, 4, -1);
  REQUIRE_FALSE(g.ok());
}

TEST_CASE("traffic: peer_volumes is the per-pair sum of the phases (ring, pairwise)") {
  using railyard::collective::peer_volumes;
  using railyard::collective::PeerVolume;
  const int64_t S = int64_t{3} << 20;
  const std::tuple<Collective, Algorithm> pairs[] = {
      {Collective::kAllReduce, Algorithm::kRing},
      {Collective::kAllGather, Algorithm::kRing},
      {Collective::kReduceScatter, Algorithm::kRing},
      {Collective::kAllToAll, Algorithm::kPairwise}};
  for (const auto& [kind, algo] : pairs)
    for (int32_t n = 2; n <= 12; ++n) {
      CAPTURE(n);
      TrafficOptions o;
      o.channels = 1;
      auto t = collective_traffic(kind, algo, n, S, o);
      REQUIRE(t.ok());
      std::map<std::pair<int32_t, int32_t>, double> sent;  // (src, dst) -> bytes
      for (const auto& phase : t->phases)
        for (const auto& x : phase.transfers)
          sent[{x.src, x.dst}] += x.bytes * static_cast<double>(phase.repeat);
      auto v = peer_volumes(kind, algo, n, static_cast<double>(S));
      REQUIRE(v.ok());
      // Every member sends each peer exactly the closed-form volume.
      std::map<std::pair<int32_t, int32_t>, double> want;
      for (int32_t r = 0; r < n; ++r)
        for (const PeerVolume& pv : *v) want[{r, (r + pv.offset) % n}] += pv.bytes;
      REQUIRE(sent.size() == want.size());
      for (const auto& [pair, bytes] : want)
        CHECK(sent[pair] == doctest::Approx(bytes).epsilon(1e-12));
    }
  CHECK_FALSE(peer_volumes(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, 8, 1.0).ok());
  CHECK_FALSE(peer_volumes(Collective::kAllToAll, Algorithm::kRing, 8, 1.0).ok());
  CHECK(peer_volumes(Collective::kAllReduce, Algorithm::kRing, 1, 1.0)->empty());
}

}  // namespace railyard_test_collective_traffic_test
