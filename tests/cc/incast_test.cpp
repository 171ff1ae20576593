// The incast rule (cc/incast.hpp) on placed jobs, and the senders' starting
// rate that follows from it.
#include "railyard/cc/incast.hpp"

#include <doctest/doctest.h>

#include "../support/clusters.hpp"
#include "railyard/placement/plan.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_cc_incast_test {

namespace {

using railyard::cc::Incast;
using railyard::collective::Algorithm;
using railyard::collective::Collective;

railyard::placement::JobPlacement place(const char* plan_text, std::initializer_list<int32_t> hosts) {
  const auto d = railyard::testing::descriptor_of("h100-1024");
  auto plan = railyard::placement::parse_plan(plan_text);
  REQUIRE(plan.ok());
  auto job = railyard::placement::order_ranks(d, *plan, railyard::testing::host_ids(hosts));
  REQUIRE(job.ok());
  return *job;
}

}  // namespace

TEST_CASE("collective_incast: all-to-all over H hosts is H - 1 senders, ring 1, tree 2") {
  // tp=8,dp=16 on hosts 0-15: one group of all 128 ranks spans 16 hosts.
  const auto job = place("tp=8,dp=16", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  const auto all = railyard::sim::job_groups(job);
  auto a2a = railyard::cc::collective_incast(Collective::kAllToAll, Algorithm::kPairwise, all);
  REQUIRE(a2a.ok());
  CHECK(a2a->senders == 15);
  CHECK(a2a->all_to_all);
  CHECK(a2a->network);
  auto ring = railyard::cc::collective_incast(Collective::kAllReduce, Algorithm::kRing, all);
  CHECK(ring->senders == 1);
  CHECK_FALSE(ring->all_to_all);
  auto tree =
      railyard::cc::collective_incast(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, all);
  CHECK(tree->senders == 2);
  // tp groups stay inside a host: no network incast, even for an all-to-all.
  const auto tp = railyard::sim::job_groups(job, railyard::placement::Dim::kTp);
  auto inside = railyard::cc::collective_incast(Collective::kAllToAll, Algorithm::kPairwise, tp);
  CHECK(inside->senders == 1);
  CHECK_FALSE(inside->network);
  // An algorithm the collective does not run is refused, naming the algorithm.
  auto bad = railyard::cc::collective_incast(Collective::kAllToAll, Algorithm::kRing, all);
  CHECK(railyard::has_field(bad.status(), "algorithm"));
}

TEST_CASE("start_rate: line rate, or 1/N for an all-to-all's N senders") {
  CHECK(railyard::cc::start_rate(Incast{}).fraction == 1.0);
  CHECK(railyard::cc::start_rate(Incast{}).reason.empty());
  CHECK(railyard::cc::start_rate(Incast{8, true, "ring", false}).fraction == 1.0);
  const railyard::cc::StartRate a2a = railyard::cc::start_rate(Incast{15, true, "a2a", true});
  CHECK(a2a.fraction == doctest::Approx(1.0 / 15));
  CHECK(a2a.reason == "senders start at 1/15 of line rate");
  CHECK(railyard::cc::start_rate(Incast{1, false, "one host", true}).fraction == 1.0);
  // A job's step incast keeps where it came from: moe's ep all-to-all.
  const auto moe = place("tp=4,ep=8,dp=8", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                            16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
                                            30, 31});
  const Incast step = railyard::cc::job_incast(moe);
  CHECK(step.all_to_all == (step.source.rfind("ep ", 0) == 0));
  CHECK(railyard::cc::start_rate(step).fraction ==
        doctest::Approx(step.all_to_all ? 1.0 / step.senders : 1.0));
}

}  // namespace railyard_test_cc_incast_test
