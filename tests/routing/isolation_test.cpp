#include "railyard/routing/isolation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "../support/clusters.hpp"
#include "../support/test_hash.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_routing_isolation_test {

using namespace railyard;
using namespace railyard::routing;
using topology::Fabric;
using topology::LinkTier;

namespace {

using railyard::testing::TestHash;

struct Placed {
  std::vector<placement::Allocation> jobs;
  std::vector<std::vector<Flow>> flows;
};

Placed place(const topology::ClusterDescriptor<>& d, std::string_view jobs,
             placement::Policy policy, uint64_t seed = 1) {
  auto placed = placement::place_jobs(d, jobs, {.policy = policy, .seed = seed});
  REQUIRE(placed.ok());
  REQUIRE(placed->unplaced.empty());
  Placed out;
  out.jobs = placed->placed;
  for (const auto& j : out.jobs) out.flows.push_back(ring_flows(j, d, 16e6));
  return out;
}

// One all-to-all step per tenant: every host to every other on each rail.
Placed all_to_all(const topology::ClusterDescriptor<>& d, std::string_view jobs, uint64_t seed) {
  auto placed =
      placement::place_jobs(d, jobs, {.policy = placement::Policy::kRandom, .seed = seed});
  REQUIRE(placed.ok());
  Placed out;
  out.jobs = placed->placed;
  for (const auto& j : out.jobs) {
    std::vector<Flow>& flows = out.flows.emplace_back();
    for (HostId a : j.hosts)
      for (HostId b : j.hosts)
        if (a != b)
          for (int32_t r = 0; r < d.nics_per_host(); ++r)
            flows.push_back({NicPort{a, NicIndex{r}}, NicPort{b, NicIndex{r}}, 1e6});
  }
  return out;
}

// Every leaf-spine / spine-core link a tenant's routes use.
std::set<int32_t> network_links(const Fabric& f, const std::vector<Flow>& flows,
                                const std::vector<Route>& routes) {
  std::set<int32_t> out;
  for (size_t i = 0; i < flows.size(); ++i) {
    const topology::Path p = f.route_links(flows[i].src, flows[i].dst, routes[i]);
    for (LinkId l : p.view())
      if (f.tier(l) == LinkTier::kLeafSpine || f.tier(l) == LinkTier::kSpineCore)
        out.insert(l.value());
  }
  return out;
}

}  // namespace

TEST_CASE("isolation: ring_flows is one ring step per rail over the job's hosts") {
  const auto d = testing::descriptor_of("h100-1024-dualplane");
  placement::Allocation job;
  job.name = "j";
  job.hosts = {HostId{3}, HostId{40}, HostId{77}};
  const std::vector<Flow> flows = ring_flows(job, d, 5.0);
  CHECK(flows.size() == 3u * 8u * 2u);
  for (const Flow& f : flows) {
    CHECK(f.src.nic == f.dst.nic);
    CHECK(f.src.plane == f.dst.plane);
    CHECK(f.bytes == 5.0);
    const auto at = std::find(job.hosts.begin(), job.hosts.end(), f.src.host) - job.hosts.begin();
    CHECK(f.dst.host == job.hosts[static_cast<size_t>(at + 1) % 3]);
  }
  job.hosts = {HostId{3}};
  CHECK(ring_flows(job, d, 5.0).empty());
}

TEST_CASE("isolation: two tenants across SUs share spine links under ECMP, none when partitioned") {
  auto cluster = topology::make_cluster("h100-1024-2to1");
  REQUIRE(cluster.ok());
  const auto& d = cluster->descriptor;
  const Fabric& f = cluster->fabric;
  // Random placement interleaves the two tenants over all four SUs; each runs an
  // all-to-all step (24 and 16 hosts: 4,416 and 1,920 flows).
  const Placed p = all_to_all(d, "a:gpus=192,tenant=t1;b:gpus=128,tenant=t2", 7);
  REQUIRE(p.jobs[0].sus.size() > 1);
  REQUIRE(p.jobs[1].sus.size() > 1);

  for (uint64_t seed = 0; seed < 3; ++seed) {
    TestHash th(seed);
    UniformRandomHash uh(seed);
    for (const HashModel* h :
         {static_cast<const HashModel*>(&th), static_cast<const HashModel*>(&uh)}) {
      auto ecmp = route_jobs_ecmp(d, f, p.flows, *h);
      REQUIRE(ecmp.ok());
      auto rep = isolation_report(f, p.jobs, p.flows, *ecmp);
      REQUIRE(rep.ok());
      CHECK_FALSE(rep->isolated());
      CHECK(rep->shared_in(LinkTier::kLeafSpine) == static_cast<int64_t>(rep->shared.size()));
      REQUIRE(rep->tenants.size() == 2);
      CHECK(rep->tenants[0].tenant == "t1");
      CHECK(rep->tenants[1].tenant == "t2");
      for (const TenantShare& t : rep->tenants) {
        CHECK(t.shared_links > 0);
        CHECK(t.shared_fraction > 0);
        CHECK(t.shared_fraction <= 1);
      }
      // Cross-check: the shared links are exactly the intersection of the two
      // tenants' network links.
      const auto a = network_links(f, p.flows[0], (*ecmp)[0]);
      const auto b = network_links(f, p.flows[1], (*ecmp)[1]);
      std::vector<int32_t> both;
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
      std::vector<int32_t> reported;
      for (const SharedLink& s : rep->shared) reported.push_back(s.link.value());
      CHECK(reported == both);
      if (seed == 0 && h == &uh)
        MESSAGE("ECMP (", std::string(h->name()), "): ", rep->shared.size(), " shared links; t1 ",
                rep->tenants[0].shared_fraction, ", t2 ", rep->tenants[1].shared_fraction,
                " of bytes on them");
    }
  }

  const SpinePartition part = partition_spines(d, p.jobs, p.flows);
  REQUIRE(part.ok);
  CHECK(part.spine_lanes == d.shape().leaf_up_ports);
  REQUIRE(part.tenants.size() == 2);
  // Disjoint, covering, proportional to demand (t1 has more hosts).
  std::set<std::pair<int32_t, int32_t>> lanes;
  for (const TenantLanes& t : part.tenants)
    for (const SpineLane& l : t.spine_lanes) CHECK(lanes.insert({l.spine, l.cable}).second);
  CHECK(static_cast<int32_t>(lanes.size()) == d.shape().leaf_up_ports);
  CHECK(part.tenants[0].spine_lanes.size() > part.tenants[1].spine_lanes.size());

  auto routes = route_jobs_partitioned(d, f, p.jobs, p.flows, part);
  REQUIRE(routes.ok());
  auto rep = isolation_report(f, p.jobs, p.flows, *routes);
  REQUIRE(rep.ok());
  CHECK(rep->isolated());
  for (const TenantShare& t : rep->tenants) CHECK(t.shared_bytes == 0);
  // Each tenant stays on its own lanes.
  for (size_t t = 0; t < 2; ++t) {
    const topology::FailureOverlay own = tenant_overlay(f, part, t);
    for (int32_t l : network_links(f, p.flows[t], (*routes)[t]))
      CHECK_FALSE(own.is_down(LinkId{l}));
  }
  // What isolation costs: the most loaded link, partitioned vs planned jointly.
  auto joint = route_jobs_planned(d, f, p.flows);
  REQUIRE(joint.ok());
  double max_part = 0, max_joint = 0;
  for (size_t t = 0; t < 2; ++t) {
    max_part = std::max(max_part, max_load(link_loads(f, p.flows[t], (*routes)[t])).second);
  }
  std::vector<Flow> all;
  std::vector<Route> all_routes;
  std::vector<Route> part_routes;
  for (size_t t = 0; t < 2; ++t) {
    all.insert(all.end(), p.flows[t].begin(), p.flows[t].end());
    all_routes.insert(all_routes.end(), (*joint)[t].begin(), (*joint)[t].end());
    part_routes.insert(part_routes.end(), (*routes)[t].begin(), (*routes)[t].end());
  }
  max_joint = max_load(link_loads(f, all, all_routes)).second;
  max_part = max_load(link_loads(f, all, part_routes)).second;
  CHECK(max_joint <= max_part * (1 + 1e-9));
  MESSAGE("max link load: planned jointly ", max_joint / drain_ns(1e6, 400),
          " x one flow, partitioned ", max_part / drain_ns(1e6, 400), " x");
}

TEST_CASE("isolation: three tiers — partitioned cross-pod traffic shares no spine or core link") {
  auto cluster = topology::make_cluster("h100-16k-3tier");
  REQUIRE(cluster.ok());
  const auto& d = cluster->descriptor;
  const Fabric& f = cluster->fabric;
  const Placed p = place(d, "a:gpus=512,tenant=t1;b:gpus=512,tenant=t2;c:gpus=256,tenant=t3",
                         placement::Policy::kRandom, 3);
  TestHash h(1);
  auto ecmp = route_jobs_ecmp(d, f, p.flows, h);
  REQUIRE(ecmp.ok());
  auto shared = isolation_report(f, p.jobs, p.flows, *ecmp);
  REQUIRE(shared.ok());
  CHECK(shared->shared_in(LinkTier::kSpineCore) > 0);
  const SpinePartition part = partition_spines(d, p.jobs);
  REQUIRE(part.ok);
  for (const TenantLanes& t : part.tenants) {
    CHECK_FALSE(t.spine_lanes.empty());
    CHECK_FALSE(t.core_lanes.empty());
  }
  auto routes = route_jobs_partitioned(d, f, p.jobs, p.flows, part);
  REQUIRE(routes.ok());
  auto rep = isolation_report(f, p.jobs, p.flows, *routes);
  REQUIRE(rep.ok());
  CHECK(rep->isolated());
}

TEST_CASE("isolation: more tenants than spine uplinks per leaf cannot be partitioned") {
  auto cluster = topology::make_cluster("h100-1024-2to1");
  REQUIRE(cluster.ok());
  const auto& d = cluster->descriptor;
  const Fabric& f = cluster->fabric;
  // 30 four-host jobs, one tenant each, scattered: most cross leaves.
  std::string jobs;
  for (int i = 0; i < 30; ++i) str_append(jobs, i ? ";" : "", "j", i, ":gpus=32");
  const Placed p = place(d, jobs, placement::Policy::kRandom, 5);
  const SpinePartition part = partition_spines(d, p.jobs, p.flows);
  int needy = 0;
  for (const TenantLanes& t : part.tenants) needy += t.cross_leaf_bytes > 0;
  REQUIRE(needy > d.shape().leaf_up_ports);
  CHECK_FALSE(part.ok);
  CHECK(part.reason == str_cat(needy, " tenants send traffic between leaves but a leaf has only ",
                               d.shape().leaf_up_ports,
                               " spine uplinks to divide (each tenant needs at least one)"));
  auto routes = route_jobs_partitioned(d, f, p.jobs, p.flows, part);
  REQUIRE_FALSE(routes.ok());
  CHECK(routes.status().code() == absl::StatusCode::kFailedPrecondition);
  // Sixteen of them fit.
  const Placed few = place(d, "a:gpus=64;b:gpus=64;c:gpus=64", placement::Policy::kRandom, 5);
  CHECK(partition_spines(d, few.jobs, few.flows).ok);
}

TEST_CASE("isolation: bad input names the list") {
  auto cluster = topology::make_cluster("h100-1024-2to1");
  REQUIRE(cluster.ok());
  const auto& d = cluster->descriptor;
  const Fabric& f = cluster->fabric;
  const Placed p = place(d, "a:gpus=64;b:gpus=64", placement::Policy::kFirstFit);
  std::vector<std::vector<Route>> routes(1);
  auto r = isolation_report(f, p.jobs, p.flows, routes);
  REQUIRE_FALSE(r.ok());
  CHECK(testing::message_text(r.status()) == "routes: 1 route lists for 2 jobs (want one per job)");
  routes.resize(2);
  auto r2 = isolation_report(f, p.jobs, p.flows, routes);
  REQUIRE_FALSE(r2.ok());
  CHECK(testing::message_text(r2.status()) == "routes: job 'a' has 64 flows but 0 routes");
}

}  // namespace railyard_test_routing_isolation_test
