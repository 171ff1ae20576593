#include "railyard/routing/spray.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../support/clusters.hpp"
#include "../support/test_hash.hpp"
#include "../support/budget.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/topology/fabric.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_routing_spray_test {

using namespace railyard;
using namespace railyard::routing;
using railyard::testing::descriptor_of;
using railyard::testing::message_text;
using topology::ClusterDescriptor;
using topology::Fabric;
using topology::FailureOverlay;
using topology::Path;

namespace {

using railyard::testing::TestHash;

std::vector<std::unique_ptr<HashModel>> steerable_models() {
  std::vector<std::unique_ptr<HashModel>> out;
  out.push_back(std::make_unique<TestHash>(3));
  out.push_back(std::make_unique<Crc5TupleHash>(7));
  out.push_back(std::make_unique<QpAwareHash>(7));
  return out;
}

struct Cluster {
  ClusterDescriptor<> desc;
  Fabric fabric;
};
Cluster cluster(std::string_view spec) {
  Cluster c{descriptor_of(spec), {}};
  c.fabric = topology::materialize(c.desc);
  return c;
}

// Independent of spray.hpp: follow the model on the Fabric graph. At each node
// the next hops are the distinct next links of the (healthy) up/down paths that
// share the prefix so far, in ascending link id; a node with several asks the
// model, naming the hop by the node's tier, direction and switch index.
Path follow_hash(const Fabric& f, NicPort a, NicPort b, const HashModel& m, const FiveTuple& t,
                 const std::vector<Path>& all) {
  std::vector<const Path*> live;
  for (const Path& p : all) live.push_back(&p);
  Path out;
  for (int h = 0; !live.empty() && h < live.front()->hops; ++h) {
    std::vector<int32_t> next;
    for (const Path* p : live) next.push_back(p->links[static_cast<size_t>(h)].value());
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    int32_t choice = 0;
    if (next.size() > 1) {
      const LinkId first{next.front()};
      const NodeId node = f.src(first);
      const bool up = Fabric::is_up(first);
      HopKind kind = HopKind::kSrcLeafUp;
      switch (f.kind(node)) {
        case topology::NodeKind::kLeaf:
          REQUIRE(up);
          kind = HopKind::kSrcLeafUp;
          break;
        case topology::NodeKind::kSpine:
          kind = up ? HopKind::kSrcSpineUp : HopKind::kSpineDown;
          break;
        case topology::NodeKind::kCore:
          kind = HopKind::kCoreDown;
          break;
        default:
          FAIL("a decision at a non-switch node");
      }
      choice = m.pick({kind, SwitchIndex{f.owner(node)}, static_cast<int32_t>(next.size())}, t);
    }
    const int32_t taken = next[static_cast<size_t>(choice)];
    out.push(LinkId{taken});
    std::erase_if(live,
                  [&](const Path* p) { return p->links[static_cast<size_t>(h)].value() != taken; });
  }
  (void)a;
  (void)b;
  return out;
}

bool links_up(const Path& p, const FailureOverlay* fo) {
  if (fo == nullptr) return true;
  for (LinkId l : p.view())
    if (fo->is_down(l)) return false;
  return true;
}

double bottleneck(const Path& p, const Fabric& f, const FailureOverlay* fo) {
  double m = 1e300;
  for (LinkId l : p.view())
    m = std::min(m, fo != nullptr ? fo->capacity_gbps(l) : f.capacity_gbps(l));
  return m;
}

// Random NIC port of the cluster; `like` fixes plane (and rail for rail_only).
NicPort random_port(const ClusterDescriptor<>& d, std::mt19937_64& rng, const NicPort* like) {
  NicPort p{HostId{static_cast<int32_t>(rng() % static_cast<uint64_t>(d.hosts()))},
            NicIndex{static_cast<int32_t>(rng() % static_cast<uint64_t>(d.nics_per_host()))},
            PlaneId{static_cast<int32_t>(rng() % static_cast<uint64_t>(d.planes()))}};
  if (like != nullptr) {
    p.plane = like->plane;
    if (d.kind() == topology::Kind::kRailOnly) p.nic = like->nic;
  }
  return p;
}

// Pairs for a cluster: random ones, one through a shared leaf, and one far away.
std::vector<std::pair<NicPort, NicPort>> pairs_of(const ClusterDescriptor<>& d, uint64_t seed,
                                                  int count) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<NicPort, NicPort>> out;
  const NicPort first{HostId{0}, NicIndex{0}};
  out.push_back({first, NicPort{HostId{d.hosts() - 1}, NicIndex{0}}});
  if (d.hosts_per_su() > 1) out.push_back({first, NicPort{HostId{1}, NicIndex{0}}});
  while (static_cast<int>(out.size()) < count) {
    const NicPort a = random_port(d, rng, nullptr);
    const NicPort b = random_port(d, rng, &a);
    if (a != b) out.push_back({a, b});
  }
  return out;
}

int32_t ceil_div(int32_t a, int32_t b) { return (a + b - 1) / b; }

// Checks every property a steered plan must have; `healthy` adds the equal
// spread and equal weights.
void check_steered(const Cluster& c, const SprayPlan& plan, const HashModel& m,
                   const FailureOverlay* fo, bool healthy) {
  const auto& d = c.desc;
  const Fabric& f = c.fabric;
  const NicPort a = plan.src, b = plan.dst;
  const int32_t k = plan.qps;
  REQUIRE(plan.steered);
  REQUIRE(plan.qp.size() == static_cast<size_t>(k));
  CHECK(plan.unmet_targets == 0);
  // Paths: exactly the usable ones of the graph, weights by bottleneck.
  const NodeId na = f.nic_port(a), nb = f.nic_port(b);
  CHECK(static_cast<int64_t>(plan.paths.size()) == f.count_paths(na, nb, fo));
  double sum = 0;
  for (const SprayPath& p : plan.paths) sum += bottleneck(f.route_links(a, b, p.route), f, fo);
  double weights = 0;
  for (const SprayPath& p : plan.paths) {
    const Path links = f.route_links(a, b, p.route);
    CHECK(links_up(links, fo));
    CHECK(p.bottleneck_gbps == doctest::Approx(bottleneck(links, f, fo)));
    CHECK(p.weight == doctest::Approx(p.bottleneck_gbps / sum));
    if (healthy) CHECK(p.weight == doctest::Approx(1.0 / static_cast<double>(plan.paths.size())));
    weights += p.weight;
  }
  CHECK(weights == doctest::Approx(1.0));
  // Uplink groups cover the paths in order.
  int32_t covered = 0, total_qps = 0;
  for (const UplinkShare& u : plan.uplinks) {
    CHECK(u.first_path == covered);
    for (int32_t i = 0; i < u.path_count; ++i)
      CHECK(plan.paths[static_cast<size_t>(u.first_path + i)].route.src_leaf_uplink == u.uplink);
    covered += u.path_count;
    total_qps += u.qps;
  }
  CHECK(covered == static_cast<int32_t>(plan.paths.size()));
  CHECK(total_qps == k);
  const auto mm = static_cast<int32_t>(plan.uplinks.size());
  if (healthy) {
    for (const UplinkShare& u : plan.uplinks) {
      CHECK(u.qps <= ceil_div(k, mm));
      CHECK(u.qps >= k / mm);
    }
    CHECK(plan.max_qps_per_uplink == ceil_div(k, mm));
    // Any prefix of the QPs is spread too: the first min(k, m) are on distinct uplinks.
    std::set<int32_t> first;
    for (int32_t i = 0; i < std::min(k, mm); ++i)
      first.insert(plan.qp[static_cast<size_t>(i)].uplink);
    CHECK(static_cast<int32_t>(first.size()) == std::min(k, mm));
  }
  // Ports: distinct RoCEv2 ports whose flow labels give them back; each hashes
  // to its planned path at every hop.
  const std::vector<Path> all = f.paths(na, nb);
  std::set<uint16_t> ports;
  for (int32_t i = 0; i < k; ++i) {
    const QpRoute& q = plan.qp[static_cast<size_t>(i)];
    CHECK(q.sport >= kSportBase);
    CHECK(sport_from_flow_label(q.flow_label) == q.sport);
    CHECK(q.flow_label < 0x4000u);
    CHECK(q.dst_qpn == plan.options.base_dst_qpn + static_cast<uint32_t>(i));
    ports.insert(q.sport);
    REQUIRE(q.path >= 0);
    REQUIRE(q.path < static_cast<int32_t>(plan.paths.size()));
    const topology::Route& r = plan.paths[static_cast<size_t>(q.path)].route;
    CHECK(q.uplink == r.src_leaf_uplink);
    const FiveTuple t = rocev2_tuple(d, a, b, q.sport, q.dst_qpn);
    const Path planned = f.route_links(a, b, r);
    CHECK(follow_hash(f, a, b, m, t, all) == planned);
    CHECK(links_up(planned, fo));
    for (const EcmpDecision& e : ecmp_decisions(d, f, a, b, r)) {
      CHECK(m.pick(e.hop, t) == e.choice);
    }
  }
  CHECK(static_cast<int32_t>(ports.size()) == k);
}

// Per (kind, switch): the largest QP count on one next hop must be at most
// ceil(through / candidates).
void check_later_spread(const Cluster& c, const SprayPlan& plan) {
  std::map<std::pair<int, int32_t>, std::pair<int32_t, std::map<int32_t, int32_t>>> at;
  for (const QpRoute& q : plan.qp) {
    const topology::Route& r = plan.paths[static_cast<size_t>(q.path)].route;
    for (const EcmpDecision& e : ecmp_decisions(c.desc, c.fabric, plan.src, plan.dst, r)) {
      if (e.hop.kind == HopKind::kSrcLeafUp) continue;
      auto& slot = at[{static_cast<int>(e.hop.kind), e.hop.switch_index.value()}];
      slot.first = e.hop.candidates;
      ++slot.second[e.choice];
    }
  }
  for (const auto& [where, v] : at) {
    int32_t through = 0, most = 0;
    for (const auto& [choice, n] : v.second) {
      through += n;
      most = std::max(most, n);
    }
    CHECK(most <= ceil_div(through, v.first));
  }
}

const std::vector<std::string_view> kClusters = {
    "h100-1024",          "h100-1024-2to1",      "h100-16k-3tier", "h100-1024-dualplane",
    "h100-1024-railonly", "rail_only:hosts=128", "h100-1024-tor"};

}  // namespace

TEST_CASE("spray: k QPs spread over uplinks and their ports hash to the planned paths") {
  const std::vector<int32_t> ks = {1, 2, 3, 5, 8, 16, 31, 64, 256};
  const auto models = steerable_models();
  for (std::string_view spec : kClusters) {
    const Cluster c = cluster(spec);
    for (const auto& [a, b] : pairs_of(c.desc, 11, railyard::testing::cases(5)))
      for (int32_t k : ks)
        for (const auto& m : models) {
          CAPTURE(spec);
          CAPTURE(port_name(a));
          CAPTURE(port_name(b));
          CAPTURE(k);
          CAPTURE(m->name());
          auto plan = plan_connection(c.desc, c.fabric, a, b, k, *m);
          REQUIRE_MESSAGE(plan.ok(), message_text(plan.status()));
          CHECK(static_cast<int64_t>(plan->paths.size()) == c.desc.path_count(a, b));
          check_steered(c, *plan, *m, nullptr, true);
          check_later_spread(c, *plan);
          CHECK(plan->expected_efficiency == 1.0);
          CHECK(plan->expected_uplinks_hit ==
                doctest::Approx(std::min<int32_t>(k, plan->usable_uplinks())));
        }
  }
}

TEST_CASE("spray: plans are deterministic and options shift rotation, QPNs and ports") {
  const Cluster c = cluster("h100-1024");
  const TestHash m(5);
  const NicPort a{HostId{3}, NicIndex{2}}, b{HostId{77}, NicIndex{2}};
  auto p1 = plan_connection(c.desc, c.fabric, a, b, 8, m);
  auto p2 = plan_connection(c.desc, c.fabric, a, b, 8, m);
  REQUIRE(p1.ok());
  REQUIRE(p2.ok());
  for (size_t i = 0; i < 8; ++i) {
    CHECK(p1->qp[i].sport == p2->qp[i].sport);
    CHECK(p1->qp[i].path == p2->qp[i].path);
  }
  // Default rotation: host 3 is the 4th port of its rail leaf, so QP 0 starts at uplink 3.
  CHECK(p1->options.rotation == 3);
  CHECK(p1->qp[0].uplink == 3);
  SprayOptions o;
  o.rotation = 20;
  o.base_dst_qpn = 0x5000;
  auto p3 = plan_connection(c.desc, c.fabric, a, b, 8, m, nullptr, o);
  REQUIRE(p3.ok());
  CHECK(p3->qp[0].uplink == 20);
  CHECK(p3->qp[7].uplink == 27);
  CHECK(p3->qp[7].dst_qpn == 0x5007u);
  check_steered(c, *p3, m, nullptr, true);
}

TEST_CASE("spray: random failure overlays — no down link, weights follow remaining capacity") {
  const auto models = steerable_models();
  for (std::string_view spec : {"h100-1024", "h100-16k-3tier", "rail_only:hosts=128"}) {
    const Cluster c = cluster(spec);
    std::mt19937_64 rng(29);
    for (int scenario = 0; scenario < 4; ++scenario) {
      FailureOverlay fo(c.fabric);
      // Switch-to-switch cables: 10% down, 20% degraded.
      for (int32_t l = 0; l < c.fabric.link_count(); l += 2) {
        const auto tier = c.fabric.tier(LinkId{l});
        if (tier != topology::LinkTier::kLeafSpine && tier != topology::LinkTier::kSpineCore)
          continue;
        const uint64_t roll = rng() % 100;
        if (roll < 10)
          fo.set_cable_down(LinkId{l});
        else if (roll < 30)
          fo.set_cable_fraction(LinkId{l}, 0.1 * static_cast<double>(1 + rng() % 9));
      }
      for (const auto& [a, b] : pairs_of(c.desc, 100 + static_cast<uint64_t>(scenario),
                                                railyard::testing::cases(4)))
        for (int32_t k : {1, 4, 16, 64})
          for (const auto& m : models) {
            CAPTURE(spec);
            CAPTURE(scenario);
            CAPTURE(port_name(a));
            CAPTURE(port_name(b));
            CAPTURE(k);
            auto plan = plan_connection(c.desc, c.fabric, a, b, k, *m, &fo);
            if (c.fabric.count_paths(c.fabric.nic_port(a), c.fabric.nic_port(b), &fo) == 0) {
              CHECK(plan.status().code() == absl::StatusCode::kUnavailable);
              continue;
            }
            REQUIRE_MESSAGE(plan.ok(), message_text(plan.status()));
            check_steered(c, *plan, *m, &fo, false);
            // Every uplink gets the floor or ceil of its capacity share.
            double total = 0;
            for (const UplinkShare& u : plan->uplinks) total += u.capacity_gbps;
            for (const UplinkShare& u : plan->uplinks) {
              const double quota = k * u.capacity_gbps / total;
              CHECK(u.qps >= static_cast<int32_t>(std::floor(quota + 1e-9)));
              CHECK(u.qps <= static_cast<int32_t>(std::ceil(quota - 1e-9)));
            }
          }
    }
  }
}

TEST_CASE("spray: degraded source-leaf uplinks get QPs in proportion to what is left") {
  const Cluster c = cluster("h100-1024");
  const TestHash m(9);
  const NicPort a{HostId{5}, NicIndex{1}}, b{HostId{100}, NicIndex{1}};
  const SwitchIndex la = c.desc.leaf_of(a);
  std::mt19937_64 rng(3);
  for (int scenario = 0; scenario < 20; ++scenario) {
    FailureOverlay fo(c.fabric);
    std::vector<double> frac(32, 1.0);
    for (int32_t j = 0; j < 32; ++j) {
      const uint64_t roll = rng() % 4;
      frac[static_cast<size_t>(j)] =
          roll == 0 ? 0.0 : (roll == 1 ? 0.25 * static_cast<double>(1 + rng() % 3) : 1.0);
      fo.set_cable_fraction(c.fabric.leaf_uplink(la, j), frac[static_cast<size_t>(j)]);
    }
    double sum = 0;
    for (double x : frac) sum += x;
    for (int32_t k : {1, 7, 32, 100, 256}) {
      CAPTURE(scenario);
      CAPTURE(k);
      auto plan = plan_connection(c.desc, c.fabric, a, b, k, m, &fo);
      REQUIRE(plan.ok());
      std::vector<int32_t> per(32, 0);
      for (const QpRoute& q : plan->qp) ++per[static_cast<size_t>(q.uplink)];
      int32_t extras = 0;
      for (int32_t j = 0; j < 32; ++j) {
        const double quota = k * frac[static_cast<size_t>(j)] / sum;
        const auto fl = static_cast<int32_t>(std::floor(quota + 1e-9));
        CHECK(per[static_cast<size_t>(j)] >= fl);
        CHECK(per[static_cast<size_t>(j)] <= fl + 1);
        if (frac[static_cast<size_t>(j)] == 0.0) CHECK(per[static_cast<size_t>(j)] == 0);
        extras += per[static_cast<size_t>(j)] - fl;
      }
      CHECK(extras >= 0);
      check_steered(c, *plan, m, &fo, false);
    }
  }
}

TEST_CASE("spray: replan moves only broken QPs when capacity allows") {
  const auto models = steerable_models();
  for (std::string_view spec : {"h100-1024", "h100-16k-3tier"}) {
    const Cluster c = cluster(spec);
    for (const auto& m : models)
      for (int32_t k : {4, 16, 64, 100}) {
        CAPTURE(spec);
        CAPTURE(k);
        CAPTURE(m->name());
        const NicPort a{HostId{2}, NicIndex{4}}, b{HostId{c.desc.hosts() - 3}, NicIndex{4}};
        auto plan = plan_connection(c.desc, c.fabric, a, b, k, *m);
        REQUIRE(plan.ok());
        // Cut the last down-cable (spine -> b's leaf) of QP 0's path: the uplink
        // capacities stay (the spine has other cables to b's leaf or the path
        // set below stays), so exactly the QPs on that cable must move.
        const topology::Route r0 = plan->paths[static_cast<size_t>(plan->qp[0].path)].route;
        const Path p0 = c.fabric.route_links(a, b, r0);
        const LinkId cut = p0.links[static_cast<size_t>(p0.hops - 2)];
        FailureOverlay fo(c.fabric);
        fo.set_cable_down(cut);
        int32_t broken = 0;
        for (const QpRoute& q : plan->qp)
          broken += !links_up(
              c.fabric.route_links(a, b, plan->paths[static_cast<size_t>(q.path)].route), &fo);
        CHECK(broken >= 1);
        auto next = replan(*plan, c.desc, c.fabric, *m, fo);
        REQUIRE_MESSAGE(next.ok(), message_text(next.status()));
        check_steered(c, *next, *m, &fo, false);
        bool uplinks_same = next->uplinks.size() == plan->uplinks.size();
        for (size_t j = 0; uplinks_same && j < next->uplinks.size(); ++j)
          uplinks_same = next->uplinks[j].capacity_gbps == plan->uplinks[j].capacity_gbps;
        if (uplinks_same) CHECK(next->changed_qps == broken);
        CHECK(next->changed_qps >= broken);
      }
  }
}

TEST_CASE("spray: replan changes the fewest QPs that the new shares allow") {
  const Cluster c = cluster("h100-1024");
  const TestHash m(17);
  std::mt19937_64 rng(41);
  for (int scenario = 0; scenario < 40; ++scenario) {
    const NicPort a = random_port(c.desc, rng, nullptr);
    NicPort b = random_port(c.desc, rng, &a);
    if (c.desc.leaf_of(a) == c.desc.leaf_of(b)) b.host = HostId{(b.host.value() + 32) % 128};
    const int32_t k = 1 + static_cast<int32_t>(rng() % 120);
    CAPTURE(scenario);
    CAPTURE(k);
    auto plan = plan_connection(c.desc, c.fabric, a, b, k, m);
    REQUIRE(plan.ok());
    // Down or degrade a few source uplinks and spine down-cables.
    FailureOverlay fo(c.fabric);
    for (int i = 0; i < 6; ++i) {
      const auto j = static_cast<int32_t>(rng() % 32);
      const double f = (rng() % 3 == 0) ? 0.5 : 0.0;
      if (rng() % 2 == 0)
        fo.set_cable_fraction(c.fabric.leaf_uplink(c.desc.leaf_of(a), j), f);
      else
        fo.set_cable_fraction(c.fabric.leaf_uplink(c.desc.leaf_of(b), j), f);
    }
    auto next = replan(*plan, c.desc, c.fabric, m, fo);
    REQUIRE_MESSAGE(next.ok(), message_text(next.status()));
    check_steered(c, *next, m, &fo, false);
    // Kept QPs keep port and path; changed ones are listed.
    std::set<int32_t> changed(next->changed.begin(), next->changed.end());
    CHECK(static_cast<int32_t>(changed.size()) == next->changed_qps);
    int32_t broken = 0;
    std::map<int32_t, int32_t> kept;  // uplink -> QPs whose old path survives
    for (int32_t i = 0; i < k; ++i) {
      const QpRoute& o = plan->qp[static_cast<size_t>(i)];
      const QpRoute& q = next->qp[static_cast<size_t>(i)];
      const topology::Route& r_old = plan->paths[static_cast<size_t>(o.path)].route;
      const bool up = links_up(c.fabric.route_links(a, b, r_old), &fo);
      broken += !up;
      if (up) ++kept[o.uplink];
      if (!up) CHECK(changed.count(i) == 1);
      if (changed.count(i) == 0) {
        CHECK(q.sport == o.sport);
        CHECK(next->paths[static_cast<size_t>(q.path)].route == r_old);
      }
    }
    // The fewest moves any floor/ceil apportionment allows: QPs above the floor
    // of their uplink's new quota must move unless that uplink gets one of the
    // r extra QPs, and each extra saves at most one.
    double total = 0;
    for (const UplinkShare& u : next->uplinks) total += u.capacity_gbps;
    int32_t over_floor = 0, benefit = 0, floors = 0;
    for (const UplinkShare& u : next->uplinks) {
      const double quota = k * u.capacity_gbps / total;
      const auto fl = static_cast<int32_t>(std::floor(quota + 1e-9));
      const bool fractional = quota - fl > 1e-9;
      floors += fl;
      const int32_t kj = kept.count(u.uplink) != 0 ? kept[u.uplink] : 0;
      over_floor += std::max(0, kj - fl);
      benefit += (kj > fl && fractional) ? 1 : 0;
    }
    const int32_t extras = k - floors;
    CHECK(next->changed_qps == broken + over_floor - std::min(extras, benefit));
  }
}

TEST_CASE("spray: bad input is a Status naming the value") {
  const Cluster c = cluster("h100-1024");
  const Cluster dual = cluster("h100-1024-dualplane");
  const Cluster rail = cluster("h100-1024-railonly");
  const TestHash m(1);
  const NicPort a{HostId{0}, NicIndex{0}};
  const NicPort b{HostId{40}, NicIndex{0}};
  struct Case {
    const Cluster* c;
    NicPort src, dst;
    int32_t qps;
    absl::StatusCode code;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {&c, {HostId{128}, NicIndex{0}}, b, 4, absl::StatusCode::kInvalidArgument, "src.host=128"},
      {&c, {HostId{-1}, NicIndex{0}}, b, 4, absl::StatusCode::kInvalidArgument, "src.host=-1"},
      {&c, a, {HostId{4}, NicIndex{8}}, 4, absl::StatusCode::kInvalidArgument, "dst.nic=8"},
      {&c,
       a,
       {HostId{4}, NicIndex{0}, PlaneId{1}},
       4,
       absl::StatusCode::kInvalidArgument,
       "dst.plane=1"},
      {&c, a, b, 0, absl::StatusCode::kInvalidArgument, "qps=0"},
      {&c, a, b, 257, absl::StatusCode::kInvalidArgument, "qps=257"},
      {&c, a, b, -3, absl::StatusCode::kInvalidArgument, "qps=-3"},
      {&c, a, a, 4, absl::StatusCode::kInvalidArgument, "same NIC port"},
      {&dual,
       a,
       {HostId{40}, NicIndex{0}, PlaneId{1}},
       4,
       absl::StatusCode::kInvalidArgument,
       "dst.plane=1: no network path"},
      {&rail,
       a,
       {HostId{40}, NicIndex{3}},
       4,
       absl::StatusCode::kInvalidArgument,
       "dst.nic=3: no network path"},
  };
  for (const Case& t : cases) {
    CAPTURE(t.needle);
    auto plan = plan_connection(t.c->desc, t.c->fabric, t.src, t.dst, t.qps, m);
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.status().code() == t.code);
    CHECK(message_text(plan.status()).find(t.needle) != std::string::npos);
  }
  // 256 is the bound and is accepted.
  CHECK(plan_connection(c.desc, c.fabric, a, b, kMaxQpsPerConnection, m).ok());
  // All paths down: the destination's NIC cable, or every uplink of the source leaf.
  FailureOverlay fo(c.fabric);
  fo.set_cable_down(c.fabric.host_uplink(b));
  auto down = plan_connection(c.desc, c.fabric, a, b, 4, m, &fo);
  CHECK(down.status().code() == absl::StatusCode::kUnavailable);
  CHECK(message_text(down.status())
            .find("all 64 paths from host0.nic0.p0 to host40.nic0.p0 are down") !=
        std::string::npos);
  FailureOverlay cut(c.fabric);
  for (int32_t j = 0; j < 32; ++j) cut.set_cable_down(c.fabric.leaf_uplink(c.desc.leaf_of(a), j));
  CHECK(plan_connection(c.desc, c.fabric, a, b, 4, m, &cut).status().code() ==
        absl::StatusCode::kUnavailable);
  // ... while a same-leaf peer is still reachable.
  CHECK(plan_connection(c.desc, c.fabric, a, {HostId{1}, NicIndex{0}}, 4, m, &cut).ok());
  auto plan = plan_connection(c.desc, c.fabric, a, b, 4, m);
  REQUIRE(plan.ok());
  CHECK(replan(*plan, c.desc, c.fabric, m, cut).status().code() == absl::StatusCode::kUnavailable);
  // A fabric of another cluster.
  auto wrong = plan_connection(c.desc, dual.fabric, a, b, 4, m);
  CHECK(message_text(wrong.status()).find("fabric") != std::string::npos);
}

TEST_CASE("spray: an unknown (random) hash gets distinct ports and the expected efficiency") {
  // docs/constants.md#ecmp, n = m: efficiency for k = 1, 4, 16 QPs.
  struct Row {
    std::string_view spec;
    int32_t m;
    double eff[3];
  };
  const Row rows[] = {{"h100-1024-2to1", 16, {0.32, 0.51, 0.68}},
                      {"h100-1024", 32, {0.28, 0.46, 0.64}}};
  std::vector<std::unique_ptr<HashModel>> randoms;
  randoms.push_back(std::make_unique<TestHash>(2, /*steer=*/false));
  randoms.push_back(std::make_unique<UniformRandomHash>(2));
  for (const Row& row : rows) {
    const Cluster c = cluster(row.spec);
    const NicPort a{HostId{0}, NicIndex{0}}, b{HostId{64}, NicIndex{0}};
    for (const auto& m : randoms)
      for (int i = 0; i < 3; ++i) {
        const int32_t k = i == 0 ? 1 : (i == 1 ? 4 : 16);
        CAPTURE(row.spec);
        CAPTURE(k);
        auto plan = plan_connection(c.desc, c.fabric, a, b, k, *m);
        REQUIRE(plan.ok());
        CHECK_FALSE(plan->steered);
        CHECK(plan->usable_uplinks() == row.m);
        CHECK(std::abs(plan->expected_efficiency - row.eff[i]) <= 0.02);
        const double hit = row.m * (1.0 - std::pow(1.0 - 1.0 / row.m, k));
        CHECK(plan->expected_uplinks_hit == doctest::Approx(hit));
        for (int32_t q = 0; q < k; ++q) {
          const QpRoute& r = plan->qp[static_cast<size_t>(q)];
          CHECK(r.path == -1);
          CHECK(r.uplink == -1);
          CHECK(r.sport == kSportBase + q);
          CHECK(sport_from_flow_label(r.flow_label) == r.sport);
        }
        // Replanning a random-model plan changes nothing it could steer.
        FailureOverlay fo(c.fabric);
        fo.set_cable_down(c.fabric.leaf_uplink(c.desc.leaf_of(a), 0));
        auto next = replan(*plan, c.desc, c.fabric, *m, fo);
        REQUIRE(next.ok());
        CHECK(next->changed_qps == 0);
        CHECK(next->usable_uplinks() == row.m - 1);
      }
  }
}

TEST_CASE("spray: SprayTable lookups equal the plans, out of range gives the fallback") {
  const Cluster c = cluster("h100-1024");
  const TestHash m(23);
  std::vector<SprayPlan> plans;
  // One ring step on every rail: host h -> host h+1, k varying per connection.
  for (int32_t r = 0; r < 8; ++r)
    for (int32_t h = 0; h < 128; h += 7) {
      auto p = plan_connection(c.desc, c.fabric, {HostId{h}, NicIndex{r}},
                               {HostId{(h + 1) % 128}, NicIndex{r}}, 1 + (h + r) % 9, m);
      REQUIRE(p.ok());
      plans.push_back(*p);
    }
  const SprayTable table(plans);
  REQUIRE(table.connections() == static_cast<int32_t>(plans.size()));
  for (size_t i = 0; i < plans.size(); ++i) {
    const ConnectionId id{static_cast<int32_t>(i)};
    CHECK(table.qps(id) == plans[i].qps);
    for (int32_t q = 0; q < plans[i].qps; ++q) {
      CHECK(table.source_port(id, q) == plans[i].qp[static_cast<size_t>(q)].sport);
      CHECK(table.flow_label(id, q) == plans[i].qp[static_cast<size_t>(q)].flow_label);
    }
    CHECK(table.source_port(id, plans[i].qps) == kNoSourcePort);
    CHECK(table.source_port(id, -1) == kNoSourcePort);
  }
  const auto n = static_cast<int32_t>(plans.size());
  CHECK(table.source_port(ConnectionId{n}, 0) == kNoSourcePort);
  CHECK(table.source_port(ConnectionId{-1}, 0) == kNoSourcePort);
  CHECK(table.source_port(ConnectionId{}, 0) == kNoSourcePort);
  CHECK(table.flow_label(ConnectionId{n}, 0) == 0u);
  CHECK(table.qps(ConnectionId{n}) == 0);
  const SprayTable empty;
  CHECK(empty.connections() == 0);
  CHECK(empty.source_port(ConnectionId{0}, 0) == kNoSourcePort);
  // add() hands out dense ids.
  SprayTable grown;
  CHECK(grown.add(plans[0]) == ConnectionId{0});
  CHECK(grown.add(plans[1]) == ConnectionId{1});
  CHECK(grown.source_port(ConnectionId{1}, 0) == plans[1].qp[0].sport);
}

TEST_CASE("spray: ecmp_decisions name the hops of ecmp_hops") {
  for (std::string_view spec : {"h100-1024", "h100-16k-3tier", "rail_only:hosts=128"}) {
    const Cluster c = cluster(spec);
    const NicPort a{HostId{0}, NicIndex{0}}, b{HostId{c.desc.hosts() - 1}, NicIndex{0}};
    const std::vector<EcmpHop> hops = ecmp_hops(c.desc, a, b);
    // The route through the first candidate of every decision.
    topology::Route first;
    bool found = false;
    c.desc.for_each_route(a, b, [&](const topology::Route& r) {
      if (!found) first = r;
      found = true;
    });
    REQUIRE(found);
    const std::vector<EcmpDecision> ds = ecmp_decisions(c.desc, c.fabric, a, b, first);
    CAPTURE(spec);
    REQUIRE(ds.size() == hops.size());
    for (size_t i = 0; i < ds.size(); ++i) {
      CHECK(ds[i].hop.kind == hops[i].kind);
      CHECK(ds[i].hop.switch_index == hops[i].switch_index);
      CHECK(ds[i].hop.candidates == hops[i].candidates);
      CHECK(ds[i].choice == 0);
    }
  }
}

TEST_CASE("spray: parse_endpoint reads HOST:GPU or HOST:GPU:PLANE, errors carry the field and the text") {
  const ClusterDescriptor<> d = descriptor_of("h100-1024-dualplane");
  auto port = parse_endpoint("src", "40:3:1", d);
  REQUIRE(port.ok());
  CHECK(port->host == HostId{40});
  CHECK(port->nic == d.nic_of_gpu(GpuIndex{3}));
  CHECK(port->plane == PlaneId{1});
  CHECK(parse_endpoint("dst", "0:0", d)->plane == PlaneId{0});
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {Case{"0-3", "src=0-3: expected HOST:GPU or HOST:GPU:PLANE"},
                        Case{"", "src=: expected HOST:GPU or HOST:GPU:PLANE"},
                        Case{"1:2:0:0", "src=1:2:0:0: expected HOST:GPU or HOST:GPU:PLANE"},
                        Case{"0:8", "src=0:8: gpu=8: must be between 0 and 7"},
                        Case{"128:0", "src=128:0: host=128: must be between 0 and 127"},
                        Case{"40:3:2", "src=40:3:2: plane=2: must be between 0 and 1"},
                        Case{"x:0", "src=x:0: host=x: expected a non-negative integer"}}) {
    auto bad = parse_endpoint("src", c.text, d);
    REQUIRE_FALSE(bad.ok());
    CHECK(message_text(bad.status()) == c.message);
    CHECK(railyard::error_field(bad.status())->field == "src");
    CHECK(railyard::error_field(bad.status())->value == c.text);
  }
}

}  // namespace railyard_test_routing_spray_test
