// railyard/routing/assign.hpp — a whole-collective path assignment: every flow of
// one schedule step gets a path so that the most loaded link is as light as it
// can be made, compared with what ECMP hashing does to the same flows.
//
//   auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
//   const auto& desc = cluster->descriptor;
//   const auto& fabric = cluster->fabric;
//   using railyard::NicPort; using railyard::HostId; using railyard::NicIndex;
//   std::vector<railyard::routing::Flow> step = {
//       {NicPort{HostId{0}, NicIndex{0}}, NicPort{HostId{40}, NicIndex{0}}, 64e6},
//       {NicPort{HostId{1}, NicIndex{0}}, NicPort{HostId{41}, NicIndex{0}}, 64e6}};
//   auto plan = railyard::routing::assign_paths(desc, fabric, step);   // StatusOr<PathPlan>
//   // plan->routes[i]: the Route of flow i; fabric.route_links(src, dst, route) its links
//   railyard::routing::UniformRandomHash hash(7);                      // routing/hash.hpp
//   auto report = railyard::routing::compare_with_ecmp(desc, fabric, step, hash);
//   // report->max_load_planned_ns <= report->max_load_ecmp_ns
//
// Load. A link's load is the time it needs to carry its bytes: the sum over the
// flows routed through it of bytes * 8 / capacity_gbps, in ns (Gb/s = bit/ns).
// Capacities come from the FailureOverlay when one is given (a degraded link is
// slower); a link the overlay marks down is never used. Host-NIC links carry the
// same flows on every route, so they set a floor no assignment can go below.
//
// assign_paths (deterministic: same input, same routes):
//   1. Greedy (LPT): flows by bytes, largest first (ties: lowest index), each onto
//      the route whose most loaded link after adding it is lightest (ties: the
//      smaller sum of those loads, then the first route in for_each_route order).
//      The best route is found without listing every route: for a route through
//      spine index s (and core group s) the leaf and core parts are independent,
//      so each is minimized separately — O(U * parallel + S * Us) per flow.
//   2. Local improvement while the most loaded network link L (at load M, ties:
//      lowest link id) is above the host floor: move one flow of L to its best
//      other route if every link of that route stays below M; failing that, an
//      ejection chain — move a flow of L onto a route whose only link reaching M
//      is B, then move another flow off B the same way, up to chain_depth moves
//      (a Kempe-chain search; each link is tried once per chain). Every accepted
//      step lowers (M, number of links at M) lexicographically, so it ends.
//   3. When the product of the flows' route counts is at most
//      AssignOptions::exact_search_limit, a depth-first branch and bound over all
//      route combinations (largest flows first, the step-2 result as the first
//      bound) proves the optimum: PathPlan::exact is then true and max_load_ns is
//      the least possible maximum link load.
// The heuristic (steps 1-2) is not always optimal: max-load path assignment is
// NP-hard in general (it contains makespan scheduling). tests/routing/assign_test.cpp
// compares both steps with an independent exhaustive search.
//
// ECMP (ecmp_paths): one QP per flow, whose 5-tuple (rocev2_tuple with the
// flow's source port and destination QP) meets up to four hashing decisions.
// Candidate index -> Route field, without failures:
//   kSrcLeafUp  at the source leaf, U candidates: index = leaf uplink ordinal j
//               -> Route::src_leaf_uplink.
//   kSrcSpineUp (other pod) at spine_above(src leaf, j), Us candidates: index =
//               spine uplink ordinal k -> Route::src_spine_uplink.
//   kCoreDown   at the core that k reaches: the parallel cables from that core to
//               the destination pod's spine of the same index, ordered by that
//               spine's uplink ordinal kb; index i -> the i-th such kb ->
//               Route::dst_spine_uplink (no decision when there is one cable).
//   kSpineDown  at the destination-side spine: the parallel cables to the
//               destination leaf, ordered by the destination leaf's uplink
//               ordinal jb; index i -> the i-th such jb -> Route::dst_leaf_uplink.
// With a FailureOverlay each decision chooses only among next hops that still
// reach the destination over working links (as routing withdraws dead next
// hops), in the same order; the candidate count shrinks accordingly.
#pragma once

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/routing/flow.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::routing {

using topology::Route;

// One transfer of a schedule step between two NIC ports of one plane.
struct Flow {
  NicPort src;
  NicPort dst;
  double bytes = 0;
  friend bool operator==(const Flow&, const Flow&) = default;
};

// Time in ns to carry `bytes` over a link of `gbps` (1 Gb/s = 1 bit/ns).
[[nodiscard]] constexpr double drain_ns(double bytes, double gbps) { return bytes * 8.0 / gbps; }

struct AssignOptions {
  // Exhaustive search when the product of the flows' route counts (path_count)
  // is at most this; 0 turns it off (heuristic only).
  int64_t exact_search_limit = int64_t{1} << 18;
  // Improvement steps at most; -1: 8 * flows + 64.
  int64_t max_moves = -1;
  // Longest ejection chain (moves in one step); 0: single moves only.
  int32_t chain_depth = 6;
};

// An assignment of routes to the flows of one step.
struct PathPlan {
  std::vector<Route> routes;    // one per flow, in input order
  std::vector<double> load_ns;  // per directed link of the fabric
  double max_load_ns = 0;       // the most loaded link's load
  LinkId max_link;              // that link (lowest id among ties; invalid with no flows)
  bool exact = false;           // max_load_ns proven optimal by exhaustive search
  int64_t moves = 0;            // improvement steps taken after the greedy start
};

// How ecmp_paths() builds each flow's 5-tuple. Each span is empty or has one
// entry per flow. Defaults: flow i has source port kSportBase + (i mod 16384)
// and destination QP 0x100 + i (as consecutive QPs would).
struct EcmpOptions {
  std::span<const uint16_t> sports;
  std::span<const uint32_t> dst_qps;
};

[[nodiscard]] constexpr uint16_t default_sport(size_t flow_index) {
  return static_cast<uint16_t>(kSportBase + flow_index % kSportCount);
}
[[nodiscard]] constexpr uint32_t default_dst_qp(size_t flow_index) {
  return static_cast<uint32_t>((0x100 + flow_index) & 0xFFFFFFu);
}

// Per-link load of one tier under both routings.
struct TierLoad {
  topology::LinkTier tier = topology::LinkTier::kHostLeaf;
  double max_planned_ns = 0;
  double max_ecmp_ns = 0;
  int32_t links_used_planned = 0;  // links of the tier carrying any bytes
  int32_t links_used_ecmp = 0;
};
struct LinkLoad {
  LinkId link;
  topology::LinkTier tier = topology::LinkTier::kHostLeaf;
  double planned_ns = 0;
  double ecmp_ns = 0;
};

// assign_paths() against ECMP on the same flows.
struct AssignReport {
  std::string hash_model;  // HashModel::name()
  double max_load_planned_ns = 0;
  double max_load_ecmp_ns = 0;
  double ecmp_over_planned = 1;  // max_load_ecmp_ns / max_load_planned_ns (1 when both 0)
  bool planned_exact = false;
  std::vector<TierLoad> tiers;  // the network tiers that carry traffic, bottom up
  std::vector<LinkLoad> links;  // every link loaded under either routing, ascending id
  PathPlan planned;
  std::vector<Route> ecmp;
};

namespace detail {

RAILYARD_LAZY
[[nodiscard]] bool network_tier(topology::LinkTier t) {
  return t == topology::LinkTier::kLeafSpine || t == topology::LinkTier::kSpineCore;
}

RAILYARD_LAZY
[[nodiscard]] std::string port_text(NicPort p) {
  return str_cat("host", p.host.value(), ".nic", p.nic.value(), ".p", p.plane.value());
}

RAILYARD_LAZY
[[nodiscard]] bool port_exists(const topology::ClusterDescriptor<>& d, NicPort p) {
  return p.host.value() >= 0 && p.host.value() < d.hosts() && p.nic.value() >= 0 &&
         p.nic.value() < d.nics_per_host() && p.plane.value() >= 0 && p.plane.value() < d.planes();
}

// The boundary check shared by assign_paths and ecmp_paths: the fabric belongs
// to the descriptor, every flow names existing, distinct ports joined by a path,
// and carries a finite, non-negative byte count.
RAILYARD_LAZY
[[nodiscard]] Status check_flows(const topology::ClusterDescriptor<>& d,
                                       const topology::Fabric& fabric, std::span<const Flow> flows,
                                       const topology::FailureOverlay* failures) {
  if (!fabric.has_descriptor())
    return invalid_argument_error("fabric: not materialized from a cluster descriptor");
  if (!(fabric.descriptor().spec() == d.spec()))
    return invalid_argument_error(
        "fabric: materialized from a different cluster than the descriptor");
  if (failures != nullptr && &failures->fabric() != &fabric)
    return invalid_argument_error("failures: an overlay of another fabric");
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    auto bad = [&](std::string_view what) {
      return invalid_argument_error(str_cat("flow ", i, ": ", what));
    };
    if (!port_exists(d, f.src)) return bad(str_cat("src=", port_text(f.src), ": no such NIC port"));
    if (!port_exists(d, f.dst)) return bad(str_cat("dst=", port_text(f.dst), ": no such NIC port"));
    if (!(f.bytes >= 0) || !std::isfinite(f.bytes))
      return bad(str_cat("bytes=", f.bytes, ": must be finite and non-negative"));
    if (d.path_count(f.src, f.dst) == 0)
      return bad(str_cat("src=", port_text(f.src), " dst=", port_text(f.dst),
                         ": no network path (same port, different planes or rails)"));
  }
  return ok_status();
}

// Route search and incremental loads over one fabric. Works on the fabric's own
// (dynamic) descriptor so that the algorithm is compiled once.
class Planner {
 public:
  struct Scored {
    Route route;
    double peak = std::numeric_limits<double>::infinity();  // most loaded network link after
    double sum = std::numeric_limits<double>::infinity();   // sum of network loads after
    bool found = false;
  };

  Planner(const topology::Fabric& fabric, std::span<const Flow> flows,
          const topology::FailureOverlay* failures)
      : f_(fabric),
        d_(fabric.descriptor()),
        fail_(failures),
        flows_(flows),
        la_(flows.size()),
        lb_(flows.size()),
        route_(flows.size()),
        path_(flows.size()),
        placed_(flows.size(), 0),
        load_(static_cast<size_t>(fabric.link_count()), 0.0),
        on_link_(static_cast<size_t>(fabric.link_count())),
        in_set_(static_cast<size_t>(fabric.link_count()), 0) {
    for (size_t i = 0; i < flows.size(); ++i) {
      la_[i] = d_.leaf_of(flows[i].src);
      lb_[i] = d_.leaf_of(flows[i].dst);
    }
  }

  [[nodiscard]] double capacity(LinkId l) const {
    return fail_ != nullptr ? fail_->capacity_gbps(l) : f_.capacity_gbps(l);
  }
  [[nodiscard]] bool usable(LinkId l) const { return fail_ == nullptr || !fail_->is_down(l); }
  [[nodiscard]] double added(size_t i, LinkId l) const {
    return drain_ns(flows_[i].bytes, capacity(l));
  }
  [[nodiscard]] double load(LinkId l) const { return load_[static_cast<size_t>(l.value())]; }
  [[nodiscard]] const Route& route(size_t i) const { return route_[i]; }
  [[nodiscard]] const topology::Path& path(size_t i) const { return path_[i]; }
  [[nodiscard]] size_t size() const { return flows_.size(); }
  [[nodiscard]] topology::LinkTier fabric_tier(LinkId l) const { return f_.tier(l); }

  // The route's links, or nullopt when one is down.
  [[nodiscard]] std::optional<topology::Path> usable_links(size_t i, const Route& r) const {
    topology::Path p = f_.route_links(flows_[i].src, flows_[i].dst, r);
    for (LinkId l : p.view())
      if (!usable(l)) return std::nullopt;
    return p;
  }

  void place(size_t i, const Route& r) {
    assert(!placed_[i]);
    route_[i] = r;
    path_[i] = f_.route_links(flows_[i].src, flows_[i].dst, r);
    placed_[i] = 1;
    for (LinkId l : path_[i].view()) {
      bump(l, added(i, l));
      if (network_tier(f_.tier(l))) on_link_[idx(l)].push_back(static_cast<int32_t>(i));
    }
  }
  void unplace(size_t i) {
    assert(placed_[i]);
    placed_[i] = 0;
    for (LinkId l : path_[i].view()) {
      bump(l, -added(i, l));
      if (network_tier(f_.tier(l))) {
        auto& v = on_link_[idx(l)];
        v.erase(std::find(v.begin(), v.end(), static_cast<int32_t>(i)));
      }
    }
  }

  // The most loaded network link (ties: lowest id), or nullopt when none is loaded.
  [[nodiscard]] std::optional<std::pair<LinkId, double>> top() const {
    if (heavy_.empty()) return std::nullopt;
    return std::pair{LinkId{heavy_.begin()->second}, -heavy_.begin()->first};
  }
  [[nodiscard]] double host_floor() const {
    double m = 0;
    for (size_t i = 0; i < flows_.size(); ++i)
      for (LinkId l : path_[i].view())
        if (!network_tier(f_.tier(l))) m = std::max(m, load(l));
    return m;
  }
  // Flows on a network link, largest first (ties: lowest index).
  [[nodiscard]] std::vector<int32_t> flows_on(LinkId l) const {
    std::vector<int32_t> v = on_link_[idx(l)];
    std::sort(v.begin(), v.end(), [&](int32_t a, int32_t b) {
      const double ba = flows_[static_cast<size_t>(a)].bytes;
      const double bb = flows_[static_cast<size_t>(b)].bytes;
      return ba != bb ? ba > bb : a < b;
    });
    return v;
  }

  // The best route for flow i (which must not be placed) against current loads.
  [[nodiscard]] Scored best_route(size_t i) {
    Scored best;
    const SwitchIndex la = la_[i];
    const SwitchIndex lb = lb_[i];
    if (la == lb) {
      best.route = Route{};
      best.found = usable_links(i, best.route).has_value();
      best.peak = best.sum = 0;
      return best;
    }
    if (!usable(f_.host_uplink(flows_[i].src)) ||
        !usable(topology::Fabric::reverse(f_.host_uplink(flows_[i].dst))))
      return best;
    const topology::ClosShape& c = d_.shape();
    const int32_t up = c.leaf_up_ports;
    const int32_t spines = c.spines_per_pod;
    const bool cross = d_.pod_of_leaf(la) != d_.pod_of_leaf(lb);
    if (cross) core_parts(i, la, lb);
    const int64_t ob = int64_t{d_.leaf_index_in_pod(lb)} * up;
    for (int32_t j = 0; j < up; ++j) {
      const LinkId ul = f_.leaf_uplink(la, j);
      if (!usable(ul)) continue;
      const int32_t s = d_.spine_of_uplink(la, j);
      if (cross && !core_[static_cast<size_t>(s)].found) continue;
      const double nu = load(ul) + added(i, ul);
      for (auto jb = static_cast<int32_t>(positive_mod(s - ob, spines)); jb < up;
           jb += spines) {
        const LinkId dl = topology::Fabric::reverse(f_.leaf_uplink(lb, jb));
        if (!usable(dl)) continue;
        const double nd = load(dl) + added(i, dl);
        double peak = std::max(nu, nd);
        double sum = nu + nd;
        Route r{2, j, jb, -1, -1};
        if (cross) {
          const Scored& cp = core_[static_cast<size_t>(s)];
          peak = std::max(peak, cp.peak);
          sum += cp.sum;
          r = Route{3, j, jb, cp.route.src_spine_uplink, cp.route.dst_spine_uplink};
        }
        if (better(peak, sum, best)) best = Scored{r, peak, sum, true};
      }
    }
    return best;
  }

  // Calls fn(route, links) for every usable route of flow i (for_each_route order).
  template <class Fn>
  void for_each_usable_route(size_t i, Fn&& fn) const {
    d_.for_each_route(flows_[i].src, flows_[i].dst, [&](const Route& r) {
      if (auto p = usable_links(i, r)) fn(r, *p);
    });
  }

  [[nodiscard]] static bool better(double peak, double sum, const Scored& than) {
    if (!than.found) return true;
    const double tol = 1e-9 * std::max(1.0, std::abs(than.peak));
    if (peak < than.peak - tol) return true;
    if (peak > than.peak + tol) return false;
    return sum < than.sum - 1e-9 * std::max(1.0, std::abs(than.sum));
  }

 private:
  static size_t idx(LinkId l) { return static_cast<size_t>(l.value()); }

  void bump(LinkId l, double delta) {
    const size_t k = idx(l);
    const bool net = network_tier(f_.tier(l));
    if (net && in_set_[k]) heavy_.erase({-load_[k], l.value()});
    load_[k] += delta;
    if (std::abs(load_[k]) < 1e-12) load_[k] = 0;
    in_set_[k] = 0;
    if (net && load_[k] > 0) {
      heavy_.insert({-load_[k], l.value()});
      in_set_[k] = 1;
    }
  }

  // For every spine index s: the best spine->core->spine part between the pods
  // of la and lb through core group s (each core's up and down cables chosen
  // separately: they are independent given the core).
  void core_parts(size_t i, SwitchIndex la, SwitchIndex lb) {
    const topology::ClosShape& c = d_.shape();
    const int32_t groups = c.cores_per_group;
    core_.assign(static_cast<size_t>(c.spines_per_pod), Scored{});
    std::vector<Scored>& ups = scratch_up_;
    std::vector<Scored>& downs = scratch_down_;
    for (int32_t s = 0; s < c.spines_per_pod; ++s) {
      const SwitchIndex sa =
          d_.spine_index(d_.plane_of_leaf(la), d_.partition_of_leaf(la), d_.pod_of_leaf(la), s);
      const SwitchIndex sb =
          d_.spine_index(d_.plane_of_leaf(lb), d_.partition_of_leaf(lb), d_.pod_of_leaf(lb), s);
      ups.assign(static_cast<size_t>(groups), Scored{});
      downs.assign(static_cast<size_t>(groups), Scored{});
      for (int32_t k = 0; k < c.spine_up_ports; ++k) {
        const LinkId l = f_.spine_uplink(sa, k);
        if (!usable(l)) continue;
        const auto g = static_cast<size_t>(d_.core_above(sa, k).value() % groups);
        const double v = load(l) + added(i, l);
        if (!ups[g].found || v < ups[g].peak) ups[g] = Scored{Route{3, -1, -1, k, -1}, v, v, true};
      }
      for (int32_t kb = 0; kb < c.spine_up_ports; ++kb) {
        const LinkId l = topology::Fabric::reverse(f_.spine_uplink(sb, kb));
        if (!usable(l)) continue;
        const auto g = static_cast<size_t>(d_.core_above(sb, kb).value() % groups);
        const double v = load(l) + added(i, l);
        if (!downs[g].found || v < downs[g].peak)
          downs[g] = Scored{Route{3, -1, -1, -1, kb}, v, v, true};
      }
      Scored& best = core_[static_cast<size_t>(s)];
      for (size_t g = 0; g < static_cast<size_t>(groups); ++g) {
        if (!ups[g].found || !downs[g].found) continue;
        const double peak = std::max(ups[g].peak, downs[g].peak);
        const double sum = ups[g].peak + downs[g].peak;
        if (better(peak, sum, best))
          best = Scored{
              Route{3, -1, -1, ups[g].route.src_spine_uplink, downs[g].route.dst_spine_uplink},
              peak, sum, true};
      }
    }
  }

  const topology::Fabric& f_;
  const topology::ClusterDescriptor<>& d_;
  const topology::FailureOverlay* fail_;
  std::span<const Flow> flows_;
  std::vector<SwitchIndex> la_, lb_;
  std::vector<Route> route_;
  std::vector<topology::Path> path_;
  std::vector<char> placed_;
  std::vector<double> load_;
  std::vector<std::vector<int32_t>> on_link_;   // network links only
  std::set<std::pair<double, int32_t>> heavy_;  // (-load, link) of loaded network links
  std::vector<char> in_set_;
  std::vector<Scored> core_, scratch_up_, scratch_down_;
};

RAILYARD_LAZY
Status no_route(const Flow& f, size_t i) {
  return failed_precondition_error(str_cat("flow ", i, ": every path from ", port_text(f.src),
                                               " to ", port_text(f.dst), " is down"));
}

// Step 2's ejection chain: make `link` (at or above `limit`) drop below it by
// moving one of its flows to a route that stays below `limit` except on at most
// one link, which is then fixed the same way. Moves are applied as the search
// goes and undone on failure.
class Ejector {
 public:
  Ejector(Planner& p, int32_t link_count)
      : p_(p), seen_(static_cast<size_t>(link_count), 0), in_chain_(p.size(), 0) {}

  bool run(LinkId link, double limit, int32_t depth) {
    ++epoch_;
    budget_ = 200000;
    seen_[static_cast<size_t>(link.value())] = epoch_;
    return fix(link, limit, depth);
  }

 private:
  struct Option {
    Route route;
    int32_t blockers = 0;
    LinkId blocker;
    double peak = 0;  // most loaded non-blocking link after
  };

  bool fix(LinkId link, double limit, int32_t depth) {
    const double tol = 1e-9 * std::max(1.0, limit);
    for (int32_t fi : p_.flows_on(link)) {
      const auto i = static_cast<size_t>(fi);
      if (in_chain_[i] || budget_ <= 0) continue;
      const Route old = p_.route(i);
      p_.unplace(i);
      if (p_.load(link) >= limit - tol) {  // this flow alone does not free the link
        p_.place(i, old);
        continue;
      }
      std::vector<Option> options;
      p_.for_each_usable_route(i, [&](const Route& r, const topology::Path& links) {
        if (r == old) return;
        --budget_;
        Option o{r, 0, LinkId{}, 0};
        for (LinkId l : links.view()) {
          if (!network_tier(p_.fabric_tier(l))) continue;
          const double v = p_.load(l) + p_.added(i, l);
          if (v >= limit - tol) {
            if (++o.blockers == 1) o.blocker = l;
          } else {
            o.peak = std::max(o.peak, v);
          }
        }
        if (o.blockers <= 1) options.push_back(o);
      });
      std::stable_sort(options.begin(), options.end(), [](const Option& a, const Option& b) {
        return a.blockers != b.blockers ? a.blockers < b.blockers : a.peak < b.peak;
      });
      in_chain_[i] = 1;
      for (const Option& o : options) {
        if (o.blockers == 0) {
          p_.place(i, o.route);
          in_chain_[i] = 0;
          return true;
        }
        if (depth <= 1) break;  // options are sorted: only blocked ones are left
        auto& mark = seen_[static_cast<size_t>(o.blocker.value())];
        if (mark == epoch_) continue;
        mark = epoch_;
        p_.place(i, o.route);
        if (fix(o.blocker, limit, depth - 1)) {
          in_chain_[i] = 0;
          return true;
        }
        p_.unplace(i);
      }
      in_chain_[i] = 0;
      p_.place(i, old);
    }
    return false;
  }

  Planner& p_;
  std::vector<int32_t> seen_;
  std::vector<char> in_chain_;
  int32_t epoch_ = 0;
  int64_t budget_ = 0;
};

}  // namespace detail

// Per-link loads (ns, per directed link) of flows on the given routes.
// Precondition: routes.size() == flows.size(), each route one of its flow's.
RAILYARD_LAZY
[[nodiscard]] std::vector<double> link_loads(
    const topology::Fabric& fabric, std::span<const Flow> flows, std::span<const Route> routes,
    const topology::FailureOverlay* failures = nullptr) {
  assert(routes.size() == flows.size());
  std::vector<double> load(static_cast<size_t>(fabric.link_count()), 0.0);
  for (size_t i = 0; i < flows.size(); ++i) {
    const topology::Path path = fabric.route_links(flows[i].src, flows[i].dst, routes[i]);
    for (LinkId l : path.view()) {
      const double cap = failures != nullptr ? failures->capacity_gbps(l) : fabric.capacity_gbps(l);
      load[static_cast<size_t>(l.value())] +=
          cap > 0 ? drain_ns(flows[i].bytes, cap) : std::numeric_limits<double>::infinity();
    }
  }
  return load;
}

// The most loaded link and its load (lowest id among ties; invalid id if all 0).
RAILYARD_LAZY
[[nodiscard]] std::pair<LinkId, double> max_load(std::span<const double> load_ns) {
  std::pair<LinkId, double> m{LinkId{}, 0.0};
  for (size_t l = 0; l < load_ns.size(); ++l)
    if (load_ns[l] > m.second) m = {LinkId{static_cast<int32_t>(l)}, load_ns[l]};
  return m;
}

namespace detail {

RAILYARD_LAZY
PathPlan finish_plan(const topology::Fabric& fabric, std::span<const Flow> flows,
                            std::vector<Route> routes, const topology::FailureOverlay* failures) {
  PathPlan plan;
  plan.routes = std::move(routes);
  plan.load_ns = link_loads(fabric, flows, plan.routes, failures);
  std::tie(plan.max_link, plan.max_load_ns) = max_load(plan.load_ns);
  return plan;
}

// Saturating product of the flows' route counts.
RAILYARD_LAZY
[[nodiscard]] int64_t route_combinations(const topology::ClusterDescriptor<>& d,
                                         std::span<const Flow> flows, int64_t cap) {
  int64_t product = 1;
  for (const Flow& f : flows) {
    const int64_t n = d.path_count(f.src, f.dst);
    if (n > 1 && product > cap / n) return cap + 1;
    product *= std::max<int64_t>(n, 1);
  }
  return product;
}

// Branch and bound over every combination of usable routes; `incumbent` is the
// best known plan (the search only accepts strictly lower maxima).
RAILYARD_LAZY
StatusOr<PathPlan> branch_and_bound(const topology::Fabric& fabric,
                                                 std::span<const Flow> flows,
                                                 const topology::FailureOverlay* failures,
                                                 const PathPlan* incumbent) {
  Planner p(fabric, flows, failures);
  const size_t n = flows.size();
  std::vector<std::vector<std::pair<Route, topology::Path>>> cand(n);
  for (size_t i = 0; i < n; ++i) {
    p.for_each_usable_route(
        i, [&](const Route& r, const topology::Path& links) { cand[i].emplace_back(r, links); });
    if (cand[i].empty()) return no_route(flows[i], i);
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return flows[a].bytes > flows[b].bytes; });
  auto added = [&](size_t i, LinkId l) { return p.added(i, l); };
  std::vector<double> load(static_cast<size_t>(fabric.link_count()), 0.0);
  // Host links are the same on every route: their maximum bounds the optimum below.
  double floor = 0;
  for (size_t i = 0; i < n; ++i)
    for (LinkId l : cand[i].front().second.view())
      if (!network_tier(fabric.tier(l))) {
        load[static_cast<size_t>(l.value())] += added(i, l);
        floor = std::max(floor, load[static_cast<size_t>(l.value())]);
      }
  std::vector<Route> current(n), best_routes;
  double best = std::numeric_limits<double>::infinity();
  if (incumbent != nullptr) {
    best = incumbent->max_load_ns;
    best_routes = incumbent->routes;
  }
  auto tol = [](double v) { return 1e-9 * std::max(1.0, v); };
  auto below_best = [&](double v) { return std::isinf(best) || v < best - tol(best); };
  bool done = false;
  auto dfs = [&](auto& self, size_t depth, double cur) -> void {
    if (done) return;
    if (depth == n) {
      if (below_best(cur)) {
        best = cur;
        best_routes = current;
        if (best <= floor + tol(floor)) done = true;  // cannot do better than the host links
      }
      return;
    }
    const size_t i = order[depth];
    // Try the routes in order of the peak they would create.
    std::vector<std::pair<double, size_t>> tries;
    tries.reserve(cand[i].size());
    for (size_t c = 0; c < cand[i].size(); ++c) {
      double peak = cur;
      for (LinkId l : cand[i][c].second.view())
        if (network_tier(fabric.tier(l)))
          peak = std::max(peak, load[static_cast<size_t>(l.value())] + added(i, l));
      if (below_best(peak)) tries.emplace_back(peak, c);
    }
    std::stable_sort(tries.begin(), tries.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto [peak, c] : tries) {
      if (!below_best(peak) || done) break;
      current[i] = cand[i][c].first;
      for (LinkId l : cand[i][c].second.view())
        if (network_tier(fabric.tier(l))) load[static_cast<size_t>(l.value())] += added(i, l);
      self(self, depth + 1, peak);
      for (LinkId l : cand[i][c].second.view())
        if (network_tier(fabric.tier(l))) load[static_cast<size_t>(l.value())] -= added(i, l);
    }
  };
  dfs(dfs, 0, floor);
  PathPlan plan = finish_plan(fabric, flows, std::move(best_routes), failures);
  plan.exact = true;
  if (incumbent != nullptr) plan.moves = incumbent->moves;
  return plan;
}

}  // namespace detail

// The exact optimum by exhaustive branch and bound. Fails (ResourceExhausted)
// when the product of the flows' route counts exceeds `max_combinations`, and
// on the same bad input as assign_paths(). Exponential: for small inputs.
RAILYARD_LAZY
[[nodiscard]] StatusOr<PathPlan> assign_paths_exact(
    const topology::ClusterDescriptor<>& desc, const topology::Fabric& fabric,
    std::span<const Flow> flows, const topology::FailureOverlay* failures = nullptr,
    int64_t max_combinations = int64_t{1} << 18) {
  RAILYARD_RETURN_IF_ERROR(detail::check_flows(desc, fabric, flows, failures));
  const int64_t combos = detail::route_combinations(desc, flows, max_combinations);
  if (combos > max_combinations)
    return resource_exhausted_error(str_cat("max_combinations=", max_combinations, ": the ",
                                                flows.size(),
                                                " flows have more route combinations than that"));
  return detail::branch_and_bound(fabric, flows, failures, nullptr);
}

// Routes for every flow minimizing the most loaded link (see the overview).
// Errors: a fabric not materialized from `desc`, an overlay of another fabric,
// a flow with a port that does not exist, equal or unconnected ports, bytes
// negative or not finite (InvalidArgument, naming the flow and value); a flow
// whose every path is down (FailedPrecondition).
// Complexity: greedy O(F log F + F * (U * parallel + S * Us)); each improvement
// step scans the flows of one link and their routes.
RAILYARD_LAZY
[[nodiscard]] StatusOr<PathPlan> assign_paths(
    const topology::ClusterDescriptor<>& desc, const topology::Fabric& fabric,
    std::span<const Flow> flows, const topology::FailureOverlay* failures = nullptr,
    AssignOptions options = {}) {
  RAILYARD_RETURN_IF_ERROR(detail::check_flows(desc, fabric, flows, failures));
  detail::Planner p(fabric, flows, failures);
  std::vector<size_t> order(flows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return flows[a].bytes > flows[b].bytes; });
  for (size_t i : order) {
    const detail::Planner::Scored s = p.best_route(i);
    if (!s.found) return detail::no_route(flows[i], i);
    p.place(i, s.route);
  }
  const double floor = p.host_floor();
  const int64_t budget =
      options.max_moves >= 0 ? options.max_moves : 8 * static_cast<int64_t>(flows.size()) + 64;
  int64_t moves = 0;
  detail::Ejector ejector(p, fabric.link_count());
  while (moves < budget) {
    const auto top = p.top();
    if (!top) break;
    const auto [link, m] = *top;
    const double tol = 1e-9 * std::max(1.0, m);
    if (m <= floor + tol) break;  // the host links already bound the maximum
    bool improved = false;
    for (int32_t fi : p.flows_on(link)) {
      const auto i = static_cast<size_t>(fi);
      const Route old = p.route(i);
      p.unplace(i);
      const detail::Planner::Scored s = p.best_route(i);
      if (s.found && s.peak < m - tol) {
        p.place(i, s.route);
        improved = true;
        break;
      }
      p.place(i, old);
    }
    if (!improved && options.chain_depth > 0) improved = ejector.run(link, m, options.chain_depth);
    if (!improved) break;
    ++moves;
  }
  std::vector<Route> routes(flows.size());
  for (size_t i = 0; i < flows.size(); ++i) routes[i] = p.route(i);
  PathPlan plan = detail::finish_plan(fabric, flows, std::move(routes), failures);
  plan.moves = moves;
  if (options.exact_search_limit > 0 &&
      detail::route_combinations(desc, flows, options.exact_search_limit) <=
          options.exact_search_limit)
    return detail::branch_and_bound(fabric, flows, failures, &plan);
  return plan;
}

namespace detail {

RAILYARD_LAZY
Status bad_pick(const HashModel& model, int32_t pick, int32_t candidates) {
  return internal_error(
      str_cat("hash model '", model.name(), "': picked ", pick, " of ", candidates, " candidates"));
}

}  // namespace detail

// The route each flow takes under ECMP hashing with one QP (see the overview
// for how candidate indices map to Route fields). Errors: those of
// assign_paths(); sports or dst_qps neither empty nor one per flow
// (InvalidArgument); a model picking outside [0, candidates) (Internal).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<Route>> ecmp_paths(
    const topology::ClusterDescriptor<>& desc, const topology::Fabric& fabric,
    std::span<const Flow> flows, const HashModel& model, EcmpOptions ids = {},
    const topology::FailureOverlay* failures = nullptr) {
  RAILYARD_RETURN_IF_ERROR(detail::check_flows(desc, fabric, flows, failures));
  if (!ids.sports.empty() && ids.sports.size() != flows.size())
    return invalid_argument_error(str_cat("sports: ", ids.sports.size(), " given for ",
                                              flows.size(), " flows (want 0 or one per flow)"));
  if (!ids.dst_qps.empty() && ids.dst_qps.size() != flows.size())
    return invalid_argument_error(str_cat("dst_qps: ", ids.dst_qps.size(), " given for ",
                                              flows.size(), " flows (want 0 or one per flow)"));
  const topology::ClusterDescriptor<>& d = fabric.descriptor();
  const topology::ClosShape& c = d.shape();
  std::vector<Route> routes(flows.size());
  std::vector<int32_t> options;
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& fl = flows[i];
    const FiveTuple t =
        rocev2_tuple(d, fl.src, fl.dst, ids.sports.empty() ? default_sport(i) : ids.sports[i],
                     ids.dst_qps.empty() ? default_dst_qp(i) : ids.dst_qps[i]);
    // Picks among `options` (non-empty) at a switch; a single option is no decision.
    auto choose = [&](HopKind kind, SwitchIndex sw) -> StatusOr<int32_t> {
      const auto n = static_cast<int32_t>(options.size());
      if (n == 1) return options[0];
      const int32_t k = model.pick(EcmpHop{kind, sw, n}, t);
      if (k < 0 || k >= n) return detail::bad_pick(model, k, n);
      return options[static_cast<size_t>(k)];
    };
    const SwitchIndex la = d.leaf_of(fl.src);
    const SwitchIndex lb = d.leaf_of(fl.dst);
    if (failures == nullptr) {
      if (la == lb) continue;  // Route{}
      const bool cross = d.pod_of_leaf(la) != d.pod_of_leaf(lb);
      Route r{static_cast<int8_t>(cross ? 3 : 2), -1, -1, -1, -1};
      options.clear();
      for (int32_t j = 0; j < c.leaf_up_ports; ++j) options.push_back(j);
      RAILYARD_ASSIGN_OR_RETURN(r.src_leaf_uplink, choose(HopKind::kSrcLeafUp, la));
      const int32_t s = d.spine_of_uplink(la, r.src_leaf_uplink);
      SwitchIndex down_spine = d.spine_above(la, r.src_leaf_uplink);
      if (cross) {
        const SwitchIndex sa = down_spine;
        options.clear();
        for (int32_t k = 0; k < c.spine_up_ports; ++k) options.push_back(k);
        RAILYARD_ASSIGN_OR_RETURN(r.src_spine_uplink, choose(HopKind::kSrcSpineUp, sa));
        const SwitchIndex core = d.core_above(sa, r.src_spine_uplink);
        down_spine =
            d.spine_index(d.plane_of_leaf(lb), d.partition_of_leaf(lb), d.pod_of_leaf(lb), s);
        options.clear();
        for (int32_t kb = 0; kb < c.spine_up_ports; ++kb)
          if (d.core_above(down_spine, kb) == core) options.push_back(kb);
        RAILYARD_ASSIGN_OR_RETURN(r.dst_spine_uplink, choose(HopKind::kCoreDown, core));
      }
      options.clear();
      const int64_t ob = int64_t{d.leaf_index_in_pod(lb)} * c.leaf_up_ports;
      for (auto jb = static_cast<int32_t>(positive_mod(s - ob, c.spines_per_pod));
           jb < c.leaf_up_ports; jb += c.spines_per_pod)
        options.push_back(jb);
      RAILYARD_ASSIGN_OR_RETURN(r.dst_leaf_uplink, choose(HopKind::kSpineDown, down_spine));
      routes[i] = r;
      continue;
    }
    // With failures: narrow the usable routes one decision at a time.
    std::vector<Route> alive;
    d.for_each_route(fl.src, fl.dst, [&](const Route& r) {
      const topology::Path path = fabric.route_links(fl.src, fl.dst, r);
      for (LinkId l : path.view())
        if (failures->is_down(l)) return;
      alive.push_back(r);
    });
    if (alive.empty()) return detail::no_route(fl, i);
    if (alive.front().top == 1) continue;
    auto narrow = [&](int32_t Route::*field, HopKind kind, SwitchIndex sw) -> Status {
      options.clear();
      for (const Route& r : alive) options.push_back(r.*field);
      std::sort(options.begin(), options.end());
      options.erase(std::unique(options.begin(), options.end()), options.end());
      RAILYARD_ASSIGN_OR_RETURN(const int32_t v, choose(kind, sw));
      std::erase_if(alive, [&](const Route& r) { return r.*field != v; });
      return ok_status();
    };
    RAILYARD_RETURN_IF_ERROR(narrow(&Route::src_leaf_uplink, HopKind::kSrcLeafUp, la));
    const SwitchIndex sa = d.spine_above(la, alive.front().src_leaf_uplink);
    SwitchIndex down_spine = sa;
    if (alive.front().top == 3) {
      RAILYARD_RETURN_IF_ERROR(narrow(&Route::src_spine_uplink, HopKind::kSrcSpineUp, sa));
      const SwitchIndex core = d.core_above(sa, alive.front().src_spine_uplink);
      down_spine = d.spine_index(d.plane_of_leaf(lb), d.partition_of_leaf(lb), d.pod_of_leaf(lb),
                                 sa.value() % c.spines_per_pod);
      RAILYARD_RETURN_IF_ERROR(narrow(&Route::dst_spine_uplink, HopKind::kCoreDown, core));
    }
    RAILYARD_RETURN_IF_ERROR(narrow(&Route::dst_leaf_uplink, HopKind::kSpineDown, down_spine));
    routes[i] = alive.front();
  }
  return routes;
}

// assign_paths() and ecmp_paths() on the same flows, with both maxima and the
// loads per tier and per link. Errors: those of the two.
RAILYARD_LAZY
[[nodiscard]] StatusOr<AssignReport> compare_with_ecmp(
    const topology::ClusterDescriptor<>& desc, const topology::Fabric& fabric,
    std::span<const Flow> flows, const HashModel& model,
    const topology::FailureOverlay* failures = nullptr, AssignOptions options = {},
    EcmpOptions ids = {}) {
  AssignReport rep;
  rep.hash_model = std::string(model.name());
  RAILYARD_ASSIGN_OR_RETURN(rep.planned, assign_paths(desc, fabric, flows, failures, options));
  RAILYARD_ASSIGN_OR_RETURN(rep.ecmp, ecmp_paths(desc, fabric, flows, model, ids, failures));
  const std::vector<double> ecmp_load = link_loads(fabric, flows, rep.ecmp, failures);
  rep.max_load_planned_ns = rep.planned.max_load_ns;
  rep.max_load_ecmp_ns = max_load(ecmp_load).second;
  rep.planned_exact = rep.planned.exact;
  rep.ecmp_over_planned =
      rep.max_load_planned_ns > 0 ? rep.max_load_ecmp_ns / rep.max_load_planned_ns : 1.0;
  std::vector<TierLoad> tiers(topology::kLinkTierCount);
  std::vector<char> seen(topology::kLinkTierCount, 0);
  for (size_t l = 0; l < ecmp_load.size(); ++l) {
    const double a = rep.planned.load_ns[l];
    const double b = ecmp_load[l];
    if (a <= 0 && b <= 0) continue;
    const LinkId id{static_cast<int32_t>(l)};
    const topology::LinkTier tier = fabric.tier(id);
    rep.links.push_back({id, tier, a, b});
    TierLoad& t = tiers[static_cast<size_t>(tier)];
    seen[static_cast<size_t>(tier)] = 1;
    t.tier = tier;
    t.max_planned_ns = std::max(t.max_planned_ns, a);
    t.max_ecmp_ns = std::max(t.max_ecmp_ns, b);
    t.links_used_planned += a > 0;
    t.links_used_ecmp += b > 0;
  }
  for (size_t k = 0; k < tiers.size(); ++k)
    if (seen[k]) rep.tiers.push_back(tiers[k]);
  return rep;
}

}  // namespace railyard::routing
