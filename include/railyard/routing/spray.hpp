// railyard/routing/spray.hpp — spraying plans: which paths a connection uses,
// which QP takes which path, and the RoCEv2 source port that puts it there.
//
//   #include "railyard/routing/hash.hpp"    // the hash models
//   using namespace railyard;
//   auto desc = *topology::make_descriptor(*topology::parse_cluster("h100-1024"));
//   topology::Fabric fabric = topology::materialize(desc);
//   routing::Crc5TupleHash crc(/*seed=*/7);
//   NicPort a{HostId{0}, NicIndex{0}}, b{HostId{40}, NicIndex{0}};
//   // or from text: NicPort b = *routing::parse_endpoint("dst", "40:0", desc);
//   railyard::StatusOr<routing::SprayPlan> plan =
//       routing::plan_connection(desc, fabric, a, b, /*qps=*/8, crc);
//   // plan->qp[i].sport: program it with mlx5dv_modify_qp_udp_sport, or set
//   // plan->qp[i].flow_label in the QP's GRH; 8 QPs on 8 different leaf uplinks.
//
//   topology::FailureOverlay down(fabric);
//   down.set_cable_down(fabric.leaf_uplink(desc.leaf_of(a), plan->qp[0].uplink));
//   auto next = routing::replan(*plan, desc, fabric, crc, down);   // next->changed_qps == 1
//
//   routing::SprayTable table({*plan, *next});     // ConnectionId{0}, ConnectionId{1}
//   uint16_t sport = table.source_port(routing::ConnectionId{1}, 3);  // 1-12 ns, never throws
//
// Model. Between two NIC ports a flow meets up to four ECMP decisions (flow.hpp):
// source-leaf uplink j, (3 tiers) source-spine uplink k, core down-cable kb,
// spine down-cable jb. Each decision picks among the switch's configured next
// hops; we assume resilient hashing, so a link failure does not move flows that
// do not cross it, and a plan keeps a QP off a down link by choosing its port,
// not by relying on the switch to rehash it. Port p gives a QP the route that
// the hash model's picks lead to, hop by hop.
//
// Plan (steerable model: Crc5TupleHash, QpAwareHash, MeasuredTableHash, ...):
//  * paths: every route whose links are all up, in for_each_route order (so
//    grouped by source-leaf uplink), weight = bottleneck remaining capacity,
//    normalized to sum 1 (equal on a healthy fabric).
//  * uplinks: k QPs are apportioned over the m usable source-leaf uplinks in
//    proportion to each uplink's capacity — min(its own remaining capacity, the
//    capacity of everything below it) — by largest remainder, ties broken in
//    rotation order (SprayOptions::rotation). Healthy: every uplink gets
//    floor(k/m) or ceil(k/m) QPs, and QP i goes to the (i mod m)-th uplink of
//    the rotation while counts last, so any prefix of the QPs is spread too.
//  * later decisions: a QP's port is accepted only if, at every later switch,
//    the chosen next hop stays within ceil(t * w / W) QPs, where t is the number
//    of this connection's QPs through that switch and w / W the next hop's
//    share of the switch's capacity: QPs through a spine spread over its
//    up-links, its parallel down-cables, and so on. (Relaxed, then dropped, only
//    when no port of the 14-bit space satisfies it; `unmet_targets` counts QPs
//    that missed their uplink, which needs a degenerate hash.)
//  * ports: distinct per QP, each searched over the 16,384 RoCEv2 source ports
//    with the QP's own tuple (destination QPN = base_dst_qpn + i, or the
//    numbers given to plan_connection_to_qpns, so QP-aware hashes are served
//    too), plus the GRH flow label that yields the port.
// Non-steerable model (UniformRandomHash): no port can be chosen for a path;
// QP i gets port 0xC000 + (sport_offset + i) mod 2^14, `qp[i].path` and
// `qp[i].uplink` are -1, and the plan states `expected_efficiency`.
//
// expected_efficiency: the synchronized-collective figure of docs/constants.md#ecmp for
// this connection's (m, k): m connections like this one leave the source leaf
// at once, each spreading its bytes evenly over its k QPs; efficiency =
// (n/m) / E[max uplink load], n = m. Random model: seeded Monte Carlo
// (ecmp_stats.hpp, 1 for m <= 1). Steerable model: 1 — every connection puts
// floor or ceil of its share on each uplink and connections with distinct
// rotations fill the uplinks exactly (up to rounding of capacity shares).
// expected_uplinks_hit = m(1 − (1 − 1/m)^k) under the random model, min(k, m)
// when steered.
//
// Hot path: SprayTable flattens many plans into two arrays; source_port() is a
// bounds check and two loads, allocation-free and noexcept.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/routing/ecmp_stats.hpp"
#include "railyard/routing/flow.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::routing {

// Most QPs one connection may spray over (UCCL, arXiv:2504.17307; docs/constants.md#ecmp).
inline constexpr int32_t kMaxQpsPerConnection = 256;
// What SprayTable returns for an unknown connection or QP: not a RoCEv2 source
// port (those are >= 0xC000), meaning "keep the QP's default port".
inline constexpr uint16_t kNoSourcePort = 0;

struct SprayOptions {
  // QP i's destination QP number is base_dst_qpn + i (24 bits); hashed by
  // QP-aware models.
  uint32_t base_dst_qpn = 0x100;
  // First uplink in the tie order of the apportionment. -1: the source port's
  // position among its leaf's host ports, so that the NICs of one leaf start
  // on different uplinks.
  int32_t rotation = -1;
  // Start of the port search (steerable) or of the consecutive ports (random),
  // as an offset into the 14-bit space.
  uint16_t sport_offset = 0;
  // Monte Carlo trials for expected_efficiency; 0 = about 2^18 draws in total.
  int32_t efficiency_trials = 0;
  // The tuple the switches hash, for transports other than RoCEv2: the
  // protocol and destination port (TCP: 6 and the listener's port), and the
  // real IPv4 addresses (host byte order) where they are known; 0 keeps the
  // synthetic nic_ipv4 address. Source ports are searched in 0xC000..0xFFFF
  // whatever the transport (valid, unprivileged TCP ports too); a protocol
  // other than UDP hashes no destination QP number.
  uint8_t protocol = kUdpProtocol;
  uint16_t dst_port = kRoceV2Port;
  uint32_t src_ip = 0;
  uint32_t dst_ip = 0;
};

// One usable up/down path of a connection.
struct SprayPath {
  topology::Route route;
  double bottleneck_gbps = 0;  // least remaining capacity over its links
  double weight = 0;           // bottleneck_gbps / sum over paths; sums to 1
  int32_t qps = 0;             // QPs planned on it (0 under a random model)
};

// The paths of one source-leaf uplink: paths[first_path, first_path + path_count).
struct UplinkShare {
  int32_t uplink = -1;  // leaf uplink j; -1 for a same-leaf connection
  int32_t first_path = 0;
  int32_t path_count = 0;
  double capacity_gbps = 0;  // min(own remaining capacity, what lies below)
  int32_t qps = 0;           // QPs apportioned to it (0 under a random model)
};

// One QP of a connection.
struct QpRoute {
  int32_t path = -1;        // index into SprayPlan::paths; -1 when not steerable
  int32_t uplink = -1;      // its source-leaf uplink (-1: same leaf or not steerable)
  uint16_t sport = 0;       // RoCEv2 UDP source port, 0xC000..0xFFFF
  uint32_t flow_label = 0;  // GRH flow label giving sport (sport_from_flow_label)
  uint32_t dst_qpn = 0;     // destination QP number used in the hashed tuple
};

struct SprayPlan {
  NicPort src;
  NicPort dst;
  int32_t qps = 0;
  std::string model;     // HashModel::name()
  bool steered = false;  // the model was steerable: ports realize qp[].path
  SprayOptions options;  // rotation resolved
  std::vector<SprayPath> paths;
  std::vector<UplinkShare> uplinks;  // usable uplinks, ascending j
  std::vector<QpRoute> qp;           // one per QP
  int32_t max_qps_per_uplink = 0;    // steered: max over uplinks of UplinkShare::qps
  double expected_efficiency = 1.0;
  double expected_uplinks_hit = 1.0;
  int32_t unmet_targets = 0;     // QPs whose port could not reach their apportioned uplink
  int32_t changed_qps = 0;       // replan(): QPs whose path (and port) changed
  std::vector<int32_t> changed;  // replan(): their indices, ascending

  // Usable uplinks m.
  [[nodiscard]] int32_t usable_uplinks() const { return static_cast<int32_t>(uplinks.size()); }
};

// "host12.nic3.p0"
RAILYARD_LAZY
[[nodiscard]] std::string port_name(NicPort p) {
  return str_cat("host", p.host.value(), ".nic", p.nic.value(), ".p", p.plane.value());
}

// The ECMP decisions a flow on `route` from a to b meets, with the candidate
// each must pick. Candidates are numbered as the switch's next hops in
// ascending link id (flow.hpp): j, k, and the ranks of kb and jb among the
// parallel cables to the next switch. Hops with one candidate are left out.
struct EcmpDecision {
  EcmpHop hop;
  int32_t choice = 0;
};

namespace detail {

// Everything about one (src, dst) pair that planning needs, from the
// descriptor's closed forms rather than the graph: the next-hop sets at each
// decision, the remaining capacity of each link a path may use, the capacity of
// each subtree (min(link, sum of what lies below)), and how many of this
// connection's QPs cross each link (for the balance rule). Spines are named by
// their index x in the pod; cores by (x, group member y).
class SprayGeometry {
 public:
  SprayGeometry(const topology::ClusterDescriptor<>& d, const topology::Fabric& f,
                const topology::FailureOverlay* fo, NicPort a, NicPort b)
      : d_(&d) {
    using topology::Fabric;
    const topology::ClosShape& c = d.shape();
    la_ = d.leaf_of(a);
    lb_ = d.leaf_of(b);
    plane_ = d.plane_of_leaf(la_);
    part_ = d.partition_of_leaf(la_);
    pa_ = d.pod_of_leaf(la_);
    pb_ = d.pod_of_leaf(lb_);
    auto cap = [&](LinkId l) { return fo != nullptr ? fo->capacity_gbps(l) : f.capacity_gbps(l); };
    hosts_ = std::min(cap(f.host_uplink(a)), cap(Fabric::reverse(f.host_uplink(b))));
    if (la_ == lb_) return;
    top_ = pa_ == pb_ ? 2 : 3;
    U_ = c.leaf_up_ports;
    S_ = c.spines_per_pod;
    s_of_j_.resize(z(U_));
    leaf_up_.resize(z(U_));
    spine_down_.resize(z(U_));
    for (int32_t j = 0; j < U_; ++j) {
      s_of_j_[z(j)] = d.spine_of_uplink(la_, j);
      leaf_up_[z(j)] = cap(f.leaf_uplink(la_, j));
      spine_down_[z(j)] = cap(Fabric::reverse(f.leaf_uplink(lb_, j)));
    }
    // Spine x reaches b's leaf over the cables jb = first + t*S (for_each_route).
    const int64_t ob = int64_t{d.leaf_index_in_pod(lb_)} * U_;
    jb_first_.resize(z(S_));
    jb_count_.resize(z(S_));
    down_total_.assign(z(S_), 0.0);
    for (int32_t x = 0; x < S_; ++x) {
      const auto first = static_cast<int32_t>(positive_mod(x - ob, S_));
      jb_first_[z(x)] = first;
      jb_count_[z(x)] = first < U_ ? (U_ - first + S_ - 1) / S_ : 0;
      for (int32_t t = 0; t < jb_count_[z(x)]; ++t)
        down_total_[z(x)] += spine_down_[z(first + t * S_)];
    }
    std::vector<double> below = down_total_;  // capacity under spine x of a's pod
    if (top_ == 3) {
      Us_ = c.spine_up_ports;
      G_ = c.cores_per_group;
      g_of_k_.resize(z(Us_));
      for (int32_t k = 0; k < Us_; ++k)
        g_of_k_[z(k)] = static_cast<int32_t>((int64_t{pa_} * Us_ + k) % G_);
      // Core y of group x reaches b's spine x over the cables kb = first + t*G.
      kb_first_.resize(z(G_));
      kb_count_.resize(z(G_));
      for (int32_t y = 0; y < G_; ++y) {
        const auto first =
            static_cast<int32_t>(positive_mod(y - int64_t{pb_} * Us_, G_));
        kb_first_[z(y)] = first;
        kb_count_[z(y)] = first < Us_ ? (Us_ - first + G_ - 1) / G_ : 0;
      }
      spine_up_link_.assign(z(S_) * z(Us_), 0.0);
      core_down_link_.assign(z(S_) * z(Us_), 0.0);
      spine_up_.assign(z(S_) * z(Us_), 0.0);
      core_down_.assign(z(S_) * z(Us_), 0.0);
      core_total_.assign(z(S_) * z(G_), 0.0);
      spine_total_.assign(z(S_), 0.0);
      for (int32_t x = 0; x < S_; ++x) {
        const SwitchIndex sa = spine_a(x);
        const SwitchIndex sb = spine_b(x);
        for (int32_t kb = 0; kb < Us_; ++kb) {
          core_down_link_[sk(x, kb)] = cap(Fabric::reverse(f.spine_uplink(sb, kb)));
          core_down_[sk(x, kb)] = std::min(core_down_link_[sk(x, kb)], down_total_[z(x)]);
          const auto y = static_cast<int32_t>((int64_t{pb_} * Us_ + kb) % G_);
          core_total_[sg(x, y)] += core_down_[sk(x, kb)];
        }
        for (int32_t k = 0; k < Us_; ++k) {
          spine_up_link_[sk(x, k)] = cap(f.spine_uplink(sa, k));
          spine_up_[sk(x, k)] =
              std::min(spine_up_link_[sk(x, k)], core_total_[sg(x, g_of_k_[z(k)])]);
          spine_total_[z(x)] += spine_up_[sk(x, k)];
        }
        below[z(x)] = spine_total_[z(x)];
      }
    }
    uplink_cap_.resize(z(U_));
    for (int32_t j = 0; j < U_; ++j)
      uplink_cap_[z(j)] = std::min({leaf_up_[z(j)], below[z(s_of_j_[z(j)])], hosts_});
    n_dst_.assign(z(S_), 0);
    n_down_.assign(z(U_), 0);
    if (top_ == 3) {
      n_spine_.assign(z(S_), 0);
      n_spine_up_.assign(z(S_) * z(Us_), 0);
      n_core_.assign(z(S_) * z(G_), 0);
      n_core_down_.assign(z(S_) * z(Us_), 0);
    }
  }

  // 1: same leaf, 2: through a spine, 3: through a core.
  [[nodiscard]] int8_t top() const { return top_; }
  [[nodiscard]] int32_t leaf_uplinks() const { return U_; }
  // Capacity of uplink j (same leaf: of the host links).
  [[nodiscard]] double uplink_capacity(int32_t j) const {
    return top_ == 1 ? hosts_ : uplink_cap_[z(j)];
  }

  // Least remaining capacity over the route's links.
  [[nodiscard]] double bottleneck(const topology::Route& r) const {
    double m = hosts_;
    if (r.top >= 2)
      m = std::min({m, leaf_up_[z(r.src_leaf_uplink)], spine_down_[z(r.dst_leaf_uplink)]});
    if (r.top == 3) {
      const int32_t x = s_of_j_[z(r.src_leaf_uplink)];
      m = std::min({m, spine_up_link_[sk(x, r.src_spine_uplink)],
                    core_down_link_[sk(x, r.dst_spine_uplink)]});
    }
    return m;
  }

  // A dense number for every route of the pair (to map a route to its path).
  [[nodiscard]] size_t slot_count() const {
    if (top_ == 1) return 1;
    return z(U_) * z(U_) * (top_ == 3 ? z(Us_) * z(Us_) : 1);
  }
  [[nodiscard]] size_t slot(const topology::Route& r) const {
    if (top_ == 1) return 0;
    size_t v = z(r.src_leaf_uplink) * z(U_) + z(r.dst_leaf_uplink);
    if (top_ == 3) v = (v * z(Us_) + z(r.src_spine_uplink)) * z(Us_) + z(r.dst_spine_uplink);
    return v;
  }

  // The ECMP decisions of `r` (at most 4) written to out; returns how many.
  int decisions(const topology::Route& r, EcmpDecision* out) const {
    int n = 0;
    if (r.top < 2) return 0;
    const int32_t x = s_of_j_[z(r.src_leaf_uplink)];
    if (U_ > 1) out[n++] = {{HopKind::kSrcLeafUp, la_, U_}, r.src_leaf_uplink};
    if (r.top == 3) {
      if (Us_ > 1) out[n++] = {{HopKind::kSrcSpineUp, spine_a(x), Us_}, r.src_spine_uplink};
      const int32_t y = g_of_k_[z(r.src_spine_uplink)];
      if (kb_count_[z(y)] > 1)
        out[n++] = {{HopKind::kCoreDown, core(x, y), kb_count_[z(y)]},
                    (r.dst_spine_uplink - kb_first_[z(y)]) / G_};
    }
    if (jb_count_[z(x)] > 1)
      out[n++] = {{HopKind::kSpineDown, spine_b(x), jb_count_[z(x)]},
                  (r.dst_leaf_uplink - jb_first_[z(x)]) / S_};
    return n;
  }

  enum class Probe : uint8_t { kAccepted, kOtherUplink, kDownLink, kUnbalanced, kBadPick };

  // Follows the model's picks for tuple t and writes the route taken to r.
  // want_uplink >= 0 stops as soon as the leaf picks another uplink; balance
  // also requires every later next hop to stay within its share.
  Probe probe(const HashModel& m, const FiveTuple& t, int32_t want_uplink, bool balance,
              topology::Route& r) const {
    r = topology::Route{};
    if (top_ == 1) return Probe::kAccepted;
    const int32_t j = U_ > 1 ? m.pick({HopKind::kSrcLeafUp, la_, U_}, t) : 0;
    if (!in_range(j, U_)) return Probe::kBadPick;
    if (want_uplink >= 0 && j != want_uplink) return Probe::kOtherUplink;
    if (!(uplink_cap_[z(j)] > 0)) return Probe::kDownLink;
    const int32_t x = s_of_j_[z(j)];
    r = topology::Route{top_, j, -1, -1, -1};
    if (top_ == 3) {
      const int32_t k = Us_ > 1 ? m.pick({HopKind::kSrcSpineUp, spine_a(x), Us_}, t) : 0;
      if (!in_range(k, Us_)) return Probe::kBadPick;
      if (!(spine_up_[sk(x, k)] > 0)) return Probe::kDownLink;
      if (balance &&
          !fits(n_spine_up_[sk(x, k)], n_spine_[z(x)], spine_up_[sk(x, k)], spine_total_[z(x)]))
        return Probe::kUnbalanced;
      const int32_t y = g_of_k_[z(k)];
      const int32_t n = kb_count_[z(y)];
      const int32_t p = n > 1 ? m.pick({HopKind::kCoreDown, core(x, y), n}, t) : 0;
      if (!in_range(p, n)) return Probe::kBadPick;
      const int32_t kb = kb_first_[z(y)] + p * G_;
      if (!(core_down_[sk(x, kb)] > 0)) return Probe::kDownLink;
      if (balance && !fits(n_core_down_[sk(x, kb)], n_core_[sg(x, y)], core_down_[sk(x, kb)],
                           core_total_[sg(x, y)]))
        return Probe::kUnbalanced;
      r.src_spine_uplink = k;
      r.dst_spine_uplink = kb;
    }
    const int32_t n = jb_count_[z(x)];
    const int32_t p = n > 1 ? m.pick({HopKind::kSpineDown, spine_b(x), n}, t) : 0;
    if (!in_range(p, n)) return Probe::kBadPick;
    const int32_t jb = jb_first_[z(x)] + p * S_;
    if (!(spine_down_[z(jb)] > 0)) return Probe::kDownLink;
    if (balance && !fits(n_down_[z(jb)], n_dst_[z(x)], spine_down_[z(jb)], down_total_[z(x)]))
      return Probe::kUnbalanced;
    r.dst_leaf_uplink = jb;
    return Probe::kAccepted;
  }

  // Counts one QP on route r for the balance rule of later probes.
  void commit(const topology::Route& r) {
    if (r.top < 2) return;
    const int32_t x = s_of_j_[z(r.src_leaf_uplink)];
    if (r.top == 3) {
      ++n_spine_[z(x)];
      ++n_spine_up_[sk(x, r.src_spine_uplink)];
      ++n_core_[sg(x, g_of_k_[z(r.src_spine_uplink)])];
      ++n_core_down_[sk(x, r.dst_spine_uplink)];
    }
    ++n_dst_[z(x)];
    ++n_down_[z(r.dst_leaf_uplink)];
  }

 private:
  [[nodiscard]] static size_t z(int32_t i) { return static_cast<size_t>(i); }
  [[nodiscard]] static bool in_range(int32_t v, int32_t n) {
    return static_cast<uint32_t>(v) < static_cast<uint32_t>(n);
  }
  [[nodiscard]] size_t sk(int32_t x, int32_t k) const { return z(x) * z(Us_) + z(k); }
  [[nodiscard]] size_t sg(int32_t x, int32_t y) const { return z(x) * z(G_) + z(y); }
  [[nodiscard]] SwitchIndex spine_a(int32_t x) const {
    return d_->spine_index(plane_, part_, pa_, x);
  }
  [[nodiscard]] SwitchIndex spine_b(int32_t x) const {
    return d_->spine_index(plane_, part_, pb_, x);
  }
  [[nodiscard]] SwitchIndex core(int32_t x, int32_t y) const {
    return d_->core_index(plane_, part_, x, y);
  }
  // Whether a next hop with `count` of the switch's `total` QPs may take one
  // more: count + 1 <= ceil((total + 1) * w / W). Floor/ceil of the share at
  // every prefix, so healthy siblings never differ by more than one.
  [[nodiscard]] static bool fits(int32_t count, int32_t total, double w, double sum_w) {
    const double share = static_cast<double>(total + 1) * w / sum_w;
    return static_cast<double>(count + 1) <= std::ceil(share - 1e-9);
  }

  const topology::ClusterDescriptor<>* d_;
  SwitchIndex la_, lb_;
  int32_t plane_ = 0, part_ = 0, pa_ = 0, pb_ = 0;
  int8_t top_ = 1;
  int32_t U_ = 0, S_ = 0, Us_ = 0, G_ = 0;
  double hosts_ = 0;  // min of the two NIC links
  std::vector<int32_t> s_of_j_, jb_first_, jb_count_, g_of_k_, kb_first_, kb_count_;
  // Raw link capacities.
  std::vector<double> leaf_up_, spine_down_, spine_up_link_, core_down_link_;
  // Subtree capacities: down_total_[x] (spine x to b's leaf), core_down_[x, kb],
  // core_total_[x, y], spine_up_[x, k], spine_total_[x], uplink_cap_[j].
  std::vector<double> down_total_, core_down_, core_total_, spine_up_, spine_total_, uplink_cap_;
  // QPs through spine x down to b (n_dst_), over cable jb (n_down_), through
  // spine x of a's pod (n_spine_) and its uplink k, through core (x, y) and
  // its down-cable kb.
  std::vector<int32_t> n_dst_, n_down_, n_spine_, n_spine_up_, n_core_, n_core_down_;
};

RAILYARD_LAZY
Status check_port(const topology::ClusterDescriptor<>& d, std::string_view side,
                               NicPort p) {
  auto check = [&](std::string_view field, int32_t v, int32_t n) {
    if (v >= 0 && v < n) return ok_status();
    return invalid_field(str_cat(side, ".", field), str_cat(v),
                         str_cat("out of range [0, ", n, ")"));
  };
  RAILYARD_RETURN_IF_ERROR(check("host", p.host.value(), d.hosts()));
  RAILYARD_RETURN_IF_ERROR(check("nic", p.nic.value(), d.nics_per_host()));
  return check("plane", p.plane.value(), d.planes());
}

}  // namespace detail

// Default rotation: the source port's position among its leaf's host ports.
RAILYARD_LAZY
int32_t default_rotation(const topology::ClusterDescriptor<>& d, NicPort a) {
  const int32_t in_su = a.host.value() % d.hosts_per_su();
  if (d.kind() == topology::Kind::kTorFatTree) {
    const int32_t per_leaf = std::max(d.shape().hosts_per_leaf, 1);
    return (in_su % per_leaf) * d.nics_per_host() + a.nic.value();
  }
  return in_su;
}

namespace detail {


// Position of uplink j in the tie order that starts at `rotation`.
RAILYARD_LAZY
int32_t rotated(int32_t j, int32_t rotation, int32_t n) {
  return static_cast<int32_t>(positive_mod(int64_t{j} - rotation, n));
}

// Apportions k over weights w (zero weight: nothing) by largest remainder:
// floor of each quota k*w/W, then one more to the largest remainders, ties in
// rotation order. With `keep` (replan), uplinks whose kept QPs exceed their
// floor come first among those with a remainder, so that as few QPs as
// possible must leave them. Every count is the floor or ceil of its quota.
RAILYARD_LAZY
std::vector<int32_t> apportion(int32_t k, const std::vector<double>& w, int32_t rotation,
                                      const std::vector<int32_t>* keep) {
  const auto n = static_cast<int32_t>(w.size());
  std::vector<int32_t> out(w.size(), 0);
  double sum = 0;
  for (double x : w) sum += x;
  if (!(sum > 0)) return out;
  struct Extra {
    int32_t j;
    bool wants;
    int64_t rem;  // remainder in units of 1e-9: equal quotas tie exactly
  };
  std::vector<Extra> extras;
  int32_t given = 0;
  for (int32_t j = 0; j < n; ++j) {
    const double wj = w[static_cast<size_t>(j)];
    if (!(wj > 0)) continue;
    const double q = static_cast<double>(k) * wj / sum;
    const auto fl = static_cast<int32_t>(std::floor(q + 1e-9));
    out[static_cast<size_t>(j)] = fl;
    given += fl;
    const auto rem = static_cast<int64_t>(std::llround((q - fl) * 1e9));
    if (rem > 0)
      extras.push_back({j, keep != nullptr && (*keep)[static_cast<size_t>(j)] > fl, rem});
  }
  std::sort(extras.begin(), extras.end(), [&](const Extra& x, const Extra& y) {
    if (x.wants != y.wants) return x.wants;
    if (x.rem != y.rem) return x.rem > y.rem;
    return rotated(x.j, rotation, n) < rotated(y.j, rotation, n);
  });
  for (size_t i = 0; i < extras.size() && given < k; ++i, ++given)
    ++out[static_cast<size_t>(extras[i].j)];
  // Rounding slack (never on exact inputs): round-robin in rotation order.
  for (int32_t i = 0; given < k; i = (i + 1) % n) {
    const auto j = static_cast<size_t>((rotation + i) % n + n) % static_cast<size_t>(n);
    if (w[j] > 0) {
      ++out[j];
      ++given;
    }
  }
  return out;
}

// Uplink targets in QP order: round r takes one QP for every uplink (in
// rotation order) whose count exceeds r, so QP i goes to the (i mod m)-th
// uplink while counts last.
RAILYARD_LAZY
std::vector<int32_t> interleave(const std::vector<int32_t>& counts, int32_t rotation) {
  const auto n = static_cast<int32_t>(counts.size());
  std::vector<int32_t> order;
  int32_t most = 0;
  for (int32_t c : counts) most = std::max(most, c);
  for (int32_t round = 0; round < most; ++round)
    for (int32_t i = 0; i < n; ++i) {
      const auto j = static_cast<int32_t>(positive_mod(int64_t{rotation} + i, n));
      if (counts[static_cast<size_t>(j)] > round) order.push_back(j);
    }
  return order;
}

// What plan_connection and replan share: the checked pair, its geometry,
// usable paths and uplink shares.
struct SprayContext {
  SprayGeometry geometry;
  std::vector<int32_t> slot_to_path;  // -1: route down
  std::vector<double> uplink_weight;  // per leaf uplink j (one entry for same leaf)
};

RAILYARD_LAZY
Status check_pair(const topology::ClusterDescriptor<>& d, const topology::Fabric& f,
                               NicPort a, NicPort b, int32_t qps) {
  if (!f.has_descriptor() || !(f.descriptor().spec() == d.spec()))
    return invalid_field("fabric", "(graph)", "not materialized from this descriptor");
  RAILYARD_RETURN_IF_ERROR(check_port(d, "src", a));
  RAILYARD_RETURN_IF_ERROR(check_port(d, "dst", b));
  if (qps < 1 || qps > kMaxQpsPerConnection)
    return invalid_field("qps", str_cat(qps),
                         str_cat("must be in [1, ", kMaxQpsPerConnection, "]"));
  if (a == b) return invalid_field("dst", port_name(b), "same NIC port as src");
  if (a.plane != b.plane)
    return invalid_field("dst.plane", str_cat(b.plane.value()),
                         str_cat("no network path from src.plane=", a.plane.value(),
                                 " (a flow never changes plane)"));
  if (d.path_count(a, b) == 0) {
    if (d.kind() == topology::Kind::kRailOnly && a.nic != b.nic)
      return invalid_field("dst.nic", str_cat(b.nic.value()),
                           str_cat("no network path from src.nic=", a.nic.value(),
                                   " on a rail_only fabric (cross-rail traffic goes over NVLink "
                                   "to the destination rail first)"));
    return invalid_field("dst", port_name(b), str_cat("no network path from ", port_name(a)));
  }
  return ok_status();
}

// Fills plan.paths and plan.uplinks for the pair under `fo` and returns the
// context, or Unavailable when every path is down.
RAILYARD_LAZY
StatusOr<SprayContext> usable_paths(const topology::ClusterDescriptor<>& d,
                                                 const topology::Fabric& f,
                                                 const topology::FailureOverlay* fo,
                                                 SprayPlan& plan) {
  SprayContext ctx{SprayGeometry(d, f, fo, plan.src, plan.dst), {}, {}};
  const SprayGeometry& g = ctx.geometry;
  ctx.slot_to_path.assign(g.slot_count(), -1);
  plan.paths.clear();
  plan.uplinks.clear();
  int64_t all = 0;
  double sum = 0;
  d.for_each_route(plan.src, plan.dst, [&](const topology::Route& r) {
    ++all;
    const double b = g.bottleneck(r);
    if (!(b > 0)) return;
    ctx.slot_to_path[g.slot(r)] = static_cast<int32_t>(plan.paths.size());
    plan.paths.push_back({r, b, 0.0, 0});
    sum += b;
  });
  if (plan.paths.empty())
    return unavailable_error(str_cat("all ", all, " paths from ", port_name(plan.src), " to ",
                                          port_name(plan.dst), " are down"));
  for (SprayPath& p : plan.paths) p.weight = p.bottleneck_gbps / sum;
  const int32_t uplinks = g.top() == 1 ? 1 : g.leaf_uplinks();
  ctx.uplink_weight.assign(static_cast<size_t>(uplinks), 0.0);
  for (size_t i = 0; i < plan.paths.size(); ++i) {
    const int32_t j = plan.paths[i].route.src_leaf_uplink;
    if (plan.uplinks.empty() || plan.uplinks.back().uplink != j)
      plan.uplinks.push_back({j, static_cast<int32_t>(i), 0, g.uplink_capacity(std::max(j, 0)), 0});
    ++plan.uplinks.back().path_count;
  }
  for (const UplinkShare& u : plan.uplinks)
    ctx.uplink_weight[static_cast<size_t>(std::max(u.uplink, 0))] = u.capacity_gbps;
  return ctx;
}

// Finds an unused port for QP tuple t: first one reaching uplink `want` within
// every later share, then any reaching `want` over up links, then any usable
// path at all (counted in plan.unmet_targets). Marks the port used, commits
// the route and fills q. False when no port of the 14-bit space gives a usable
// path.
RAILYARD_LAZY
bool place_qp(SprayContext& ctx, const HashModel& model, FiveTuple t, int32_t want,
                     uint16_t start, std::vector<uint8_t>& used, SprayPlan& plan, QpRoute& q) {
  using Probe = SprayGeometry::Probe;
  struct Pass {
    int32_t want;
    bool balance;
  };
  const Pass passes[3] = {{want, true}, {want, false}, {-1, false}};
  topology::Route r;
  for (int pass = 0; pass < 3; ++pass) {
    for (int32_t i = 0; i < kSportCount; ++i) {
      const auto p = static_cast<uint16_t>((start + i) & (kSportCount - 1));
      if (used[p] != 0) continue;
      t.src_port = static_cast<uint16_t>(kSportBase | p);
      if (ctx.geometry.probe(model, t, passes[pass].want, passes[pass].balance, r) !=
          Probe::kAccepted)
        continue;
      used[p] = 1;
      ctx.geometry.commit(r);
      q.path = ctx.slot_to_path[ctx.geometry.slot(r)];
      q.uplink = r.src_leaf_uplink;
      q.sport = t.src_port;
      q.flow_label = flow_label_for_sport(q.sport);
      if (pass == 2 && r.src_leaf_uplink != want) ++plan.unmet_targets;
      return true;
    }
  }
  return false;
}

RAILYARD_LAZY
int64_t efficiency_trials(const SprayOptions& o, int32_t m, int32_t k) {
  if (o.efficiency_trials > 0) return o.efficiency_trials;
  return std::clamp<int64_t>((int64_t{1} << 18) / (int64_t{m} * k), 32, 4000);
}

// Totals per path and uplink, the max per uplink, and the expectations.
RAILYARD_LAZY
void finish(SprayPlan& plan) {
  for (SprayPath& p : plan.paths) p.qps = 0;
  for (UplinkShare& u : plan.uplinks) u.qps = 0;
  plan.max_qps_per_uplink = 0;
  const auto m = static_cast<int32_t>(plan.uplinks.size());
  if (plan.steered) {
    for (const QpRoute& q : plan.qp) {
      ++plan.paths[static_cast<size_t>(q.path)].qps;
      for (UplinkShare& u : plan.uplinks)
        if (u.uplink == q.uplink) ++u.qps;
    }
    for (const UplinkShare& u : plan.uplinks)
      plan.max_qps_per_uplink = std::max(plan.max_qps_per_uplink, u.qps);
    plan.expected_efficiency = 1.0;
    plan.expected_uplinks_hit = std::min(plan.qps, m);
  } else {
    plan.expected_uplinks_hit = expected_used_links(plan.qps, m);
    plan.expected_efficiency =
        m <= 1
            ? 1.0
            : synchronized_efficiency(
                  m, m, plan.qps, efficiency_trials(plan.options, m, plan.qps),
                  0x5EED0000u + static_cast<uint64_t>(m) * 1000 + static_cast<uint64_t>(plan.qps));
  }
}

// QP i's tuple with the destination QP number its QpRoute carries (set before
// the port search: base_dst_qpn + i, or the numbers a plugin actually got).
RAILYARD_LAZY
FiveTuple qp_tuple(const topology::ClusterDescriptor<>& d, const SprayPlan& plan,
                          int32_t i) {
  FiveTuple t = rocev2_tuple(d, plan.src, plan.dst, kSportBase,
                             plan.qp[static_cast<size_t>(i)].dst_qpn);
  t.protocol = plan.options.protocol;
  if (t.protocol != kUdpProtocol) t.dst_qp = 0;  // only RoCEv2 carries a QP number
  t.dst_port = plan.options.dst_port;
  if (plan.options.src_ip != 0) t.src_ip = plan.options.src_ip;
  if (plan.options.dst_ip != 0) t.dst_ip = plan.options.dst_ip;
  return t;
}

// Where QP i starts its port search: QPs start 2^14 / k apart.
RAILYARD_LAZY
uint16_t search_start(const SprayPlan& plan, int32_t i) {
  return static_cast<uint16_t>((plan.options.sport_offset + i * (kSportCount / plan.qps)) &
                               (kSportCount - 1));
}

RAILYARD_LAZY
Status no_port_error(const SprayPlan& plan, int32_t i) {
  return failed_precondition_error(str_cat("qp=", i, ": no RoCEv2 source port makes model '",
                                               plan.model, "' send it over a usable path from ",
                                               port_name(plan.src), " to ", port_name(plan.dst)));
}

}  // namespace detail

// The ECMP decisions a flow on `route` (one of for_each_route(a, b)) meets,
// with the candidate each must pick (see EcmpDecision). Same preconditions as
// for_each_route; a route through one leaf has none. O(1) after an O(U + Us)
// set-up.
RAILYARD_LAZY
[[nodiscard]] std::vector<EcmpDecision> ecmp_decisions(
    const topology::ClusterDescriptor<>& d, const topology::Fabric& f, NicPort a, NicPort b,
    const topology::Route& route) {
  const detail::SprayGeometry g(d, f, nullptr, a, b);
  EcmpDecision buf[4];
  const int n = g.decisions(route, buf);
  return {buf, buf + n};
}

// The NIC port a GPU sends through, from "HOST:GPU" or "HOST:GPU:PLANE" (the
// GPU's paired NIC; plane 0 unless given). Errors carry `field` and the whole
// text: the shape, or a part outside the cluster ("src=0:8: gpu=8: must be
// between 0 and 7").
RAILYARD_LAZY
[[nodiscard]] StatusOr<NicPort> parse_endpoint(std::string_view field,
                                                      std::string_view text,
                                                      const topology::ClusterDescriptor<>& d) {
  const std::vector<std::string_view> parts = split(text, ':');
  if (text.empty() || parts.size() < 2 || parts.size() > 3)
    return invalid_field(field, text, "expected HOST:GPU or HOST:GPU:PLANE");
  auto host = parse_int_in("host", parts[0], 0, d.hosts() - 1);
  auto gpu = parse_int_in("gpu", parts[1], 0, d.gpus_per_host() - 1);
  auto plane = parts.size() == 3 ? parse_int_in("plane", parts[2], 0, d.planes() - 1)
                                 : StatusOr<int64_t>(0);
  for (const StatusOr<int64_t>* part : {&host, &gpu, &plane})
    if (!part->ok()) return invalid_field(field, text, message_of(part->status()));
  return NicPort{HostId{static_cast<int32_t>(*host)},
                 d.nic_of_gpu(GpuIndex{static_cast<int32_t>(*gpu)}),
                 PlaneId{static_cast<int32_t>(*plane)}};
}

namespace detail {

// plan_connection; dst_qpns empty: QP i's destination QP is base_dst_qpn + i.
RAILYARD_LAZY
[[nodiscard]] StatusOr<SprayPlan> plan_connection_with_qpns(
    const topology::ClusterDescriptor<>& d, const topology::Fabric& f, NicPort src, NicPort dst,
    int32_t qps, const HashModel& model, const topology::FailureOverlay* failures,
    SprayOptions options, std::span<const uint32_t> dst_qpns) {
  RAILYARD_RETURN_IF_ERROR(detail::check_pair(d, f, src, dst, qps));
  SprayPlan plan;
  plan.src = src;
  plan.dst = dst;
  plan.qps = qps;
  plan.model = std::string(model.name());
  plan.steered = model.steerable();
  if (options.rotation < 0) options.rotation = default_rotation(d, src);
  plan.options = options;
  RAILYARD_ASSIGN_OR_RETURN(detail::SprayContext ctx, detail::usable_paths(d, f, failures, plan));
  plan.qp.resize(static_cast<size_t>(qps));
  for (int32_t i = 0; i < qps; ++i)
    plan.qp[static_cast<size_t>(i)].dst_qpn =
        dst_qpns.empty() ? (options.base_dst_qpn + static_cast<uint32_t>(i)) & 0xFFFFFFu
                         : dst_qpns[static_cast<size_t>(i)];
  if (!plan.steered) {
    for (int32_t i = 0; i < qps; ++i) {
      QpRoute& q = plan.qp[static_cast<size_t>(i)];
      q.sport =
          static_cast<uint16_t>(kSportBase | ((options.sport_offset + i) & (kSportCount - 1)));
      q.flow_label = flow_label_for_sport(q.sport);
    }
    detail::finish(plan);
    return plan;
  }
  const std::vector<int32_t> counts =
      detail::apportion(qps, ctx.uplink_weight, options.rotation, nullptr);
  const std::vector<int32_t> targets = detail::interleave(counts, options.rotation);
  std::vector<uint8_t> used(kSportCount, 0);
  for (int32_t i = 0; i < qps; ++i) {
    const int32_t want = ctx.geometry.top() == 1 ? -1 : targets[static_cast<size_t>(i)];
    if (!detail::place_qp(ctx, model, detail::qp_tuple(d, plan, i), want,
                          detail::search_start(plan, i), used, plan,
                          plan.qp[static_cast<size_t>(i)]))
      return detail::no_port_error(plan, i);
  }
  detail::finish(plan);
  return plan;
}

}  // namespace detail

// Plans `qps` QPs of the connection src -> dst under `model` (see the header
// comment for what a plan holds). Errors (Status naming the value):
// InvalidArgument for a NIC port outside the cluster (src/dst .host, .nic,
// .plane), qps outside [1, kMaxQpsPerConnection], src == dst, ports without a
// network path (different planes; rail_only ports on different rails), or a
// fabric not materialized from `d`; Unavailable when every path is down;
// FailedPrecondition when the model sends some QP over down links with every
// source port. Cost: O(paths) plus, per QP, about m port probes (healthy).
RAILYARD_LAZY
[[nodiscard]] StatusOr<SprayPlan> plan_connection(
    const topology::ClusterDescriptor<>& d, const topology::Fabric& f, NicPort src, NicPort dst,
    int32_t qps, const HashModel& model, const topology::FailureOverlay* failures = nullptr,
    SprayOptions options = {}) {
  return detail::plan_connection_with_qpns(d, f, src, dst, qps, model, failures, options, {});
}

// plan_connection for QPs whose destination QP numbers are known: QP i hashes
// dst_qpns[i] (what ibv_create_qp returned on the remote side, in any order;
// nothing assumes they are consecutive) and there are dst_qpns.size() QPs.
// options.base_dst_qpn is ignored. Errors: those of plan_connection, and
// InvalidArgument naming dst_qpns[i] when a number is >= 2^24.
RAILYARD_LAZY
[[nodiscard]] StatusOr<SprayPlan> plan_connection_to_qpns(
    const topology::ClusterDescriptor<>& d, const topology::Fabric& f, NicPort src, NicPort dst,
    std::span<const uint32_t> dst_qpns, const HashModel& model,
    const topology::FailureOverlay* failures = nullptr, SprayOptions options = {}) {
  for (size_t i = 0; i < dst_qpns.size(); ++i)
    if (dst_qpns[i] > 0xFFFFFFu)
      return invalid_field(str_cat("dst_qpns[", i, "]"), str_cat(dst_qpns[i]),
                           "must be < 2^24 (a 24-bit QP number)");
  return detail::plan_connection_with_qpns(d, f, src, dst, static_cast<int32_t>(dst_qpns.size()),
                                           model, failures, options, dst_qpns);
}


// The source-leaf uplinks with a route from a to b on the healthy fabric (1
// when both hang off one leaf): m of the path advisor (plugin/advisor.hpp).
RAILYARD_LAZY
[[nodiscard]] int32_t advised_uplinks(const topology::ClusterDescriptor<>& d, NicPort a,
                                      NicPort b) {
  int32_t m = 0;
  int32_t last = -2;
  d.for_each_route(a, b, [&](const topology::Route& r) {
    if (r.src_leaf_uplink != last) ++m;
    last = r.src_leaf_uplink;
  });
  return std::max(m, 1);
}

// The plan the path advisor hands a net plugin for local -> remote with
// `qp_budget` QPs: k = min(budget, advised_uplinks, kMaxQpsPerConnection) QPs,
// planned on the healthy fabric (the advisor knows no failures) with default
// SprayOptions but base_dst_qpn. One function for the advisor and for the
// simulator's steered routing (sim/collective_sim.hpp), so that what is
// simulated is what a plugin deploys. Errors: those of plan_connection, and
// qp_budget < 1 (InvalidArgument naming it).
RAILYARD_LAZY
[[nodiscard]] StatusOr<SprayPlan> advised_plan(const topology::ClusterDescriptor<>& d,
                                               const topology::Fabric& f, NicPort local,
                                               NicPort remote, int32_t qp_budget,
                                               const HashModel& model,
                                               uint32_t base_dst_qpn = SprayOptions{}.base_dst_qpn) {
  if (qp_budget < 1) return invalid_field("qp_budget", str_cat(qp_budget), "must be >= 1");
  const int32_t k = std::min({qp_budget, kMaxQpsPerConnection, advised_uplinks(d, local, remote)});
  SprayOptions options;
  options.base_dst_qpn = base_dst_qpn;
  return plan_connection(d, f, local, remote, k, model, nullptr, options);
}

// A new plan for old's connection after links went down or degraded (or came
// back): keeps every QP whose path is still up and whose uplink is within its
// new share, and moves only the rest — first off broken paths, then off
// uplinks above their share (the new shares prefer uplinks whose kept QPs need
// the extra one). Kept QPs keep their ports; moved QPs get new distinct ports
// (counted in changed_qps, listed in changed). When every surviving uplink's
// kept QPs fit its new share, changed_qps is exactly the number of QPs whose
// path broke. A plan under a non-steerable model is re-planned from scratch
// with changed_qps = 0 (its ports do not depend on paths). Errors as
// plan_connection, plus InvalidArgument when `old` is inconsistent.
RAILYARD_LAZY
[[nodiscard]] StatusOr<SprayPlan> replan(const SprayPlan& old,
                                                      const topology::ClusterDescriptor<>& d,
                                                      const topology::Fabric& f,
                                                      const HashModel& model,
                                                      const topology::FailureOverlay& failures) {
  if (!old.steered || !model.steerable())
    return plan_connection(d, f, old.src, old.dst, old.qps, model, &failures, old.options);
  RAILYARD_RETURN_IF_ERROR(detail::check_pair(d, f, old.src, old.dst, old.qps));
  if (old.qp.size() != static_cast<size_t>(old.qps))
    return invalid_field("old.qp", str_cat(old.qp.size()), str_cat("entries for qps=", old.qps));
  for (const QpRoute& q : old.qp)
    if (q.path < 0 || static_cast<size_t>(q.path) >= old.paths.size())
      return invalid_field("old.qp.path", str_cat(q.path), "not an index into old.paths");
  SprayPlan plan;
  plan.src = old.src;
  plan.dst = old.dst;
  plan.qps = old.qps;
  plan.model = std::string(model.name());
  plan.steered = true;
  plan.options = old.options;
  RAILYARD_ASSIGN_OR_RETURN(detail::SprayContext ctx, detail::usable_paths(d, f, &failures, plan));
  const bool one_leaf = ctx.geometry.top() == 1;
  const auto n = static_cast<size_t>(ctx.uplink_weight.size());
  // QPs still on a usable path, per uplink in QP order.
  std::vector<std::vector<int32_t>> alive(n);
  std::vector<int32_t> alive_count(n, 0);
  std::vector<int32_t> moved;
  for (int32_t i = 0; i < old.qps; ++i) {
    const topology::Route& r =
        old.paths[static_cast<size_t>(old.qp[static_cast<size_t>(i)].path)].route;
    const int32_t now = ctx.slot_to_path[ctx.geometry.slot(r)];
    if (now < 0) {
      moved.push_back(i);
      continue;
    }
    const auto j = static_cast<size_t>(std::max(r.src_leaf_uplink, 0));
    alive[j].push_back(i);
    ++alive_count[j];
  }
  const std::vector<int32_t> counts =
      detail::apportion(old.qps, ctx.uplink_weight, old.options.rotation, &alive_count);
  std::vector<uint8_t> used(kSportCount, 0);
  plan.qp.resize(static_cast<size_t>(old.qps));
  std::vector<int32_t> deficit(n, 0);
  for (size_t j = 0; j < n; ++j) {
    const auto keep = static_cast<size_t>(std::min<int32_t>(counts[j], alive_count[j]));
    for (size_t t = 0; t < alive[j].size(); ++t) {
      const int32_t i = alive[j][t];
      if (t >= keep) {
        moved.push_back(i);
        continue;
      }
      const QpRoute& o = old.qp[static_cast<size_t>(i)];
      QpRoute& q = plan.qp[static_cast<size_t>(i)];
      q = o;
      const topology::Route& r = old.paths[static_cast<size_t>(o.path)].route;
      q.path = ctx.slot_to_path[ctx.geometry.slot(r)];
      used[o.sport & (kSportCount - 1)] = 1;
      ctx.geometry.commit(r);
    }
    deficit[j] = counts[j] - static_cast<int32_t>(keep);
  }
  std::sort(moved.begin(), moved.end());
  const std::vector<int32_t> targets = detail::interleave(deficit, old.options.rotation);
  for (size_t t = 0; t < moved.size(); ++t) {
    const int32_t i = moved[t];
    QpRoute& q = plan.qp[static_cast<size_t>(i)];
    q.dst_qpn = old.qp[static_cast<size_t>(i)].dst_qpn;
    const int32_t want = one_leaf ? -1 : targets[t];
    if (!detail::place_qp(ctx, model, detail::qp_tuple(d, plan, i), want,
                          detail::search_start(plan, i), used, plan, q))
      return detail::no_port_error(plan, i);
  }
  plan.changed = std::move(moved);
  plan.changed_qps = static_cast<int32_t>(plan.changed.size());
  detail::finish(plan);
  return plan;
}

// ---- hot path ---------------------------------------------------------------

struct ConnectionTag {};
// Dense connection number in a SprayTable: the order plans were added.
using ConnectionId = StrongId<ConnectionTag>;

// The source ports of many plans (all connections of a job, a ring step, ...)
// in two flat arrays: offsets per connection and ports. source_port() is the
// per-QP lookup a net plugin makes: O(1), no allocation, never throws.
class SprayTable {
 public:
  SprayTable() = default;
  // Connection i is plans[i].
  explicit SprayTable(std::span<const SprayPlan> plans) {
    for (const SprayPlan& p : plans) add(p);
  }

  // Appends a plan's ports; returns its id.
  ConnectionId add(const SprayPlan& plan) {
    const auto id = ConnectionId{static_cast<int32_t>(offsets_.size() - 1)};
    for (const QpRoute& q : plan.qp) ports_.push_back(q.sport);
    offsets_.push_back(static_cast<uint32_t>(ports_.size()));
    return id;
  }

  // The source port of QP `qp` of connection `c`, or kNoSourcePort (0) when
  // either is out of range.
  [[nodiscard]] uint16_t source_port(ConnectionId c, int32_t qp) const noexcept {
    const auto i = static_cast<uint32_t>(c.value());
    if (i >= static_cast<uint32_t>(offsets_.size() - 1)) return kNoSourcePort;
    const uint32_t begin = offsets_[i];
    const auto q = static_cast<uint32_t>(qp);
    if (q >= offsets_[i + 1] - begin) return kNoSourcePort;
    return ports_[begin + q];
  }
  // The GRH flow label giving that port, or 0 (the kernel's default) when out
  // of range.
  [[nodiscard]] uint32_t flow_label(ConnectionId c, int32_t qp) const noexcept {
    const uint16_t p = source_port(c, qp);
    return p == kNoSourcePort ? 0 : flow_label_for_sport(p);
  }

  [[nodiscard]] int32_t connections() const noexcept {
    return static_cast<int32_t>(offsets_.size() - 1);
  }
  // QPs of connection c (0 when out of range).
  [[nodiscard]] int32_t qps(ConnectionId c) const noexcept {
    const auto i = static_cast<uint32_t>(c.value());
    if (i >= static_cast<uint32_t>(offsets_.size() - 1)) return 0;
    return static_cast<int32_t>(offsets_[i + 1] - offsets_[i]);
  }
  [[nodiscard]] size_t memory_bytes() const {
    return offsets_.capacity() * sizeof(uint32_t) + ports_.capacity() * sizeof(uint16_t);
  }

 private:
  std::vector<uint32_t> offsets_{0};
  std::vector<uint16_t> ports_;
};

}  // namespace railyard::routing
