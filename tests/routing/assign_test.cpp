#include "railyard/routing/assign.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../support/clusters.hpp"
#include "../support/test_hash.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_routing_assign_test {

using namespace railyard;
using namespace railyard::routing;
using topology::Fabric;
using topology::FailureOverlay;

namespace {

using railyard::testing::TestHash;

// Always the last candidate; records every decision it is asked.
class LastPick final : public HashModel {
 public:
  mutable std::vector<EcmpHop> asked;
  [[nodiscard]] int32_t pick(const EcmpHop& hop, const FiveTuple&) const override {
    asked.push_back(hop);
    return hop.candidates - 1;
  }
  [[nodiscard]] std::string_view name() const override { return "last"; }
  [[nodiscard]] bool steerable() const override { return true; }
};

double rel_diff(double a, double b) { return std::abs(a - b) / std::max({1.0, a, b}); }

// Independent optimum: every combination of the graph's up/down paths
// (Fabric::for_each_path, not the descriptor's routes), loads summed per link.
double brute_force_optimum(const Fabric& f, const std::vector<Flow>& flows,
                           const FailureOverlay* fail) {
  std::vector<std::vector<topology::Path>> paths;
  for (const Flow& fl : flows)
    paths.push_back(f.paths(f.nic_port(fl.src), f.nic_port(fl.dst), fail));
  std::vector<size_t> pick(flows.size(), 0);
  double best = 1e300;
  std::map<int32_t, double> load;
  for (;;) {
    load.clear();
    double peak = 0;
    for (size_t i = 0; i < flows.size(); ++i)
      for (LinkId l : paths[i][pick[i]].view()) {
        const double cap = fail ? fail->capacity_gbps(l) : f.capacity_gbps(l);
        peak = std::max(peak, load[l.value()] += flows[i].bytes * 8 / cap);
      }
    best = std::min(best, peak);
    size_t k = 0;
    while (k < flows.size() && ++pick[k] == paths[k].size()) pick[k++] = 0;
    if (k == flows.size()) break;
  }
  return best;
}

int64_t combinations(const Fabric& f, const std::vector<Flow>& flows, const FailureOverlay* fail) {
  int64_t n = 1;
  for (const Flow& fl : flows) n *= f.count_paths(f.nic_port(fl.src), f.nic_port(fl.dst), fail);
  return n;
}

std::vector<Flow> random_flows(const topology::ClusterDescriptor<>& d, std::mt19937& rng, int n) {
  static constexpr double kSizes[] = {1e6, 2e6, 3e6, 5e6, 8e6};
  std::vector<Flow> flows;
  while (static_cast<int>(flows.size()) < n) {
    const PlaneId plane{static_cast<int32_t>(rng() % static_cast<uint32_t>(d.planes()))};
    const NicPort a{
        HostId{static_cast<int32_t>(rng() % static_cast<uint32_t>(d.hosts()))},
        NicIndex{static_cast<int32_t>(rng() % static_cast<uint32_t>(d.nics_per_host()))}, plane};
    const NicPort b{
        HostId{static_cast<int32_t>(rng() % static_cast<uint32_t>(d.hosts()))},
        NicIndex{static_cast<int32_t>(rng() % static_cast<uint32_t>(d.nics_per_host()))}, plane};
    if (d.path_count(a, b) == 0) continue;
    flows.push_back({a, b, kSizes[rng() % 5]});
  }
  return flows;
}

void check_routes_usable(const Fabric& f, const std::vector<Flow>& flows,
                         const std::vector<Route>& routes, const FailureOverlay* fail) {
  REQUIRE(routes.size() == flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    const topology::Path p = f.route_links(flows[i].src, flows[i].dst, routes[i]);
    CHECK(f.src(p.view().front()) == f.nic_port(flows[i].src));
    CHECK(f.dst(p.view().back()) == f.nic_port(flows[i].dst));
    for (size_t k = 1; k < p.view().size(); ++k)
      CHECK(f.dst(p.view()[k - 1]) == f.src(p.view()[k]));
    if (fail)
      for (LinkId l : p.view()) CHECK_FALSE(fail->is_down(l));
  }
}

// Small fabrics: radix 4-8, 1-4 parallel cables, 2 and 3 tiers, rail and ToR.
constexpr std::string_view kSmallSpecs[] = {
    // 2 leaves, 1 spine, 2 parallel cables: 4 routes between leaves.
    "rail_fat_tree:hosts=4,gpus_per_host=1,nics_per_host=1,hosts_per_su=2,switch_radix=4",
    // 4 leaves, 2 spines, 1 cable each: 2 routes.
    "rail_fat_tree:hosts=8,gpus_per_host=1,nics_per_host=1,hosts_per_su=2,switch_radix=4",
    // 2 SUs x 2 rails, 2 spines x 2 parallel cables: 8 routes.
    "rail_fat_tree:hosts=8,gpus_per_host=2,nics_per_host=2,hosts_per_su=4,switch_radix=8",
    // 2:1 oversubscribed: 1 spine, 2 cables per leaf.
    "rail_fat_tree:hosts=8,gpus_per_host=2,nics_per_host=2,hosts_per_su=4,switch_radix=8,"
    "oversub=2:1",
    // ToR: 2 leaves with 4 parallel cables to 1 spine: 16 routes.
    "tor_fat_tree:hosts=4,gpus_per_host=2,nics_per_host=2,hosts_per_su=2,switch_radix=8",
    // 3 tiers: 2 pods of 2 leaves, 2 spines per pod, 1 core per group, 2 cables: 8 routes.
    "rail_fat_tree:hosts=8,gpus_per_host=1,nics_per_host=1,hosts_per_su=2,switch_radix=4,"
    "tiers=3,sus_per_pod=2",
    // Uplink-bound: 8 hosts per leaf over 2 (4:1) or 3 (3:1) parallel cables.
    "rail_fat_tree:hosts=16,gpus_per_host=1,nics_per_host=1,hosts_per_su=8,switch_radix=12,"
    "oversub=4:1",
    "rail_fat_tree:hosts=16,gpus_per_host=1,nics_per_host=1,hosts_per_su=8,switch_radix=12,"
    "oversub=3:1",
};

}  // namespace

TEST_CASE("assign: planned max load equals the exhaustive optimum on small fabrics") {
  std::mt19937 rng(11);
  int cases = 0, heuristic_optimal = 0;
  double worst_heuristic = 1.0;
  for (std::string_view spec : kSmallSpecs) {
    CAPTURE(spec);
    auto cluster = topology::make_cluster(spec);
    REQUIRE(cluster.ok());
    const auto& d = cluster->descriptor;
    const Fabric& f = cluster->fabric;
    for (int trial = 0; trial < 40; ++trial) {
      const std::vector<Flow> flows = random_flows(d, rng, 2 + trial % 5);  // 2..6 flows
      if (combinations(f, flows, nullptr) > 20000) continue;
      CAPTURE(trial);
      const double opt = brute_force_optimum(f, flows, nullptr);
      auto plan = assign_paths(d, f, flows);
      REQUIRE(plan.ok());
      CHECK(plan->exact);
      CHECK(rel_diff(plan->max_load_ns, opt) < 1e-9);
      check_routes_usable(f, flows, plan->routes, nullptr);
      // The reported loads are the loads of the reported routes.
      const std::vector<double> again = link_loads(f, flows, plan->routes);
      CHECK(rel_diff(max_load(again).second, plan->max_load_ns) < 1e-12);
      // assign_paths_exact agrees; the heuristic alone is never below the optimum.
      auto exact = assign_paths_exact(d, f, flows);
      REQUIRE(exact.ok());
      CHECK(rel_diff(exact->max_load_ns, opt) < 1e-9);
      auto heur = assign_paths(d, f, flows, nullptr, {.exact_search_limit = 0});
      REQUIRE(heur.ok());
      CHECK_FALSE(heur->exact);
      CHECK(heur->max_load_ns >= opt * (1 - 1e-9));
      ++cases;
      heuristic_optimal += rel_diff(heur->max_load_ns, opt) < 1e-9;
      worst_heuristic = std::max(worst_heuristic, heur->max_load_ns / opt);
    }
  }
  MESSAGE("small cases: ", cases, ", heuristic alone optimal in ", heuristic_optimal,
          ", worst heuristic/optimum ", worst_heuristic);
  CHECK(cases >= 150);
  CHECK(heuristic_optimal * 10 >= cases * 9);  // the heuristic alone is usually optimal
}

TEST_CASE("assign: the LPT counterexample -- greedy is not optimal, the exact search is") {
  // One leaf's 5 hosts send 3, 3, 2, 2, 2 MB over 2 uplinks: largest-first gives
  // 3+2+2 = 7 on one uplink, the optimum is 3+3 and 2+2+2 = 6.
  auto cluster = topology::make_cluster(kSmallSpecs[6]);
  REQUIRE(cluster.ok());
  const auto& d = cluster->descriptor;
  const Fabric& f = cluster->fabric;
  REQUIRE(d.shape().leaf_up_ports == 2);
  const double mb[] = {3, 3, 2, 2, 2};
  std::vector<Flow> flows;
  for (int32_t i = 0; i < 5; ++i)
    flows.push_back(
        {NicPort{HostId{i}, NicIndex{0}}, NicPort{HostId{8 + i}, NicIndex{0}}, mb[i] * 1e6});
  auto heur = assign_paths(d, f, flows, nullptr, {.exact_search_limit = 0});
  auto plan = assign_paths(d, f, flows);
  REQUIRE(heur.ok());
  REQUIRE(plan.ok());
  CHECK(heur->max_load_ns == doctest::Approx(drain_ns(7e6, 400)));
  CHECK(plan->max_load_ns == doctest::Approx(drain_ns(6e6, 400)));
  CHECK(plan->exact);
  CHECK(brute_force_optimum(f, flows, nullptr) == doctest::Approx(plan->max_load_ns));
}

TEST_CASE("assign: ejection chains improve on single moves, never worsen") {
  // Random rail permutations (one flow out of and into every host) where the
  // spine each flow takes couples its uplink and downlink choices.
  constexpr std::string_view kSpecs[] = {
      "rail_fat_tree:hosts=8,gpus_per_host=1,nics_per_host=1,hosts_per_su=2,switch_radix=4",
      "rail_fat_tree:hosts=16,gpus_per_host=1,nics_per_host=1,hosts_per_su=4,switch_radix=8",
      "rail_fat_tree:hosts=24,gpus_per_host=1,nics_per_host=1,hosts_per_su=4,switch_radix=8"};
  for (std::string_view spec : kSpecs) {
    CAPTURE(spec);
    auto cluster = topology::make_cluster(spec);
    REQUIRE(cluster.ok());
    const auto& d = cluster->descriptor;
    const Fabric& f = cluster->fabric;
    std::mt19937 rng(3);
    int wins = 0, trials = 0;
    std::vector<int32_t> perm(static_cast<size_t>(d.hosts()));
    for (int trial = 0; trial < 300; ++trial) {
      for (int32_t i = 0; i < d.hosts(); ++i) perm[static_cast<size_t>(i)] = i;
      std::shuffle(perm.begin(), perm.end(), rng);
      std::vector<Flow> flows;
      for (int32_t i = 0; i < d.hosts(); ++i)
        if (d.su_of(HostId{i}) != d.su_of(HostId{perm[static_cast<size_t>(i)]}))
          flows.push_back({NicPort{HostId{i}, NicIndex{0}},
                           NicPort{HostId{perm[static_cast<size_t>(i)]}, NicIndex{0}}, 1e6});
      auto single = assign_paths(d, f, flows, nullptr, {.exact_search_limit = 0, .chain_depth = 0});
      auto chained = assign_paths(d, f, flows, nullptr, {.exact_search_limit = 0});
      REQUIRE(single.ok());
      REQUIRE(chained.ok());
      CHECK(chained->max_load_ns <= single->max_load_ns * (1 + 1e-12));
      check_routes_usable(f, flows, chained->routes, nullptr);
      wins += chained->max_load_ns < single->max_load_ns * (1 - 1e-9);
      ++trials;
    }
    MESSAGE(spec, ": chains lowered the maximum in ", wins, " of ", trials, " permutations");
    CHECK(wins > 0);
  }
}

TEST_CASE("assign: with links down and degraded, exact and never on a down link") {
  std::mt19937 rng(5);
  int cases = 0;
  for (std::string_view spec : kSmallSpecs) {
    CAPTURE(spec);
    auto cluster = topology::make_cluster(spec);
    REQUIRE(cluster.ok());
    const auto& d = cluster->descriptor;
    const Fabric& f = cluster->fabric;
    std::vector<int32_t> network;
    for (int32_t l = 0; l < f.link_count(); l += 2)
      if (f.tier(LinkId{l}) == topology::LinkTier::kLeafSpine ||
          f.tier(LinkId{l}) == topology::LinkTier::kSpineCore)
        network.push_back(l);
    for (int trial = 0; trial < 20; ++trial) {
      FailureOverlay fail(f);
      fail.set_cable_down(LinkId{network[rng() % network.size()]});
      fail.set_cable_fraction(LinkId{network[rng() % network.size()]}, 0.5);
      std::vector<Flow> flows = random_flows(d, rng, 2 + trial % 4);
      std::erase_if(flows, [&](const Flow& fl) {
        return f.count_paths(f.nic_port(fl.src), f.nic_port(fl.dst), &fail) == 0;
      });
      if (flows.empty() || combinations(f, flows, &fail) > 20000) continue;
      const double opt = brute_force_optimum(f, flows, &fail);
      auto plan = assign_paths(d, f, flows, &fail);
      REQUIRE(plan.ok());
      CHECK(rel_diff(plan->max_load_ns, opt) < 1e-9);
      check_routes_usable(f, flows, plan->routes, &fail);
      auto heur = assign_paths(d, f, flows, &fail, {.exact_search_limit = 0});
      REQUIRE(heur.ok());
      check_routes_usable(f, flows, heur->routes, &fail);
      TestHash hash(static_cast<uint64_t>(trial));
      auto ecmp = ecmp_paths(d, f, flows, hash, {}, &fail);
      REQUIRE(ecmp.ok());
      check_routes_usable(f, flows, *ecmp, &fail);
      CHECK(plan->max_load_ns <= max_load(link_loads(f, flows, *ecmp, &fail)).second * (1 + 1e-9));
      ++cases;
    }
  }
  CHECK(cases >= 60);
}

TEST_CASE("assign: ECMP picks map to Route fields as documented") {
  for (std::string_view spec :
       {std::string_view("h100-1024-2to1"), std::string_view(kSmallSpecs[5]),
        std::string_view("h100-16k-3tier")}) {
    CAPTURE(spec);
    auto cluster = topology::make_cluster(spec);
    REQUIRE(cluster.ok());
    const auto& d = cluster->descriptor;
    const Fabric& f = cluster->fabric;
    const NicPort a{HostId{0}, NicIndex{0}};
    const NicPort b{HostId{d.hosts() - 1}, NicIndex{0}};
    const std::vector<Flow> flows = {{a, b, 1e6}};
    LastPick last;
    auto r = ecmp_paths(d, f, flows, last);
    REQUIRE(r.ok());
    // Same decisions, in order, with the candidate counts of ecmp_hops().
    const std::vector<EcmpHop> hops = ecmp_hops(d, a, b);
    REQUIRE(last.asked.size() == hops.size());
    for (size_t k = 0; k < hops.size(); ++k) {
      CHECK(last.asked[k].kind == hops[k].kind);
      CHECK(last.asked[k].candidates == hops[k].candidates);
    }
    const Route got = r->front();
    // The last candidate of each decision: the last uplink, then the last of the
    // parallel cables in uplink order -- the last route in for_each_route order
    // among those with that source uplink (and spine uplink).
    CHECK(got.src_leaf_uplink == d.shape().leaf_up_ports - 1);
    Route expect;
    d.for_each_route(a, b, [&](const Route& x) {
      if (x.src_leaf_uplink == got.src_leaf_uplink &&
          (x.top < 3 || x.src_spine_uplink == d.shape().spine_up_ports - 1))
        expect = x;
    });
    CHECK(got == expect);
    // The switches asked are the ones the route meets.
    CHECK(last.asked.front().switch_index == d.leaf_of(a));
    if (last.asked.back().kind == HopKind::kSpineDown)
      CHECK(last.asked.back().switch_index == d.spine_above(d.leaf_of(b), got.dst_leaf_uplink));
    // An empty overlay takes the generic (failure-aware) path: same answer.
    FailureOverlay none(f);
    TestHash h(3);
    std::vector<Flow> many;
    for (int32_t i = 0; i < 64; ++i)
      many.push_back(
          {NicPort{HostId{i % d.hosts()}, NicIndex{i % d.nics_per_host()}},
           NicPort{HostId{(i * 7 + d.hosts() / 2) % d.hosts()}, NicIndex{i % d.nics_per_host()}},
           1e6});
    std::erase_if(many, [&](const Flow& fl) { return d.path_count(fl.src, fl.dst) == 0; });
    auto fast = ecmp_paths(d, f, many, h);
    auto generic = ecmp_paths(d, f, many, h, {}, &none);
    REQUIRE(fast.ok());
    REQUIRE(generic.ok());
    CHECK(*fast == *generic);
  }
}

TEST_CASE("assign: bad input names the flow and the value") {
  auto cluster = topology::make_cluster("h100-1024-2to1");
  REQUIRE(cluster.ok());
  const auto& d = cluster->descriptor;
  const Fabric& f = cluster->fabric;
  const NicPort a{HostId{0}, NicIndex{0}};
  auto msg = [&](std::vector<Flow> flows) {
    auto r = assign_paths(d, f, flows);
    REQUIRE_FALSE(r.ok());
    return testing::message_text(r.status());
  };
  CHECK(msg({{a, NicPort{HostId{500}, NicIndex{0}}, 1}}) ==
        "flow 0: dst=host500.nic0.p0: no such NIC port");
  CHECK(msg({{a, a, 1}}).find("no network path") != std::string::npos);
  CHECK(msg({{a, NicPort{HostId{40}, NicIndex{0}}, -1}}) ==
        "flow 0: bytes=-1: must be finite and non-negative");
  // Every uplink of the source leaf down: FailedPrecondition.
  FailureOverlay fail(f);
  for (int32_t j = 0; j < d.shape().leaf_up_ports; ++j)
    fail.set_cable_down(f.leaf_uplink(d.leaf_of(a), j));
  const std::vector<Flow> one = {{a, NicPort{HostId{40}, NicIndex{0}}, 1}};
  auto r = assign_paths(d, f, one, &fail);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
  TestHash h(1);
  const uint16_t two[2] = {0xC000, 0xC001};
  auto e = ecmp_paths(d, f, one, h, {.sports = two, .dst_qps = {}});
  REQUIRE_FALSE(e.ok());
  CHECK(testing::message_text(e.status()) == "sports: 2 given for 1 flows (want 0 or one per flow)");
  // Too many combinations for the exact search.
  std::vector<Flow> big;
  for (int32_t i = 0; i < 8; ++i)
    big.push_back({NicPort{HostId{i}, NicIndex{0}}, NicPort{HostId{40 + i}, NicIndex{0}}, 1});
  auto x = assign_paths_exact(d, f, big, nullptr, 1000);
  REQUIRE_FALSE(x.ok());
  CHECK(x.status().code() == absl::StatusCode::kResourceExhausted);
}

namespace {

// A 256-GPU job on h100-1024-2to1 split over the 4 SUs (8 hosts each): four
// 192-GPU jobs fill 24 hosts of every SU first.
std::vector<HostId> split_job_hosts(const topology::ClusterDescriptor<>& d) {
  auto placed =
      placement::place_jobs(d, "a:gpus=192;b:gpus=192;c:gpus=192;d:gpus=192;e:gpus=256", {});
  REQUIRE(placed.ok());
  REQUIRE(placed->placed.size() == 5);
  const placement::Allocation& e = placed->placed[4];
  REQUIRE(e.sus.size() == 4);
  return e.hosts;
}

std::vector<Flow> ring_step(const topology::ClusterDescriptor<>& d,
                            const std::vector<HostId>& hosts, double bytes) {
  std::vector<Flow> flows;
  for (int32_t r = 0; r < d.nics_per_host(); ++r)
    for (size_t i = 0; i < hosts.size(); ++i)
      flows.push_back({NicPort{hosts[i], NicIndex{r}},
                       NicPort{hosts[(i + 1) % hosts.size()], NicIndex{r}}, bytes});
  return flows;
}

}  // namespace

TEST_CASE("assign: planned never above ECMP on ring and all-to-all steps of a split job") {
  auto cluster = topology::make_cluster("h100-1024-2to1");
  REQUIRE(cluster.ok());
  const auto& d = cluster->descriptor;
  const Fabric& f = cluster->fabric;
  const std::vector<HostId> hosts = split_job_hosts(d);
  // Ring order interleaving the SUs: every ring hop crosses the spine.
  std::vector<HostId> interleaved;
  for (size_t k = 0; k < 8; ++k)
    for (size_t su = 0; su < 4; ++su) interleaved.push_back(hosts[su * 8 + k]);
  std::vector<Flow> a2a;
  for (size_t i = 0; i < 16; ++i)
    for (size_t j = 0; j < 16; ++j)
      if (i != j)
        for (int32_t r = 0; r < d.nics_per_host(); ++r)
          a2a.push_back(
              {NicPort{hosts[i * 2], NicIndex{r}}, NicPort{hosts[j * 2], NicIndex{r}}, 4e6});
  const double per_nic_ns = drain_ns(64e6, 400);
  struct Case {
    const char* name;
    std::vector<Flow> flows;
  };
  const std::vector<Case> cases = {{"ring", ring_step(d, hosts, 64e6)},
                                   {"ring interleaved", ring_step(d, interleaved, 64e6)},
                                   {"all-to-all 16 hosts", a2a}};
  for (const Case& c : cases) {
    CAPTURE(c.name);
    double worst_ratio = 1e300;
    for (uint64_t seed = 0; seed < 4; ++seed) {
      TestHash th(seed);
      UniformRandomHash uh(seed);
      for (const HashModel* h :
           {static_cast<const HashModel*>(&th), static_cast<const HashModel*>(&uh)}) {
        auto rep = compare_with_ecmp(d, f, c.flows, *h);
        REQUIRE(rep.ok());
        CHECK(rep->max_load_planned_ns <= rep->max_load_ecmp_ns * (1 + 1e-9));
        CHECK(rep->ecmp_over_planned >= 1 - 1e-9);
        worst_ratio = std::min(worst_ratio, rep->ecmp_over_planned);
        check_routes_usable(f, c.flows, rep->planned.routes, nullptr);
        check_routes_usable(f, c.flows, rep->ecmp, nullptr);
        // Per-tier maxima agree with the overall maxima.
        double tp = 0, te = 0;
        for (const TierLoad& t : rep->tiers) {
          tp = std::max(tp, t.max_planned_ns);
          te = std::max(te, t.max_ecmp_ns);
        }
        CHECK(tp == rep->max_load_planned_ns);
        CHECK(te == rep->max_load_ecmp_ns);
      }
    }
    auto plan = assign_paths(d, f, c.flows);
    REQUIRE(plan.ok());
    MESSAGE(std::string(c.name), ": ", c.flows.size(), " flows, planned max ",
            plan->max_load_ns / per_nic_ns, " x per-NIC load, ECMP/planned >= ", worst_ratio,
            ", moves ", plan->moves);
  }
  // The rail-aligned ring fits the 16 uplinks of a 2:1 leaf: perfect balance.
  auto ring = assign_paths(d, f, ring_step(d, interleaved, 64e6));
  REQUIRE(ring.ok());
  CHECK(rel_diff(ring->max_load_ns, per_nic_ns) < 1e-12);
}

TEST_CASE("assign: rail-aligned ring steps on a non-blocking fabric are perfectly balanced") {
  auto cluster = topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const auto& d = cluster->descriptor;
  const Fabric& f = cluster->fabric;
  const double bytes = 32e6;
  const double per_nic_ns = drain_ns(bytes, 400);
  std::mt19937 rng(17);
  // The whole cluster in a ring that crosses SUs at every hop (32 flows leave and
  // 32 enter every leaf, which has 32 uplinks), and in random orders.
  std::vector<HostId> order;
  for (int32_t k = 0; k < 32; ++k)
    for (int32_t su = 0; su < 4; ++su) order.push_back(HostId{su * 32 + k});
  for (int trial = 0; trial < 4; ++trial) {
    CAPTURE(trial);
    auto plan = assign_paths(d, f, ring_step(d, order, bytes));
    REQUIRE(plan.ok());
    CHECK(rel_diff(plan->max_load_ns, per_nic_ns) < 1e-12);
    TestHash h(static_cast<uint64_t>(trial));
    auto ecmp = ecmp_paths(d, f, ring_step(d, order, bytes), h);
    REQUIRE(ecmp.ok());
    const double ecmp_max = max_load(link_loads(f, ring_step(d, order, bytes), *ecmp)).second;
    MESSAGE("ring over 128 hosts, order ", trial, ": planned ", plan->max_load_ns / per_nic_ns,
            " x per-NIC, ECMP ", ecmp_max / per_nic_ns, " x, moves ", plan->moves);
    std::shuffle(order.begin(), order.end(), rng);
  }
}

}  // namespace railyard_test_routing_assign_test
