// Progress of long runs (core/progress.hpp) and the memory estimates: the
// ProgressMeter contract, the units each entry point counts (hand-known step,
// flow and stage counts), and the estimates' counts against the transfers the
// collective's traffic actually holds.
#include "railyard/core/progress.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "railyard/collective/traffic.hpp"
#include "railyard/pipeline/plan.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/sim/traffic_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/tune/simulated_rules.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_sim_progress_test {

using namespace railyard;

namespace {

using Calls = std::vector<std::pair<int64_t, int64_t>>;

// A hook that records every call (no rate limit).
ProgressHook recorder(Calls& calls) {
  ProgressHook h;
  h.callback = [&calls](int64_t done, int64_t total) { calls.emplace_back(done, total); };
  h.min_interval_s = 0;
  return h;
}

// The contract: done never decreases, never exceeds total, total never
// changes, and the last call is (total, total), made once.
void check_contract(const Calls& calls, int64_t total) {
  REQUIRE_FALSE(calls.empty());
  int64_t last = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    CHECK(calls[i].second == total);
    CHECK(calls[i].first >= last);
    CHECK(calls[i].first <= total);
    CHECK((calls[i].first == total) == (i + 1 == calls.size()));
    last = calls[i].first;
  }
  CHECK(calls.back() == std::pair<int64_t, int64_t>{total, total});
}

topology::Cluster make(const std::string& spec) {
  auto c = topology::make_cluster(spec);
  REQUIRE(c.ok());
  return *std::move(c);
}

// Ranks 0..n-1 on GPUs in host order, one group.
std::vector<std::vector<routing::GpuEndpoint>> one_group(int32_t n, int32_t gpus_per_host) {
  std::vector<std::vector<routing::GpuEndpoint>> groups(1);
  for (int32_t r = 0; r < n; ++r)
    groups[0].push_back({HostId{r / gpus_per_host}, GpuIndex{r % gpus_per_host}});
  return groups;
}

}  // namespace

TEST_CASE("progress: the meter clamps, never goes back and ends once at total") {
  Calls calls;
  const ProgressHook hook = recorder(calls);
  {
    ProgressMeter meter(hook, 10);
    meter.update(3);
    meter.update(2);   // back: reported as 3
    meter.update(-1);  // below 0: 3
    meter.update(7);
    meter.update(99);  // above total: the final call
    meter.update(8);   // after the end: nothing
    meter.finish();    // already finished: nothing
  }
  check_contract(calls, 10);
  CHECK(calls == Calls{{3, 10}, {3, 10}, {3, 10}, {7, 10}, {10, 10}});
}

TEST_CASE("progress: the interval holds calls back, but never the final one") {
  Calls calls;
  ProgressHook hook = recorder(calls);
  hook.min_interval_s = 3600;
  ProgressMeter meter(hook, 5);
  for (int64_t i = 0; i < 5; ++i) meter.update(i);
  CHECK(calls.empty());
  meter.finish();
  CHECK(calls == Calls{{5, 5}});
}

TEST_CASE("progress: an unset hook is never called and costs no state") {
  const ProgressHook hook;
  CHECK_FALSE(static_cast<bool>(hook));
  ProgressMeter meter(hook, 100);
  CHECK_FALSE(meter.on());
  meter.update(50);
  meter.finish();  // nothing to call: must not crash
}

TEST_CASE("progress: simulate_collective counts distinct steps (pairwise all-to-all: n-1)") {
  // 64 ranks on 8 hosts of rail_fat_tree:hosts=64: pairwise all-to-all has
  // n - 1 = 63 steps, every one different (rank r sends to r + k).
  const topology::Cluster cluster = make("rail_fat_tree:hosts=64");
  const auto groups = one_group(64, 8);
  Calls calls;
  sim::CollectiveSimOptions o;
  o.algorithm = collective::Algorithm::kPairwise;
  o.progress = recorder(calls);
  auto r = sim::simulate_collective(cluster, groups, collective::Collective::kAllToAll,
                                    int64_t{1} << 26, o);
  REQUIRE(r.ok());
  check_contract(calls, 63);
  CHECK(r->segments == 63);
  // Every distinct step is reported: 0..62 before each, then 63.
  CHECK(calls.size() == 64);

  // The hook changes nothing in the result.
  sim::CollectiveSimOptions quiet = o;
  quiet.progress = {};
  auto q = sim::simulate_collective(cluster, groups, collective::Collective::kAllToAll,
                                    int64_t{1} << 26, quiet);
  REQUIRE(q.ok());
  CHECK(q->time_us == r->time_us);
}

TEST_CASE("progress: a ring is one distinct step however many it runs") {
  const topology::Cluster cluster = make("rail_fat_tree:hosts=64");
  Calls calls;
  sim::CollectiveSimOptions o;
  o.progress = recorder(calls);
  auto r = sim::simulate_collective(cluster, one_group(128, 8),
                                    collective::Collective::kAllReduce, int64_t{1} << 30, o);
  REQUIRE(r.ok());
  CHECK(r->steps == 2 * 127);
  check_contract(calls, 1);
}

TEST_CASE("progress: simulate_traffic counts the flows that cross links") {
  // 16 hosts of one GPU on a k=4 fat tree; a permutation moves every GPU's
  // flow through the network: 16 flows x 2 QPs = 32 simulator flows.
  const topology::Cluster cluster = make(
      "rail_fat_tree:hosts=16,gpus_per_host=1,nics_per_host=1,nic_gbps=100,hosts_per_su=2,"
      "switch_radix=4,tiers=3,sus_per_pod=2");
  auto flows = sim::permutation_traffic(cluster.descriptor, 1'000'000, 1);
  REQUIRE(flows.size() == 16);
  for (sim::TrafficFlow& f : flows) f.qps = 2;
  for (sim::TrafficRouting routing : {sim::TrafficRouting::kEcmp, sim::TrafficRouting::kAdaptive}) {
    CAPTURE(sim::traffic_routing_name(routing));
    Calls calls;
    sim::TrafficSimOptions o;
    o.routing = routing;
    o.progress = recorder(calls);
    auto r = sim::simulate_traffic(cluster, flows, o);
    REQUIRE(r.ok());
    check_contract(calls, 32);
    CHECK(r->sim_flows == 32);
  }
}

TEST_CASE("progress: run_plan counts stages and --empty starts with no background") {
  // One job tp=8,dp=4 on an empty 64-host cluster: cc (1) + dp and tp
  // all-reduce, three runs each (6) + tuner rules (1) + isolation (1) = 9.
  const topology::Cluster cluster = make("rail_fat_tree:hosts=64");
  pipeline::PlanScenario s;
  s.cluster = "rail_fat_tree:hosts=64";
  s.background_source = "none";
  auto jobs = pipeline::parse_plan_jobs("a:tp=8,dp=4", cluster.descriptor);
  REQUIRE(jobs.ok());
  s.jobs = *jobs;
  Calls calls;
  std::vector<std::string> notes;
  pipeline::PlanOptions o;
  o.stages = recorder(calls);
  o.progress = [&notes](std::string_view n) { notes.emplace_back(n); };
  auto r = pipeline::run_plan(cluster, s, o);
  REQUIRE(r.ok());
  check_contract(calls, 9);
  CHECK(r->background.busy_hosts == 0);
  CHECK(r->background.jobs.empty());
  REQUIRE(r->placed_jobs() == 1);
  // Nothing is busy, so first_fit takes the first four hosts.
  const std::vector<HostId>& naive = r->jobs[0].at(pipeline::PlanSide::kNaive).allocation.hosts;
  CHECK(naive == std::vector<HostId>{HostId{0}, HostId{1}, HostId{2}, HostId{3}});
  CHECK(notes.back().empty());
  // The tuner stage notes its eight simulations (ring and tree at four sizes).
  CHECK(std::find(notes.begin(), notes.end(),
                  "deriving tuner rules for a (dp allreduce: 8 of 8 simulations)") != notes.end());
}

TEST_CASE("progress: simulated_allreduce_rules counts its 2 x 4 simulations") {
  const topology::Cluster cluster = make("rail_fat_tree:hosts=64");
  Calls calls;
  auto rules = tune::simulated_allreduce_rules(cluster, one_group(32, 8), 4, {}, recorder(calls));
  REQUIRE(rules.ok());
  check_contract(calls, 8);
  CHECK(calls.size() == 8);
}

TEST_CASE("memory: the collective estimate counts the transfers the traffic holds") {
  const topology::Cluster cluster = make("rail_fat_tree:hosts=64");
  const topology::ClusterDescriptor<>& d = cluster.descriptor;
  auto held = [](collective::Algorithm a, collective::Collective k, int32_t n) {
    std::vector<int32_t> hosts(static_cast<size_t>(n));
    for (int32_t r = 0; r < n; ++r) hosts[static_cast<size_t>(r)] = r / 8;
    collective::TrafficOptions to;
    to.host_of_rank = hosts;
    to.nics_per_host = 8;
    auto t = collective::collective_traffic(k, a, n, int64_t{1} << 30, to);
    REQUIRE(t.ok());
    int64_t transfers = 0;
    for (const collective::Phase& p : t->phases) transfers += static_cast<int64_t>(p.transfers.size());
    return transfers;
  };
  const auto groups = one_group(256, 8);  // 32 hosts
  sim::CollectiveSimOptions o;
  SUBCASE("pairwise all-to-all: n(n-1) transfers, n flows a step") {
    o.algorithm = collective::Algorithm::kPairwise;
    auto e = sim::estimate_collective_memory(d, groups, collective::Collective::kAllToAll,
                                             int64_t{1} << 30, o);
    REQUIRE(e.ok());
    CHECK(e->stored_transfers == 256 * 255);
    CHECK(e->stored_transfers ==
          held(collective::Algorithm::kPairwise, collective::Collective::kAllToAll, 256));
    CHECK(e->step_flows == 256);
    CHECK(e->bytes == doctest::Approx(256.0 * 255 * sim::kBytesPerStoredTransfer +
                                      256.0 * sim::kBytesPerStepFlow));
  }
  SUBCASE("pairwise all-to-all, adaptive: one step held, no connection ids") {
    o.algorithm = collective::Algorithm::kPairwise;
    o.routing = sim::Routing::kAdaptive;
    auto e = sim::estimate_collective_memory(d, groups, collective::Collective::kAllToAll,
                                             int64_t{1} << 30, o);
    REQUIRE(e.ok());
    CHECK(e->stored_transfers == 256);
    CHECK(e->step_flows == 256);
  }
  SUBCASE("ring: 8 channels of 256 transfers; 8 x 32 leave a host, times the QPs") {
    o.qps = 4;
    auto e = sim::estimate_collective_memory(d, groups, collective::Collective::kAllReduce,
                                             int64_t{1} << 30, o);
    REQUIRE(e.ok());
    CHECK(e->stored_transfers == 8 * 256);
    CHECK(e->stored_transfers ==
          held(collective::Algorithm::kRing, collective::Collective::kAllReduce, 256));
    CHECK(e->step_flows == 8 * (256 - 32) + 8 * 32 * 4);
  }
  SUBCASE("tree: at least the transfers its phases hold") {
    o.algorithm = collective::Algorithm::kDoubleBinaryTree;
    auto e = sim::estimate_collective_memory(d, groups, collective::Collective::kAllReduce,
                                             int64_t{1} << 30, o);
    REQUIRE(e.ok());
    CHECK(e->stored_transfers >=
          held(collective::Algorithm::kDoubleBinaryTree, collective::Collective::kAllReduce, 256));
  }
  SUBCASE("bad arguments name the field") {
    o.qps = 0;
    auto e = sim::estimate_collective_memory(d, groups, collective::Collective::kAllReduce,
                                             int64_t{1} << 30, o);
    REQUIRE_FALSE(e.ok());
    CHECK(error_field(e.status())->field == "qps");
  }
}

TEST_CASE("memory: the traffic estimate grows with QPs and with adaptive routes") {
  const topology::Cluster cluster = make("rail_fat_tree:hosts=64");
  auto flows = sim::permutation_traffic(cluster.descriptor, 1'000'000, 1);
  sim::TrafficSimOptions o;
  const sim::TrafficMemoryEstimate one = sim::estimate_traffic_memory(cluster.descriptor, flows, o);
  CHECK(one.qp_flows == static_cast<int64_t>(flows.size()));
  for (sim::TrafficFlow& f : flows) f.qps = 4;
  const sim::TrafficMemoryEstimate four = sim::estimate_traffic_memory(cluster.descriptor, flows, o);
  CHECK(four.qp_flows == 4 * one.qp_flows);
  CHECK(four.bytes - one.bytes ==
        doctest::Approx(3.0 * static_cast<double>(one.qp_flows) * sim::kBytesPerTrafficQp));
  o.routing = sim::TrafficRouting::kAdaptive;
  // Two tiers, 32 leaf uplinks: 64 link entries per QP flow across the spines.
  const sim::TrafficMemoryEstimate sprayed =
      sim::estimate_traffic_memory(cluster.descriptor, flows, o);
  CHECK(sprayed.bytes - four.bytes ==
        doctest::Approx(static_cast<double>(four.qp_flows) * 64 * sim::kBytesPerAdaptiveLinkEntry));
}

}  // namespace railyard_test_sim_progress_test
