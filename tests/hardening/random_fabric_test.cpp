// Routing and the collective simulator on random fabrics (2 and 3 tiers, rail,
// ToR and rail-only, oversubscribed, one or two planes) under random failures
// applied through the FailureOverlay: cables and single directions down, whole
// switches down, NIC cables down, links degraded.
//
// Routing: every path that assign_paths, ecmp_paths and plan_connection return
// is checked hop by hop (consecutive links meet, source to destination, no
// down link, no down switch) and must be one of the paths an independent
// exhaustive search (tests/support/brute_force.hpp) finds over working links;
// a flow the search finds no path for must make the call fail with a status
// naming that flow. Simulation: whether simulate_collective must fail is
// predicted from the collective's transfers and the same search; when it
// succeeds, bytes are conserved at every node (GPUs send and receive exactly
// their transfers' bytes, every other node forwards what it receives), no byte
// crosses a down link, time is at least the lower bound (so busbw at most the
// bound's), the bound under failures is at least the healthy bound, and the
// same input gives the same bytes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../support/budget.hpp"
#include "../support/brute_force.hpp"
#include "../support/random_shapes.hpp"
#include "railyard/collective/cost.hpp"
#include "railyard/collective/traffic.hpp"
#include "railyard/routing/assign.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/routing/paths.hpp"
#include "railyard/routing/spray.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_hardening_random_fabric_test {

using namespace railyard;
using topology::Fabric;
using topology::FailureOverlay;
using topology::LinkTier;
using topology::NodeKind;

namespace {

using LinkList = std::vector<int32_t>;

// A failure scenario as a list of overlay calls, so that a fresh overlay can
// be built from it again (for the same-input-same-output check).
struct FailureOp {
  enum Kind : uint8_t { kCableDown, kLinkDown, kCableFraction, kNodeDown } kind = kCableDown;
  int32_t id = 0;  // link id, or node id for kNodeDown
  double fraction = 0;
};

struct Scenario {
  std::vector<FailureOp> ops;
  std::set<int32_t> down_switches;
};

void apply(const Scenario& s, FailureOverlay& fo) {
  for (const FailureOp& op : s.ops) switch (op.kind) {
      case FailureOp::kCableDown:
        fo.set_cable_down(LinkId{op.id});
        break;
      case FailureOp::kLinkDown:
        fo.set_link_down(LinkId{op.id});
        break;
      case FailureOp::kCableFraction:
        fo.set_cable_fraction(LinkId{op.id}, op.fraction);
        break;
      case FailureOp::kNodeDown:
        fo.set_node_down(NodeId{op.id});
        break;
    }
}

// The fabric's cables (by up link) and switches, by kind.
struct Parts {
  std::vector<int32_t> network;   // leaf-spine and spine-core cables
  std::vector<int32_t> nic;       // host-leaf cables
  std::vector<int32_t> internal;  // PCIe and NVLink cables
  std::vector<int32_t> switches;  // leaves, spines, cores
};

Parts parts_of(const Fabric& f) {
  Parts p;
  for (int32_t l = 0; l < f.link_count(); l += 2) switch (f.tier(LinkId{l})) {
      case LinkTier::kLeafSpine:
      case LinkTier::kSpineCore:
        p.network.push_back(l);
        break;
      case LinkTier::kHostLeaf:
        p.nic.push_back(l);
        break;
      case LinkTier::kPcie:
      case LinkTier::kNvlink:
        p.internal.push_back(l);
        break;
    }
  for (int32_t n = 0; n < f.node_count(); ++n)
    if (testing::rank_of(f.kind(NodeId{n})) > 0) p.switches.push_back(n);
  return p;
}

// A random scenario. `harsh` scales how much goes down; `internal` allows
// PCIe and NVLink cables to degrade or (rarely) go down. Some cables come back
// (fraction 1) after going down. A switch goes down last, so that no later call
// revives one of its cables.
Scenario random_scenario(std::mt19937& rng, const Parts& p, int harsh, bool internal) {
  Scenario s;
  auto any = [&rng](const std::vector<int32_t>& v) { return v[rng() % v.size()]; };
  constexpr double kFractions[] = {0.125, 0.25, 0.5, 0.75, 0.9};
  auto fraction = [&] { return kFractions[rng() % 5]; };
  if (!p.network.empty()) {
    std::vector<int32_t> downed;
    for (int i = static_cast<int>(rng() % static_cast<uint32_t>(2 + harsh)); i > 0; --i) {
      downed.push_back(any(p.network));
      s.ops.push_back({FailureOp::kCableDown, downed.back(), 0});
    }
    if (!downed.empty() && rng() % 3 == 0)  // restored
      s.ops.push_back({FailureOp::kCableFraction, any(downed), 1.0});
    if (rng() % 3 == 0)  // one direction only: up or down link of a cable
      s.ops.push_back({FailureOp::kLinkDown, any(p.network) + static_cast<int32_t>(rng() % 2), 0});
    for (int i = static_cast<int>(rng() % 3); i > 0; --i)
      s.ops.push_back({FailureOp::kCableFraction, any(p.network), fraction()});
  }
  if (harsh > 0 && rng() % static_cast<uint32_t>(10 / harsh) == 0)
    s.ops.push_back({FailureOp::kCableDown, any(p.nic), 0});
  if (rng() % 4 == 0) s.ops.push_back({FailureOp::kCableFraction, any(p.nic), fraction()});
  if (internal && !p.internal.empty()) {
    if (rng() % 3 == 0) s.ops.push_back({FailureOp::kCableFraction, any(p.internal), fraction()});
    if (harsh > 0 && rng() % 12 == 0) s.ops.push_back({FailureOp::kCableDown, any(p.internal), 0});
  }
  if (harsh > 0 && rng() % static_cast<uint32_t>(8 / harsh) == 0) {
    const int32_t node = any(p.switches);
    s.ops.push_back({FailureOp::kNodeDown, node, 0});
    s.down_switches.insert(node);
  }
  return s;
}

// Random flows between NIC ports the healthy fabric connects (same plane, and
// the same rail on rail-only fabrics), some under one leaf. Fewer (none) when
// such pairs are rare (absent, as on a one-host fabric).
std::vector<routing::Flow> random_flows(const topology::ClusterDescriptor<>& d, std::mt19937& rng,
                                        int n) {
  static constexpr double kSizes[] = {1e5, 1e6, 4e6, 2.5e6};
  std::vector<routing::Flow> flows;
  auto below = [&rng](int32_t m) { return static_cast<int32_t>(rng() % static_cast<uint32_t>(m)); };
  for (int attempt = 0; attempt < 1000 && static_cast<int>(flows.size()) < n; ++attempt) {
    const PlaneId plane{below(d.planes())};
    const NicPort a{HostId{below(d.hosts())}, NicIndex{below(d.nics_per_host())}, plane};
    NicPort b{HostId{below(d.hosts())}, NicIndex{below(d.nics_per_host())}, plane};
    if (rng() % 4 == 0) b.host = HostId{a.host.value() / d.hosts_per_su() * d.hosts_per_su()};
    if (d.path_count(a, b) == 0) continue;
    flows.push_back({a, b, kSizes[rng() % 4]});
  }
  return flows;
}

std::string port_text(NicPort p) {
  return str_cat("host", p.host.value(), ".nic", p.nic.value(), ".p", p.plane.value());
}

// The number after `key` in `text`, or -1.
int64_t number_after(const std::string& text, std::string_view key) {
  const size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  size_t i = at + key.size();
  if (i >= text.size() || !is_digit(text[i])) return -1;
  int64_t v = 0;
  while (i < text.size() && is_digit(text[i])) v = v * 10 + (text[i++] - '0');
  return v;
}

// The word after `key` in `text` (up to the next space), or "".
std::string word_after(const std::string& text, std::string_view key) {
  const size_t at = text.find(key);
  if (at == std::string::npos) return "";
  const size_t b = at + key.size();
  const size_t e = text.find(' ', b);
  return text.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// What is wrong with a returned path ("" when nothing): it must run from the
// flow's source port to its destination port over consecutive links, avoid
// every down link and down switch, and be one of the oracle's paths. (One
// CHECK per path, not per hop, keeps the sanitizer build fast.)
std::string path_problem(const Fabric& f, const FailureOverlay& fo, const Scenario& s,
                         const routing::Flow& flow, const topology::Path& path,
                         const std::vector<LinkList>& oracle) {
  const auto links = path.view();
  if (links.empty()) return "no links";
  LinkList ids;
  for (size_t k = 0; k < links.size(); ++k) {
    const LinkId l = links[k];
    if (l.value() < 0 || l.value() >= f.link_count())
      return str_cat("link ", l.value(), ": no such link");
    if (k > 0 && f.dst(links[k - 1]) != f.src(l))
      return str_cat("links ", links[k - 1].value(), " and ", l.value(), " do not meet");
    if (fo.is_down(l)) return str_cat("link ", l.value(), " is down");
    if (s.down_switches.contains(f.src(l).value()) || s.down_switches.contains(f.dst(l).value()))
      return str_cat("link ", l.value(), " touches a down switch");
    ids.push_back(l.value());
  }
  if (f.src(links.front()) != f.nic_port(flow.src)) return "does not start at the source port";
  if (f.dst(links.back()) != f.nic_port(flow.dst)) return "does not end at the destination port";
  if (!std::binary_search(oracle.begin(), oracle.end(), ids))
    return "not an up/down path over working links";
  return "";
}

void check_path(const Fabric& f, const FailureOverlay& fo, const Scenario& s,
                const routing::Flow& flow, const topology::Path& path,
                const std::vector<LinkList>& oracle) {
  const std::string problem = path_problem(f, fo, s, flow, path, oracle);
  CHECK_MESSAGE(problem.empty(), port_text(flow.src), " -> ", port_text(flow.dst), ": ", problem);
}

// Per-link loads recounted from the routes (ns: bytes * 8 / Gb/s).
std::vector<double> recount_loads(const Fabric& f, const FailureOverlay& fo,
                                  const std::vector<routing::Flow>& flows,
                                  const std::vector<topology::Route>& routes) {
  std::vector<double> load(static_cast<size_t>(f.link_count()), 0.0);
  for (size_t i = 0; i < flows.size(); ++i) {
    const topology::Path path = f.route_links(flows[i].src, flows[i].dst, routes[i]);
    for (LinkId l : path.view())
      load[static_cast<size_t>(l.value())] += flows[i].bytes * 8 / fo.capacity_gbps(l);
  }
  return load;
}

// A failed routing call must name a flow the search found dead, with its ports.
void check_dead_flow_error(const absl::Status& status, const std::vector<routing::Flow>& flows,
                           const std::vector<char>& dead) {
  const std::string msg(status.message());
  CAPTURE(msg);
  CHECK(status.code() == absl::StatusCode::kFailedPrecondition);
  const int64_t i = number_after(msg, "flow ");
  REQUIRE(i >= 0);
  REQUIRE(static_cast<size_t>(i) < flows.size());
  CHECK(dead[static_cast<size_t>(i)]);
  CHECK(contains(msg, port_text(flows[static_cast<size_t>(i)].src)));
  CHECK(contains(msg, port_text(flows[static_cast<size_t>(i)].dst)));
}

}  // namespace

TEST_CASE("random_fabric: routes under failures are live up/down paths, dead flows are named") {
  std::mt19937 rng(4242);
  const auto specs = testing::random_valid_specs(100, 90210, 24);
  int routed = 0, refused = 0, plans = 0, plans_refused = 0;
  std::set<int> kinds, tiers, planes;
  for (const topology::ClusterSpec& spec : specs) {
    auto desc = topology::make_descriptor(spec);
    REQUIRE(desc.ok());
    const topology::ClusterDescriptor<>& d = *desc;
    const Fabric f = topology::materialize(d);
    const Parts parts = parts_of(f);
    kinds.insert(static_cast<int>(spec.kind));
    tiers.insert(spec.tiers);
    planes.insert(spec.planes);
    CAPTURE(topology::to_spec_string(spec));
    for (int trial = 0; trial < 4; ++trial) {
      CAPTURE(trial);
      const Scenario scenario = random_scenario(rng, parts, 1 + trial % 3, false);
      FailureOverlay fo(f);
      apply(scenario, fo);
      const std::vector<routing::Flow> flows =
          random_flows(d, rng, 2 + static_cast<int>(rng() % 6));
      if (flows.empty()) continue;
      std::vector<std::vector<LinkList>> oracle;
      std::vector<char> dead;
      for (const routing::Flow& fl : flows) {
        oracle.push_back(
            testing::brute_force_paths(f, f.nic_port(fl.src), f.nic_port(fl.dst), &fo));
        dead.push_back(oracle.back().empty());
      }
      const bool any_dead = std::find(dead.begin(), dead.end(), 1) != dead.end();

      // Planned paths: exact search on small inputs, heuristic only otherwise.
      for (int64_t exact : {int64_t{0}, int64_t{1} << 12}) {
        auto plan = routing::assign_paths(d, f, flows, &fo, {.exact_search_limit = exact});
        if (any_dead) {
          REQUIRE_FALSE(plan.ok());
          check_dead_flow_error(plan.status(), flows, dead);
          continue;
        }
        REQUIRE_MESSAGE(plan.ok(), std::string(plan.status().message()));
        REQUIRE(plan->routes.size() == flows.size());
        for (size_t i = 0; i < flows.size(); ++i)
          check_path(f, fo, scenario, flows[i],
                     f.route_links(flows[i].src, flows[i].dst, plan->routes[i]), oracle[i]);
        const std::vector<double> load = recount_loads(f, fo, flows, plan->routes);
        REQUIRE(plan->load_ns.size() == load.size());
        double peak = 0, worst = 0;
        for (size_t l = 0; l < load.size(); ++l) {
          worst = std::max(worst, std::abs(plan->load_ns[l] - load[l]));
          peak = std::max(peak, load[l]);
        }
        CHECK(worst <= 1e-9 * std::max(1.0, peak));
        CHECK(plan->max_load_ns == doctest::Approx(peak).epsilon(1e-9));
      }

      // ECMP under an unknown (random) and a CRC hash.
      const routing::UniformRandomHash uniform(rng());
      const routing::Crc5TupleHash crc(static_cast<uint32_t>(rng()));
      for (const routing::HashModel* model : {static_cast<const routing::HashModel*>(&uniform),
                                              static_cast<const routing::HashModel*>(&crc)}) {
        auto routes = routing::ecmp_paths(d, f, flows, *model, {}, &fo);
        if (any_dead) {
          REQUIRE_FALSE(routes.ok());
          check_dead_flow_error(routes.status(), flows, dead);
          continue;
        }
        REQUIRE_MESSAGE(routes.ok(), std::string(routes.status().message()));
        for (size_t i = 0; i < flows.size(); ++i)
          check_path(f, fo, scenario, flows[i],
                     f.route_links(flows[i].src, flows[i].dst, (*routes)[i]), oracle[i]);
      }
      any_dead ? ++refused : ++routed;
      // Degraded (not down) links remove no next hop: ECMP routes as on the
      // healthy fabric, with the same hash.
      {
        FailureOverlay slower(f);
        for (const FailureOp& op : scenario.ops)
          if (op.kind == FailureOp::kCableFraction)
            slower.set_cable_fraction(LinkId{op.id}, op.fraction);
        auto healthy = routing::ecmp_paths(d, f, flows, crc);
        auto degraded = routing::ecmp_paths(d, f, flows, crc, {}, &slower);
        REQUIRE(healthy.ok());
        REQUIRE(degraded.ok());
        CHECK(*healthy == *degraded);
        // Every failure cleared: the overlay routes as no overlay at all.
        FailureOverlay cleared(f);
        apply(scenario, cleared);
        cleared.clear();
        auto restored = routing::ecmp_paths(d, f, flows, crc, {}, &cleared);
        REQUIRE(restored.ok());
        CHECK(*healthy == *restored);
        auto planned = routing::assign_paths(d, f, flows);
        auto replanned = routing::assign_paths(d, f, flows, &cleared);
        REQUIRE(planned.ok());
        REQUIRE(replanned.ok());
        CHECK(planned->routes == replanned->routes);
        CHECK(planned->load_ns == replanned->load_ns);
      }

      // Spraying plans, one connection per flow.
      for (size_t i = 0; i < flows.size(); ++i) {
        const int32_t qps = 1 + static_cast<int32_t>(rng() % 8);
        for (const routing::HashModel* model : {static_cast<const routing::HashModel*>(&crc),
                                                static_cast<const routing::HashModel*>(&uniform)}) {
          auto plan = routing::plan_connection(d, f, flows[i].src, flows[i].dst, qps, *model, &fo);
          if (dead[i]) {
            REQUIRE_FALSE(plan.ok());
            const std::string msg(plan.status().message());
            CAPTURE(msg);
            CHECK(plan.status().code() == absl::StatusCode::kUnavailable);
            CHECK(contains(msg, port_text(flows[i].src)));
            CHECK(contains(msg, port_text(flows[i].dst)));
            ++plans_refused;
            continue;
          }
          REQUIRE_MESSAGE(plan.ok(), std::string(plan.status().message()));
          ++plans;
          // The plan lists exactly the working paths, each weighted by its
          // bottleneck's remaining capacity.
          std::vector<LinkList> listed;
          double weights = 0;
          for (const routing::SprayPath& sp : plan->paths) {
            const topology::Path links = f.route_links(flows[i].src, flows[i].dst, sp.route);
            check_path(f, fo, scenario, flows[i], links, oracle[i]);
            LinkList ids;
            double bottleneck = std::numeric_limits<double>::infinity();
            for (LinkId l : links.view()) {
              ids.push_back(l.value());
              bottleneck = std::min(bottleneck, fo.capacity_gbps(l));
            }
            listed.push_back(ids);
            CHECK(sp.bottleneck_gbps == doctest::Approx(bottleneck).epsilon(1e-6));
            weights += sp.weight;
          }
          std::sort(listed.begin(), listed.end());
          CHECK(listed == oracle[i]);
          CHECK(weights == doctest::Approx(1.0).epsilon(1e-9));
          REQUIRE(plan->qp.size() == static_cast<size_t>(qps));
          std::set<uint16_t> sports;
          for (const routing::QpRoute& q : plan->qp) {
            sports.insert(q.sport);
            CHECK(q.sport >= routing::kSportBase);
            if (!plan->steered) continue;
            REQUIRE(q.path >= 0);
            REQUIRE(static_cast<size_t>(q.path) < plan->paths.size());
            CHECK(q.uplink == plan->paths[static_cast<size_t>(q.path)].route.src_leaf_uplink);
          }
          CHECK(sports.size() == static_cast<size_t>(qps));
        }
      }
    }
  }
  INFO("steps routed ", routed, ", refused ", refused, "; spray plans ", plans, ", refused ",
       plans_refused);
  // Coverage: every fabric kind, every tier count (1, 2, 3), both plane counts,
  // and both outcomes of each call.
  CHECK(kinds.size() == 3);
  CHECK(tiers.size() == 3);
  CHECK(planes.size() == 2);
  CHECK(routed > 100);
  CHECK(refused > 10);
  CHECK(plans > 300);
  CHECK(plans_refused > 10);
}

namespace {

using Groups = std::vector<std::vector<routing::GpuEndpoint>>;

// What the collective must put on the fabric, from its transfers alone.
struct Expected {
  std::vector<double> sent;      // per GPU node
  std::vector<double> received;  // per GPU node
  // Transfers that cannot be delivered: their network ports and their down
  // host-side links (PCIe, NVLink).
  std::set<std::pair<std::string, std::string>> dead_pairs;
  std::set<int32_t> dead_links;
  bool must_fail() const { return !dead_pairs.empty() || !dead_links.empty(); }
};

Expected expected_traffic(const topology::Cluster& c, const Groups& groups,
                          collective::Collective kind, int64_t bytes,
                          const sim::CollectiveSimOptions& o, const FailureOverlay& fo) {
  const auto& d = c.descriptor;
  const Fabric& f = c.fabric;
  Expected e;
  e.sent.assign(static_cast<size_t>(f.node_count()), 0.0);
  e.received.assign(static_cast<size_t>(f.node_count()), 0.0);
  std::map<std::pair<int32_t, int32_t>, bool> reachable;  // by NIC port nodes
  for (const auto& group : groups) {
    std::vector<int32_t> host_of_rank;
    for (const routing::GpuEndpoint& g : group) host_of_rank.push_back(g.host.value());
    collective::TrafficOptions to;
    to.host_of_rank = host_of_rank;
    to.channels = o.channels;
    to.nics_per_host = d.nics_per_host();
    to.tree_pieces = o.tree_pieces;
    auto t = collective::collective_traffic(kind, o.algorithm, static_cast<int32_t>(group.size()),
                                            bytes, to);
    REQUIRE(t.ok());
    for (const collective::Phase& ph : t->phases)
      for (const collective::PhaseTransfer& x : ph.transfers) {
        if (x.bytes <= 0) continue;
        const routing::GpuEndpoint a = group[static_cast<size_t>(x.src)];
        const routing::GpuEndpoint b = group[static_cast<size_t>(x.dst)];
        const double total = x.bytes * static_cast<double>(ph.repeat);
        e.sent[static_cast<size_t>(f.gpu(a.host, a.gpu).value())] += total;
        e.received[static_cast<size_t>(f.gpu(b.host, b.gpu).value())] += total;
        for (int32_t p = 0; p < d.planes(); ++p) {
          routing::GpuPathOptions po;
          po.plane = PlaneId{p};
          po.forward_over_nvlink = o.pxn;
          const routing::NetworkCrossing xc = routing::network_crossing(d, f, a, b, po);
          for (LinkId l : xc.prefix)
            if (fo.is_down(l)) e.dead_links.insert(l.value());
          if (!xc.network) break;  // NVLink only, whatever the planes
          if (fo.is_down(xc.last)) e.dead_links.insert(xc.last.value());
          const NodeId src = f.nic_port(xc.src);
          const NodeId dst = f.nic_port(xc.dst);
          auto [it, fresh] = reachable.try_emplace({src.value(), dst.value()}, false);
          if (fresh) it->second = !testing::brute_force_paths(f, src, dst, &fo).empty();
          if (!it->second) e.dead_pairs.insert({port_text(xc.src), port_text(xc.dst)});
        }
      }
  }
  return e;
}

}  // namespace

TEST_CASE("random_fabric: simulate_collective under failures conserves bytes and meets its bound") {
  std::mt19937 rng(77);
  // 100 fabrics, a quarter under the sanitizers (tests/support/budget.hpp).
  const int total = testing::cases(100);
  const auto specs = testing::random_valid_specs(total, 31337, 16);
  int simulated = 0, refused = 0;
  for (const topology::ClusterSpec& spec : specs) {
    auto desc = topology::make_descriptor(spec);
    REQUIRE(desc.ok());
    const topology::Cluster cluster{*desc, topology::materialize(*desc)};
    const auto& d = cluster.descriptor;
    const Fabric& f = cluster.fabric;
    const Parts parts = parts_of(f);
    // A random job: random hosts, every GPU, in random order; sometimes one
    // group per local GPU index.
    std::vector<int32_t> hosts(static_cast<size_t>(d.hosts()));
    for (int32_t h = 0; h < d.hosts(); ++h) hosts[static_cast<size_t>(h)] = h;
    std::shuffle(hosts.begin(), hosts.end(), rng);
    const auto used = 2 + rng() % static_cast<uint32_t>(std::max(1, d.hosts() - 1));
    Groups groups(1);
    for (uint32_t i = 0; i < std::min<uint32_t>(used, static_cast<uint32_t>(d.hosts())); ++i)
      for (int32_t k = 0; k < d.gpus_per_host(); ++k)
        groups[0].push_back({HostId{hosts[i]}, GpuIndex{k}});
    if (d.gpus_per_host() > 1 && rng() % 3 == 0) {
      Groups by_local(static_cast<size_t>(d.gpus_per_host()));
      for (const routing::GpuEndpoint& e : groups[0])
        by_local[static_cast<size_t>(e.gpu.value())].push_back(e);
      groups = by_local;
    }
    using collective::Algorithm;
    using collective::Collective;
    constexpr Collective kKinds[] = {Collective::kAllReduce, Collective::kAllGather,
                                     Collective::kReduceScatter, Collective::kAllToAll};
    const Collective kind = kKinds[rng() % 4];
    sim::CollectiveSimOptions o;
    o.algorithm = kind == Collective::kAllToAll
                      ? (rng() % 2 ? Algorithm::kPairwise : Algorithm::kRailAligned)
                      : (kind == Collective::kAllReduce && rng() % 2 ? Algorithm::kHierarchical
                                                                     : Algorithm::kRing);
    o.routing = static_cast<sim::Routing>(rng() % sim::kRoutingCount);
    o.qps = 1 + static_cast<int32_t>(rng() % 4);
    o.seed = rng();
    o.pxn = rng() % 4 != 0;
    const int64_t S = int64_t{1} << (12 + rng() % 16);
    const Scenario scenario = random_scenario(rng, parts, static_cast<int>(rng() % 3), true);
    FailureOverlay fo(f);
    apply(scenario, fo);
    o.failures = &fo;
    CAPTURE(topology::to_spec_string(spec));
    CAPTURE(collective::collective_name(kind));
    CAPTURE(collective::algorithm_name(o.algorithm));
    CAPTURE(sim::routing_name(o.routing));
    CAPTURE(o.qps);
    CAPTURE(o.pxn);
    CAPTURE(S);
    CAPTURE(scenario.ops.size());

    const Expected e = expected_traffic(cluster, groups, kind, S, o, fo);
    auto r = sim::simulate_collective(cluster, groups, kind, S, o);
    if (e.must_fail()) {
      ++refused;
      REQUIRE_FALSE(r.ok());
      const std::string msg(r.status().message());
      CAPTURE(msg);
      // Names a dead transfer: its two NIC ports, or a down link it must cross.
      const std::pair<std::string, std::string> ports{word_after(msg, "from "),
                                                      word_after(msg, " to ")};
      const int64_t link = number_after(msg, "crosses link ");
      CHECK((e.dead_pairs.contains(ports) ||
             (link >= 0 && e.dead_links.contains(static_cast<int32_t>(link)))));
      continue;
    }
    REQUIRE_MESSAGE(r.ok(), std::string(r.status().message()));
    ++simulated;
    REQUIRE(r->link_bytes.size() == static_cast<size_t>(f.link_count()));

    // Nothing crosses a down link; every node forwards what it receives, and
    // each GPU's surplus is what it sends minus what it receives.
    std::vector<double> out(static_cast<size_t>(f.node_count()), 0.0);
    std::vector<double> in(static_cast<size_t>(f.node_count()), 0.0);
    double total = 0, on_down = 0;
    for (int32_t l = 0; l < f.link_count(); ++l) {
      const double b = r->link_bytes[static_cast<size_t>(l)];
      CHECK(b >= 0);
      if (fo.is_down(LinkId{l})) on_down += b;
      out[static_cast<size_t>(f.src(LinkId{l}).value())] += b;
      in[static_cast<size_t>(f.dst(LinkId{l}).value())] += b;
      total += b;
    }
    CHECK(on_down == 0);
    const double tol = 1e-9 * std::max(1.0, total);
    int32_t worst_node = -1;
    double worst = 0;
    for (int32_t n = 0; n < f.node_count(); ++n) {
      const auto k = static_cast<size_t>(n);
      const double want = f.kind(NodeId{n}) == NodeKind::kGpu ? e.sent[k] - e.received[k] : 0.0;
      const double err = std::abs((out[k] - in[k]) - want);
      if (err > worst) {
        worst = err;
        worst_node = n;
      }
    }
    CHECK_MESSAGE(worst <= tol, "node ", worst_node, " (",
                  f.node_name(NodeId{std::max(worst_node, 0)}), ") is off by ", worst, " bytes");

    // The bound: time at least the bound's, so busbw at most the bound's rate.
    CHECK(r->time_us >= r->lower_bound_us * (1 - 1e-9));
    const int32_t n = static_cast<int32_t>(groups[0].size());
    const double bound_busbw =
        collective::busbw_gbps(kind, n, collective::algbw_gbps(S, r->lower_bound_us));
    if (r->lower_bound_us > 0) CHECK(r->busbw_gbps <= bound_busbw * (1 + 1e-9));
    CHECK(std::isfinite(r->lower_bound_us));
    CHECK(r->analytic_us <= r->time_us * (1 + 1e-9));
    CHECK(r->max_link_utilization <= 1 + 1e-9);
    // Failures only take capacity away: the bound cannot drop below the healthy one.
    auto healthy = collective::bandwidth_lower_bound(cluster, kind, S, groups);
    REQUIRE(healthy.ok());
    CHECK(r->lower_bound_us >= healthy->time_us * (1 - 1e-12));

    // Same input (a fresh overlay built from the same scenario), same output.
    FailureOverlay again_fo(f);
    apply(scenario, again_fo);
    sim::CollectiveSimOptions again_o = o;
    again_o.failures = &again_fo;
    auto again = sim::simulate_collective(cluster, groups, kind, S, again_o);
    REQUIRE(again.ok());
    CHECK(again->time_us == r->time_us);
    CHECK(again->analytic_us == r->analytic_us);
    CHECK(again->lower_bound_reason == r->lower_bound_reason);
    CHECK(again->link_bytes == r->link_bytes);
    CHECK(again->max_link == r->max_link);
  }
  INFO("simulated ", simulated, ", refused ", refused);
  CHECK(simulated > total * 3 / 10);
  CHECK(refused > total / 20);
}

}  // namespace railyard_test_hardening_random_fabric_test
