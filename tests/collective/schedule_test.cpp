#include "railyard/collective/schedule.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "railyard/collective/verify.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_collective_schedule_test {

using namespace railyard;
using namespace railyard::collective;

namespace {

const std::vector<int64_t> kSizes = {0, 1, 7, 1000, 1 << 20, 1000003};

std::vector<int32_t> hosts_of(int32_t hosts, int32_t g) {
  std::vector<int32_t> out;
  for (int32_t h = 0; h < hosts; ++h)
    for (int32_t l = 0; l < g; ++l) out.push_back(h);
  return out;
}

void require_verified(const railyard::StatusOr<Schedule>& s) {
  REQUIRE_MESSAGE(s.ok(), s.status().message());
  const absl::Status v = verify(*s);
  INFO(s->algorithm, " ", collective_name(s->kind), " n=", s->ranks, " S=", s->bytes);
  CHECK_MESSAGE(v.ok(), v.message());
  auto closed = closed_form_total_bytes(*s);
  REQUIRE(closed.ok());
  CHECK(total_bytes(*s) == *closed);
}

bool mentions(const absl::Status& st, const std::string& text) {
  return std::string(st.message()).find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("schedule: split_part sums exactly") {
  for (int64_t total : {int64_t{0}, int64_t{1}, int64_t{17}, int64_t{1000003}})
    for (int64_t parts = 1; parts <= 17; ++parts) {
      int64_t sum = 0;
      for (int64_t i = 0; i < parts; ++i) {
        const int64_t p = split_part(total, parts, i);
        CHECK(p >= total / parts);
        CHECK(p <= total / parts + 1);
        sum += p;
      }
      CHECK(sum == total);
    }
}

TEST_CASE("schedule: ring collectives verify for n 1 to 17") {
  for (int32_t n = 1; n <= 17; ++n)
    for (int64_t S : kSizes) {
      auto ar = ring_all_reduce(n, S);
      require_verified(ar);
      CHECK(ar->steps.size() == static_cast<size_t>(2 * (n - 1)));
      CHECK(total_bytes(*ar) == 2 * (n - 1) * S);
      auto ag = ring_all_gather(n, S);
      require_verified(ag);
      CHECK(ag->steps.size() == static_cast<size_t>(n - 1));
      CHECK(total_bytes(*ag) == (n - 1) * S);
      auto rs = ring_reduce_scatter(n, S);
      require_verified(rs);
      CHECK(rs->steps.size() == static_cast<size_t>(n - 1));
      CHECK(total_bytes(*rs) == (n - 1) * S);
      for (const auto* s : {&*ar, &*ag, &*rs})
        for (const Step& step : s->steps) CHECK(step.transfers.size() == static_cast<size_t>(n));
    }
}

TEST_CASE("schedule: ring per-rank bytes match the nccl-tests factors") {
  // With S divisible by n every rank sends exactly busbw_factor * S.
  for (int32_t n = 1; n <= 16; ++n) {
    const int64_t S = int64_t{720720} * 16;  // divisible by 1..16
    auto ar = ring_all_reduce(n, S);
    auto ag = ring_all_gather(n, S);
    auto a2a = pairwise_all_to_all(n, S);
    REQUIRE(ar.ok());
    for (int64_t b : bytes_sent_per_rank(*ar))
      CHECK(static_cast<double>(b) == per_rank_send_bytes(Collective::kAllReduce, n, S));
    for (int64_t b : bytes_sent_per_rank(*ag))
      CHECK(static_cast<double>(b) == per_rank_send_bytes(Collective::kAllGather, n, S));
    for (int64_t b : bytes_sent_per_rank(*a2a))
      CHECK(static_cast<double>(b) == per_rank_send_bytes(Collective::kAllToAll, n, S));
  }
}

TEST_CASE("schedule: double binary tree verifies for n 1 to 17 and several piece counts") {
  for (int32_t n = 1; n <= 17; ++n)
    for (int32_t pieces : {1, 2, 3, 8})
      for (int64_t S : kSizes) {
        auto t = double_binary_tree_all_reduce(n, S, pieces);
        require_verified(t);
        CHECK(total_bytes(*t) == 2 * (n - 1) * S);
        if (n == 1) CHECK(t->steps.empty());
      }
}

TEST_CASE("schedule: double binary tree shape") {
  // Both trees are spanning trees with one root, of logarithmic depth; the step
  // count is 2H + pieces - 1 with H the larger tree height.
  for (int32_t n = 2; n <= 64; ++n)
    for (int32_t t = 0; t < 2; ++t) {
      int32_t roots = 0, max_depth = 0;
      for (int32_t r = 0; r < n; ++r) {
        const int32_t p = collective::dtree_parent(n, t, r);
        if (p < 0) {
          ++roots;
          continue;
        }
        CHECK(p < n);
        int32_t d = 0;
        for (int32_t u = r; u >= 0 && d <= n; u = collective::dtree_parent(n, t, u)) ++d;
        CHECK(d <= n);  // no cycle
        max_depth = std::max(max_depth, d - 1);
      }
      CHECK(roots == 1);
      CHECK(max_depth <= static_cast<int32_t>(std::ceil(std::log2(n))) + 1);
    }
  // n = 2: the trees are 0 <- 1 and 1 <- 0.
  CHECK(collective::dtree_parent(2, 0, 1) == 0);
  CHECK(collective::dtree_parent(2, 1, 0) == 1);
  auto s = double_binary_tree_all_reduce(8, 800, 4);
  REQUIRE(s.ok());
  // n = 8: tree 0 root 0 with height 3; steps = 2*3 + 4 - 1.
  CHECK(s->steps.size() == 9u);
  // Pipelining shortens nothing in bytes but spreads them over more steps.
  auto one = double_binary_tree_all_reduce(8, 800, 1);
  CHECK(total_bytes(*one) == total_bytes(*s));
}

TEST_CASE("schedule: hierarchical all-reduce verifies for g 1 2 4 8 and hosts 1 to 6") {
  for (int32_t g : {1, 2, 4, 8})
    for (int32_t h = 1; h <= 6; ++h)
      for (int64_t S : {int64_t{0}, int64_t{5}, int64_t{4096}, int64_t{1000003}}) {
        auto s = hierarchical_all_reduce(hosts_of(h, g), S);
        require_verified(s);
        const int32_t n = g * h;
        CHECK(total_bytes(*s) == 2 * (n - 1) * S);
        CHECK(s->steps.size() == static_cast<size_t>(2 * (g - 1) + 2 * (h - 1)));
        CHECK(s->ranks_per_host == g);
      }
}

TEST_CASE("schedule: hierarchical phases stay on NVLink or on one rail") {
  // Interleaved host ids: rank r is on host r % 3, so local index = r / 3.
  std::vector<int32_t> host_of_rank;
  for (int32_t r = 0; r < 12; ++r) host_of_rank.push_back(r % 3);
  auto s = hierarchical_all_reduce(host_of_rank, 1 << 16);
  require_verified(s);
  const int32_t g = 4, h = 3;
  for (size_t i = 0; i < s->steps.size(); ++i) {
    const bool inter = i >= static_cast<size_t>(g - 1) && i < static_cast<size_t>(g - 1 + 2 * (h - 1));
    for (const Transfer& t : s->steps[i].transfers) {
      if (inter) {
        CHECK(host_of_rank[static_cast<size_t>(t.src)] != host_of_rank[static_cast<size_t>(t.dst)]);
        CHECK(t.src / 3 == t.dst / 3);  // same local index: same rail
      } else {
        CHECK(host_of_rank[static_cast<size_t>(t.src)] == host_of_rank[static_cast<size_t>(t.dst)]);
      }
    }
  }
}

TEST_CASE("schedule: pairwise all-to-all verifies for n 1 to 17") {
  for (int32_t n = 1; n <= 17; ++n)
    for (int64_t S : kSizes) {
      auto s = pairwise_all_to_all(n, S);
      require_verified(s);
      CHECK(s->steps.size() == static_cast<size_t>(n - 1));
      CHECK(total_bytes(*s) == (n - 1) * S);
      for (size_t k = 0; k < s->steps.size(); ++k)
        for (const Transfer& t : s->steps[k].transfers)
          CHECK(t.dst == (t.src + static_cast<int32_t>(k) + 1) % n);
    }
}

TEST_CASE("schedule: rail-aligned all-to-all verifies and uses one inter-host hop") {
  for (int32_t g : {1, 2, 4, 8})
    for (int32_t h = 1; h <= 6; ++h)
      for (int64_t S : {int64_t{0}, int64_t{3}, int64_t{1 << 20}, int64_t{999983}}) {
        const auto hosts = hosts_of(h, g);
        auto s = rail_aligned_all_to_all(hosts, S);
        require_verified(s);
        const int64_t n = g * h;
        CHECK(total_bytes(*s) == (n - 1) * S + (g - 1) * (h - 1) * S);
        CHECK(s->steps.size() <= 2u);
        if (g > 1 && h > 1) {
          REQUIRE(s->steps.size() == 2u);
          for (const Transfer& t : s->steps[0].transfers)
            CHECK(hosts[static_cast<size_t>(t.src)] == hosts[static_cast<size_t>(t.dst)]);
          for (const Transfer& t : s->steps[1].transfers) {
            CHECK(hosts[static_cast<size_t>(t.src)] != hosts[static_cast<size_t>(t.dst)]);
            CHECK(t.src % g == t.dst % g);  // same rail
          }
        }
      }
}

TEST_CASE("schedule: make_schedule dispatches and rejects unknown pairs") {
  ScheduleOptions opt;
  opt.host_of_rank = hosts_of(2, 4);
  opt.tree_pieces = 3;
  for (Collective c : {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
                       Collective::kAllToAll})
    for (Algorithm a : {Algorithm::kRing, Algorithm::kDoubleBinaryTree, Algorithm::kHierarchical,
                        Algorithm::kPairwise, Algorithm::kRailAligned}) {
      auto s = make_schedule(c, a, 8, 12345, opt);
      const bool supported =
          (a == Algorithm::kRing && c != Collective::kAllToAll) ||
          (c == Collective::kAllReduce &&
           (a == Algorithm::kDoubleBinaryTree || a == Algorithm::kHierarchical)) ||
          (c == Collective::kAllToAll && (a == Algorithm::kPairwise || a == Algorithm::kRailAligned));
      CHECK(s.ok() == supported);
      if (s.ok()) {
        CHECK(s->kind == c);
        CHECK(s->algorithm == algorithm_name(a));
        CHECK(verify(*s).ok());
      } else {
        CHECK(mentions(s.status(), std::string(algorithm_name(a))));
        CHECK(mentions(s.status(), std::string(collective_name(c))));
      }
    }
}

TEST_CASE("schedule: bad input names the value") {
  CHECK(mentions(ring_all_reduce(0, 10).status(), "ranks=0"));
  CHECK(mentions(ring_all_gather(-3, 10).status(), "ranks=-3"));
  CHECK(mentions(ring_reduce_scatter(4, -1).status(), "bytes=-1"));
  CHECK(mentions(pairwise_all_to_all(4, (int64_t{1} << 50) + 1).status(), "bytes=1125899906842625"));
  CHECK(mentions(double_binary_tree_all_reduce(4, 10, 0).status(), "pieces=0"));
  CHECK(mentions(hierarchical_all_reduce({0, 0, 0, 1, 1}, 10).status(), "host 1"));
  CHECK(mentions(rail_aligned_all_to_all({0, 1, 1}, 10).status(), "host"));
  CHECK(mentions(hierarchical_all_reduce({}, 10).status(), "ranks=0"));
  CHECK(mentions(hierarchical_all_reduce({0, -1}, 10).status(), "host_of_rank[1]=-1"));
  ScheduleOptions opt;
  opt.host_of_rank = {0, 0, 1};
  CHECK(mentions(make_schedule(Collective::kAllReduce, Algorithm::kHierarchical, 4, 10, opt).status(),
                 "host_of_rank=3 entries"));
  CHECK(mentions(make_schedule(Collective::kAllToAll, Algorithm::kRailAligned, 4, 10, opt).status(),
                 "host_of_rank=3 entries"));
  CHECK_FALSE(pairwise_all_to_all(kMaxAllToAllRanks + 1, 10).ok());
}

TEST_CASE("schedule: broken schedules fail verify naming the rank and chunk") {
  SUBCASE("dropped transfer in a ring all-reduce") {
    auto s = ring_all_reduce(5, 1000);
    REQUIRE(s.ok());
    s->steps[1].transfers.erase(s->steps[1].transfers.begin() + 2);
    const absl::Status v = verify(*s);
    CHECK_FALSE(v.ok());
    CHECK(mentions(v, "rank "));
    CHECK(mentions(v, "chunk "));
  }
  SUBCASE("every single dropped transfer is caught") {
    for (auto make : {+[] { return ring_all_reduce(4, 100); }, +[] { return ring_all_gather(4, 100); },
                      +[] { return ring_reduce_scatter(4, 100); },
                      +[] { return double_binary_tree_all_reduce(6, 100, 2); },
                      +[] { return hierarchical_all_reduce(hosts_of(3, 2), 100); },
                      +[] { return pairwise_all_to_all(4, 100); },
                      +[] { return rail_aligned_all_to_all(hosts_of(3, 2), 100); }}) {
      const Schedule good = *make();
      for (size_t i = 0; i < good.steps.size(); ++i)
        for (size_t j = 0; j < good.steps[i].transfers.size(); ++j) {
          Schedule bad = good;
          bad.steps[i].transfers.erase(bad.steps[i].transfers.begin() + static_cast<ptrdiff_t>(j));
          if (bad.steps[i].transfers.empty()) bad.steps.erase(bad.steps.begin() + static_cast<ptrdiff_t>(i));
          INFO(good.algorithm, " step ", i, " transfer ", j);
          CHECK_FALSE(verify(bad).ok());
        }
    }
  }
  SUBCASE("double counting") {
    auto s = ring_all_reduce(3, 30);
    REQUIRE(s.ok());
    s->steps.push_back(s->steps[0]);  // reduce the same partials again
    const absl::Status v = verify(*s);
    CHECK_FALSE(v.ok());
    CHECK(mentions(v, "twice"));
  }
  SUBCASE("wrong bytes") {
    auto s = pairwise_all_to_all(3, 30);
    REQUIRE(s.ok());
    s->steps[0].transfers[0].bytes += 1;
    CHECK(mentions(verify(*s), "carries 11 bytes"));
  }
  SUBCASE("sending what one does not hold") {
    auto s = ring_all_gather(3, 30);
    REQUIRE(s.ok());
    s->steps[0].transfers[0].chunk = 2;  // rank 0 does not hold rank 2's block yet
    CHECK(mentions(verify(*s), "does not hold"));
  }
  SUBCASE("reduce in an all-gather") {
    auto s = ring_all_gather(3, 30);
    REQUIRE(s.ok());
    s->steps[0].transfers[0].op = Op::kReduce;
    CHECK(mentions(verify(*s), "reduce in a allgather"));
  }
  SUBCASE("an extra transfer breaks byte conservation") {
    auto s = ring_all_gather(3, 30);
    REQUIRE(s.ok());
    s->steps.push_back(s->steps.back());  // resend: data is right, bytes are not
    CHECK(mentions(verify(*s), "closed form"));
  }
}

TEST_CASE("schedule: busbw factors and closed forms") {
  CHECK(busbw_factor(Collective::kAllReduce, 8) == doctest::Approx(1.75));
  CHECK(busbw_factor(Collective::kAllGather, 8) == doctest::Approx(0.875));
  CHECK(busbw_factor(Collective::kReduceScatter, 8) == doctest::Approx(0.875));
  CHECK(busbw_factor(Collective::kAllToAll, 8) == doctest::Approx(0.875));
  CHECK(busbw_factor(Collective::kAllReduce, 1) == 0.0);
  // 1 GiB in 25 ms: algbw = 2^30 * 8 / 25e-3 s = 343.6 Gb/s.
  const double alg = algbw_gbps(int64_t{1} << 30, 25000.0);
  CHECK(alg == doctest::Approx(343.59738368));
  CHECK(busbw_gbps(Collective::kAllReduce, 16, alg) == doctest::Approx(alg * 30.0 / 16.0));
  CHECK(algbw_gbps(100, 0.0) == 0.0);
  // Ring all-reduce of 1 GB over 8 ranks at 400 Gb/s: 1.75 GB * 8 / 400 Gb/s = 35 ms.
  CHECK(ring_lower_bound_us(Collective::kAllReduce, 8, 1'000'000'000, 400.0) ==
        doctest::Approx(35000.0));
  CHECK(ring_lower_bound_us(Collective::kAllGather, 8, 1'000'000'000, 400.0) ==
        doctest::Approx(17500.0));
  CHECK(ring_lower_bound_us(Collective::kAllReduce, 1, 1'000'000'000, 400.0) == 0.0);
  CHECK(std::isinf(ring_lower_bound_us(Collective::kAllReduce, 8, 10, 0.0)));
  // At the lower bound, busbw equals the per-rank bandwidth.
  const double t = ring_lower_bound_us(Collective::kAllReduce, 8, 1 << 30, 400.0);
  CHECK(busbw_gbps(Collective::kAllReduce, 8, algbw_gbps(1 << 30, t)) == doctest::Approx(400.0));
}

TEST_CASE("schedule: builders are deterministic") {
  CHECK(*ring_all_reduce(13, 99991) == *ring_all_reduce(13, 99991));
  CHECK(*double_binary_tree_all_reduce(13, 99991, 5) == *double_binary_tree_all_reduce(13, 99991, 5));
  CHECK(*hierarchical_all_reduce(hosts_of(3, 4), 99991) ==
        *hierarchical_all_reduce(hosts_of(3, 4), 99991));
  CHECK(*rail_aligned_all_to_all(hosts_of(3, 4), 99991) ==
        *rail_aligned_all_to_all(hosts_of(3, 4), 99991));
  // Host ids need not be contiguous or sorted; only the grouping matters.
  auto a = hierarchical_all_reduce({7, 7, 2, 2}, 100);
  auto b = hierarchical_all_reduce({2, 2, 7, 7}, 100);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(verify(*a).ok());
  CHECK(a->steps.size() == b->steps.size());
}

}  // namespace railyard_test_collective_schedule_test
