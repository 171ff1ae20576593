// railyard/topology/import/cable_fit.hpp — a real fabric, read as its cables
// (cable_list.hpp, ibnetdiscover.hpp), fitted to the regular cluster that
// contains it; the difference is described as failures.
//
//   auto cables = railyard::topology::cable_list_from_text(text);
//   railyard::StatusOr<railyard::topology::CableFit> fit = railyard::topology::fit_cables(*cables);
//   railyard::topology::Fabric fabric = railyard::topology::materialize(fit->descriptor);
//   railyard::topology::FailureOverlay down = fit->overlay(fabric);  // missing + miswired
//   // fit->spec: the regular spec; fit->host_names[h]: the file's name of host h;
//   // fit->findings: each missing, miswired, extra or slow cable; fit->drained: hosts
//   // with a missing or miswired host cable.
//
// Every algorithm of railyard works on a ClusterDescriptor (closed form); a real
// fabric is never exactly one. The rule (docs/import.md): find the regular
// cluster the file is an instance of, and say where the file differs:
//
// 1. Nodes. A format that knows (ibnetdiscover: Ca / Switch) says which nodes
//    are hosts. A cable list does not: a node is a host when it has fewer
//    cables than each of its neighbours and at most 2/3 of its busiest
//    neighbour's (a host has one cable per NIC port; its leaf one per host of
//    its group plus its uplinks; a leaf always has a host neighbour with fewer
//    cables, and a spine about as many cables as its leaves). This holds when a
//    leaf has at least 1.5 times a host's NIC count in cables, and a spine more
//    than 2/3 of its busiest leaf's (every preset; a missing cable or two does
//    not change it). Switch levels are the hop count from the nearest host:
//    leaves 1, spines 2, cores 3.
// 2. NICs. A host's NIC ports are the port names on its cables; the NICs of the
//    design are the union of those names over all hosts, in natural order
//    (eth2 before eth10): NIC i is the i-th name, rail i. At least half the hosts
//    must show every name (fewer: hosts of different NIC counts, refused); a
//    host lacking one has that cable missing.
// 3. Kind. When most hosts put all their NICs on one switch, tor_fat_tree (also
//    with one NIC per host); else rail_fat_tree, or rail_only when there is no
//    spine (one switch per rail).
// 4. Groups (SUs). Rail: a leaf's rail is the NIC most of its host cables come
//    from; two leaves are in one SU when more than half the hosts of the
//    smaller share them (a single stray cable does not merge SUs); a host
//    belongs to the SU most of its cables reach; an SU needs one leaf per rail.
//    ToR: a leaf is an SU, a host belongs to the leaf most of its cables reach.
//    hosts_per_su is the largest SU; one smaller SU is allowed and goes last.
//    Hosts are numbered SU by SU, inside an SU by name in natural order; SUs by
//    their first host's name (pods first, for 3 tiers).
// 5. Upper tiers. A spine belongs to the SUs (pod) that send it at least half
//    as many cables as its busiest SU; pods are SUs joined that way; spines of a
//    pod are numbered by name; a core belongs to group s when most of its cables
//    come from spine s of the pods. Uplinks per leaf (per spine) are the most
//    common count.
// 6. Spec. oversub = leaf down ports : uplinks, pod_oversub = spine down : up,
//    and switch_radix the smallest radix whose derived shape (shape.hpp) has
//    exactly the file's leaves per SU, uplinks, spines per pod and cores per
//    group; nic_gbps the most common speed of host cables (a file without
//    speeds: CableFitOptions). GPUs, NVLink, GPU model and cable lengths are not
//    in a cable list: they come from CableFitOptions::base (8 H100 per host,
//    one GPU per NIC when 8 does not divide or multiply the NIC count).
// 7. Compare, position by position (host h's NIC n; leaf l's uplink j; spine
//    s's uplink k; descriptor order). A position the file has no cable for is
//    MISSING: down in the overlay. A cable at a place the design does not put it
//    (a NIC on another rail's leaf, a leaf cabled to a spine it should not
//    reach) is MISWIRED: reported with both its ends and where it should go,
//    and the design's position it should fill is down in the overlay (railyard
//    plans around it; it does not route over a cable where the design has
//    none). A cable with no free position of its kind (between two switches of
//    one level, or beyond the uplink count) is EXTRA and ignored. A cable
//    slower than nic_gbps is SLOW: degraded to its share of the speed.
// A fabric too irregular to fit (two host types, a group without a leaf for
// some rail, pods of different sizes, a shape no radix gives) is refused with an
// InvalidArgument naming what is irregular.
// Cost: O(cables x log nodes + nics^2 x hosts + radix search), linear in the
// fabric for every size railyard models.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"
#include "railyard/topology/import/cable_list.hpp"
#include "railyard/topology/shape.hpp"

namespace railyard::topology {

struct CableFitOptions {
  // What a cable list does not say (GPUs, NVLink, GPU/CPU model, cable
  // lengths) comes from here; the fit sets every network field.
  ClusterSpec base;
  // Speed of a fabric whose file gives none; 0 = base.nic_gbps.
  int32_t default_gbps = 0;
};

enum class CableProblem : uint8_t { kMissing, kMiswired, kExtra, kSlow };
inline constexpr std::string_view kCableProblemNames[4] = {"missing", "miswired", "extra", "slow"};

// A cable position of the regular design: host `lower`'s NIC `port`
// (kHostLeaf), leaf `lower`'s uplink `port` (kLeafSpine) or spine `lower`'s
// uplink `port` (kSpineCore), in descriptor numbering.
struct CableSlot {
  LinkTier tier = LinkTier::kHostLeaf;
  int32_t lower = 0;
  int32_t port = 0;
  friend bool operator==(const CableSlot&, const CableSlot&) = default;
};

struct CableFinding {
  CableProblem problem = CableProblem::kMissing;
  CableSlot slot;               // not for kExtra
  std::string expected_lower;   // "gpu03 eth2", "leaf-a uplink 3" (not for kExtra)
  std::string expected_upper;   // the switch the design cables it to (not for kExtra)
  std::optional<Cable> actual;  // the file's cable (not for kMissing)
  double fraction = 0.0;        // kSlow: its speed / nic_gbps
};

struct CableFit {
  ClusterDescriptor<> descriptor;
  // The file's names, by descriptor index: host id, NIC index, global leaf,
  // spine and core index.
  std::vector<std::string> host_names;
  std::vector<std::string> nic_names;
  std::vector<std::string> leaf_names;
  std::vector<std::string> spine_names;
  std::vector<std::string> core_names;
  std::vector<CableFinding> findings;  // missing, then miswired, extra, slow; each in slot order
  std::vector<HostId> drained;         // hosts with a missing or miswired host cable, ascending
  int64_t file_cables = 0;             // rows of the file
  int64_t design_cables = 0;           // host-leaf + leaf-spine + spine-core of the spec
  std::string host_rule;               // how hosts were told from switches, for reports

  [[nodiscard]] const ClusterSpec& spec() const { return descriptor.spec(); }
  [[nodiscard]] int64_t count(CableProblem p) const {
    return std::count_if(findings.begin(), findings.end(),
                         [p](const CableFinding& f) { return f.problem == p; });
  }
  // The up link of a slot in `fabric` (materialize(descriptor)).
  [[nodiscard]] LinkId link(const Fabric& fabric, const CableSlot& s) const {
    switch (s.tier) {
      case LinkTier::kLeafSpine:
        return fabric.leaf_uplink(SwitchIndex{s.lower}, s.port);
      case LinkTier::kSpineCore:
        return fabric.spine_uplink(SwitchIndex{s.lower}, s.port);
      default:
        return fabric.host_uplink({HostId{s.lower}, NicIndex{s.port}, PlaneId{0}});
    }
  }
  // Missing and miswired positions down, slow cables degraded, in an overlay of
  // `fabric`, which must be materialize(descriptor) (it must outlive the overlay).
  void apply(const Fabric& fabric, FailureOverlay& overlay) const {
    for (const CableFinding& f : findings) {
      if (f.problem == CableProblem::kExtra) continue;
      overlay.set_cable_fraction(link(fabric, f.slot),
                                 f.problem == CableProblem::kSlow ? f.fraction : 0.0);
    }
  }
  [[nodiscard]] FailureOverlay overlay(const Fabric& fabric) const {
    FailureOverlay o(fabric);
    apply(fabric, o);
    return o;
  }
  // Names `fabric`'s (materialize(descriptor)) switches and NIC ports as the
  // file does ("leaf-s0-r1", "gpu03:eth2"), so that paths and links print in
  // the file's words; GPUs keep railyard's names.
  void name_fabric(Fabric& fabric) const {
    const ClosShape& c = descriptor.shape();
    for (int64_t l = 0; l < c.total_leaves(); ++l)
      fabric.set_node_name(fabric.leaf(SwitchIndex{static_cast<int32_t>(l)}),
                           leaf_names[static_cast<size_t>(l)]);
    for (int64_t s = 0; s < c.total_spines(); ++s)
      fabric.set_node_name(fabric.spine(SwitchIndex{static_cast<int32_t>(s)}),
                           spine_names[static_cast<size_t>(s)]);
    for (int64_t k = 0; k < c.total_cores(); ++k)
      fabric.set_node_name(fabric.core(SwitchIndex{static_cast<int32_t>(k)}),
                           core_names[static_cast<size_t>(k)]);
    for (int32_t h = 0; h < descriptor.hosts(); ++h)
      for (int32_t i = 0; i < descriptor.nics_per_host(); ++i)
        fabric.set_node_name(
            fabric.nic_port({HostId{h}, NicIndex{i}}),
            str_cat(host_names[static_cast<size_t>(h)], ":", nic_names[static_cast<size_t>(i)]));
  }
  // "name (h12)"-style labels for reports.
  [[nodiscard]] std::string host_label(int32_t h) const {
    return str_cat(host_names[static_cast<size_t>(h)], " (host ", h, ")");
  }
};

namespace detail {

// Union-find over 0..n-1 (path halving; the smaller index becomes the root so
// that components come out in a stable order).
struct FitUnion {
  std::vector<int32_t> parent;
  explicit FitUnion(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int32_t find(int32_t x) {
    while (parent[static_cast<size_t>(x)] != x) {
      parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
      x = parent[static_cast<size_t>(x)];
    }
    return x;
  }
  void join(int32_t a, int32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent[static_cast<size_t>(b)] = a;
  }
};

// The most common value (ties: the larger); 0 for none.
[[nodiscard]] inline int32_t fit_mode(const std::vector<int32_t>& values) {
  std::map<int32_t, int32_t> count;
  for (int32_t v : values) ++count[v];
  int32_t best = 0, best_count = 0;
  for (auto [v, c] : count)
    if (c >= best_count) best = v, best_count = c;
  return best;
}

// The index of the largest count (ties: the first), -1 for an empty map.
template <class Map>
[[nodiscard]] int32_t fit_argmax(const Map& counts) {
  int32_t best = -1, best_count = 0;
  for (auto [key, c] : counts)
    if (c > best_count) best = key, best_count = c;
  return best;
}

[[nodiscard]] inline Ratio fit_ratio(int64_t down, int64_t up) {
  const int64_t g = std::gcd(down, up);
  return {static_cast<int32_t>(down / g), static_cast<int32_t>(up / g)};
}

}  // namespace detail

// Fits `list` (rules in the header comment). Errors: InvalidArgument naming
// what does not fit (a node, a count, the cables involved).
RAILYARD_LAZY
[[nodiscard]] StatusOr<CableFit> fit_cables(const CableList& list,
                                            const CableFitOptions& options = {}) {
  using detail::fit_argmax;
  // ---- 1. Nodes, kinds, levels ------------------------------------------------
  std::map<std::string, int32_t, std::less<>> id_of;
  std::vector<std::string> name;
  auto node_id = [&](const std::string& n) {
    auto [it, fresh] = id_of.try_emplace(n, static_cast<int32_t>(name.size()));
    if (fresh) name.push_back(n);
    return it->second;
  };
  struct End {
    int32_t self, peer, cable;
  };
  std::vector<std::vector<End>> adj;
  const auto& cables = list.cables;
  std::vector<std::pair<int32_t, int32_t>> ends(cables.size());  // (a node, b node)
  for (size_t c = 0; c < cables.size(); ++c) {
    const int32_t a = node_id(cables[c].a.node), b = node_id(cables[c].b.node);
    ends[c] = {a, b};
    if (adj.size() < name.size()) adj.resize(name.size());
    adj[static_cast<size_t>(a)].push_back({a, b, static_cast<int32_t>(c)});
    adj[static_cast<size_t>(b)].push_back({b, a, static_cast<int32_t>(c)});
  }
  const auto n = static_cast<int32_t>(name.size());
  auto deg = [&](int32_t v) { return adj[static_cast<size_t>(v)].size(); };
  std::vector<char> host(static_cast<size_t>(n), 0);
  std::string host_rule;
  if (!list.kinds.empty()) {
    host_rule = "hosts are the file's channel adapters (Ca)";
    for (int32_t v = 0; v < n; ++v) {
      auto it = list.kinds.find(name[static_cast<size_t>(v)]);
      host[static_cast<size_t>(v)] = it != list.kinds.end() && it->second == CableNodeKind::kHost;
    }
  } else {
    host_rule =
        "hosts are the nodes with fewer cables than each neighbour and at most 2/3 of their "
        "busiest neighbour's";
    for (int32_t v = 0; v < n; ++v) {
      size_t busiest = 0;
      bool fewest = true;
      for (const End& e : adj[static_cast<size_t>(v)]) {
        busiest = std::max(busiest, deg(e.peer));
        fewest = fewest && deg(v) < deg(e.peer);
      }
      host[static_cast<size_t>(v)] = fewest && 3 * deg(v) <= 2 * busiest;
    }
  }
  for (size_t c = 0; c < cables.size(); ++c)
    if (host[static_cast<size_t>(ends[c].first)] && host[static_cast<size_t>(ends[c].second)])
      return csv_error(cables[c].line, "b_node", cables[c].b.node,
                       str_cat("joins two hosts (", csv_quoted(cables[c].a.node), " and ",
                               csv_quoted(cables[c].b.node),
                               "): railyard fits host-switch fabrics (", host_rule, ")"));
  std::vector<int32_t> level(static_cast<size_t>(n), -1);
  std::queue<int32_t> bfs;
  for (int32_t v = 0; v < n; ++v)
    if (host[static_cast<size_t>(v)]) level[static_cast<size_t>(v)] = 0, bfs.push(v);
  if (bfs.empty()) return invalid_argument_error(str_cat("no hosts found (", host_rule, ")"));
  while (!bfs.empty()) {
    const int32_t v = bfs.front();
    bfs.pop();
    for (const End& e : adj[static_cast<size_t>(v)])
      if (level[static_cast<size_t>(e.peer)] < 0) {
        level[static_cast<size_t>(e.peer)] = level[static_cast<size_t>(v)] + 1;
        bfs.push(e.peer);
      }
  }
  for (int32_t v = 0; v < n; ++v) {
    const int lv = level[static_cast<size_t>(v)];
    if (lv < 0)
      return invalid_argument_error(str_cat("switch ", csv_quoted(name[static_cast<size_t>(v)]),
                                            " is not connected to any host"));
    if (lv > 3)
      return invalid_argument_error(str_cat(
          "switch ", csv_quoted(name[static_cast<size_t>(v)]), " is ", lv,
          " hops from the nearest host: railyard fits at most three switch tiers (", host_rule,
          list.kinds.empty() ? "; in a fabric whose leaves have fewer than 1.5 times a host's "
                               "NIC count in cables, hosts are taken for switches"
                             : "",
          ")"));
  }
  auto lvl = [&](int32_t v) { return level[static_cast<size_t>(v)]; };

  // ---- 2. Hosts and their NIC ports -------------------------------------------
  std::vector<int32_t> hosts;
  for (int32_t v = 0; v < n; ++v)
    if (host[static_cast<size_t>(v)]) hosts.push_back(v);
  std::map<std::string, int32_t, std::less<>> nic_seen;  // port name -> hosts showing it
  int32_t widest = 0;                                    // most ports on one host
  int32_t widest_host = -1;
  for (int32_t h : hosts) {
    for (const End& e : adj[static_cast<size_t>(h)]) {
      const Cable& c = cables[static_cast<size_t>(e.cable)];
      ++nic_seen[ends[static_cast<size_t>(e.cable)].first == h ? c.a.port : c.b.port];
    }
    if (static_cast<int32_t>(deg(h)) > widest)
      widest = static_cast<int32_t>(deg(h)), widest_host = h;
  }
  std::vector<std::string> nic_names;
  for (const auto& [port, count] : nic_seen) nic_names.push_back(port);
  std::sort(nic_names.begin(), nic_names.end(),
            [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  const auto nics = static_cast<int32_t>(nic_names.size());
  auto port_of = [&](int32_t h, const End& e) -> const std::string& {
    const Cable& c = cables[static_cast<size_t>(e.cable)];
    return ends[static_cast<size_t>(e.cable)].first == h ? c.a.port : c.b.port;
  };
  if (nics > widest) {
    // Some name is not on the widest host: hosts name their NICs differently.
    std::string absent;
    for (const std::string& p : nic_names) {
      bool has = false;
      for (const End& e : adj[static_cast<size_t>(widest_host)])
        has = has || port_of(widest_host, e) == p;
      if (!has) {
        absent = p;
        break;
      }
    }
    return invalid_argument_error(str_cat(
        "hosts name their NIC ports differently: ", nics, " port names over all hosts (",
        csv_quoted(absent), " is not on ", csv_quoted(name[static_cast<size_t>(widest_host)]),
        ", which has ", widest, "); railyard fits hosts of one NIC layout"));
  }
  if (nics > 64)
    return invalid_argument_error(str_cat("hosts have ", nics, " NIC ports; at most 64 fit"));
  {
    int64_t full = 0;
    int32_t short_host = -1;
    for (int32_t h : hosts) {
      if (static_cast<int32_t>(deg(h)) == nics)
        ++full;
      else if (short_host < 0)
        short_host = h;
    }
    if (2 * full < static_cast<int64_t>(hosts.size()))
      return invalid_argument_error(
          str_cat("hosts have different NIC counts: only ", full, " of ", hosts.size(),
                  " hosts have all ", nics, " NIC ports (",
                  csv_quoted(name[static_cast<size_t>(short_host)]), " has ", deg(short_host),
                  "); railyard fits one host type (at least half the hosts "
                  "must show every port; fewer are taken for missing cables)"));
  }
  std::map<std::string_view, int32_t> nic_index;
  for (int32_t i = 0; i < nics; ++i) nic_index[nic_names[static_cast<size_t>(i)]] = i;
  // host node -> per NIC: (switch node, cable) or (-1, -1)
  std::map<int32_t, std::vector<std::pair<int32_t, int32_t>>> host_nics;
  for (int32_t h : hosts) {
    auto& slots = host_nics[h];
    slots.assign(static_cast<size_t>(nics), {-1, -1});
    for (const End& e : adj[static_cast<size_t>(h)])
      slots[static_cast<size_t>(nic_index[port_of(h, e)])] = {e.peer, e.cable};
  }

  // ---- 3. Kind ------------------------------------------------------------------
  int64_t multi = 0, one_switch = 0;
  for (int32_t h : hosts) {
    std::vector<int32_t> sw;
    for (const End& e : adj[static_cast<size_t>(h)]) sw.push_back(e.peer);
    std::sort(sw.begin(), sw.end());
    if (sw.size() < 2) continue;
    ++multi;
    if (sw.front() == sw.back()) ++one_switch;
  }
  bool has_spines = false, has_cores = false;
  for (int32_t v = 0; v < n; ++v) {
    has_spines = has_spines || lvl(v) == 2;
    has_cores = has_cores || lvl(v) == 3;
  }
  Kind kind = Kind::kRailFatTree;
  if (nics == 1 || 2 * one_switch > multi)
    kind = Kind::kTorFatTree;
  else if (!has_spines)
    kind = Kind::kRailOnly;
  const bool rail = kind != Kind::kTorFatTree;

  // ---- 4. Leaves and SUs ----------------------------------------------------------
  std::vector<int32_t> leaves;
  std::map<int32_t, int32_t> leaf_pos;  // leaf node -> position in `leaves`
  for (int32_t v = 0; v < n; ++v)
    if (lvl(v) == 1) leaf_pos[v] = static_cast<int32_t>(leaves.size()), leaves.push_back(v);
  std::vector<std::map<int32_t, int32_t>> leaf_nic_count(leaves.size());  // NIC -> cables
  std::vector<int32_t> leaf_hosts(leaves.size(), 0);
  for (int32_t h : hosts) {
    std::vector<int32_t> seen;
    for (int32_t i = 0; i < nics; ++i) {
      const int32_t sw = host_nics[h][static_cast<size_t>(i)].first;
      if (sw < 0) continue;
      ++leaf_nic_count[static_cast<size_t>(leaf_pos[sw])][i];
      if (std::find(seen.begin(), seen.end(), sw) == seen.end()) seen.push_back(sw);
    }
    for (int32_t sw : seen) ++leaf_hosts[static_cast<size_t>(leaf_pos[sw])];
  }
  detail::FitUnion leaf_union(leaves.size());
  if (rail) {
    std::map<std::pair<int32_t, int32_t>, int32_t> shared;  // leaf pair -> hosts on both
    for (int32_t h : hosts) {
      std::vector<int32_t> ls;
      for (auto [sw, c] : host_nics[h])
        if (sw >= 0) ls.push_back(leaf_pos[sw]);
      std::sort(ls.begin(), ls.end());
      ls.erase(std::unique(ls.begin(), ls.end()), ls.end());
      for (size_t i = 0; i < ls.size(); ++i)
        for (size_t j = i + 1; j < ls.size(); ++j) ++shared[{ls[i], ls[j]}];
    }
    for (auto [pair, count] : shared)
      if (2 * count > std::min(leaf_hosts[static_cast<size_t>(pair.first)],
                               leaf_hosts[static_cast<size_t>(pair.second)]))
        leaf_union.join(pair.first, pair.second);
  }
  // A host's group: the component most of its cables reach (ties: its lowest NIC's).
  std::map<int32_t, std::vector<int32_t>> group_hosts;  // component root -> host nodes
  for (int32_t h : hosts) {
    std::map<int32_t, int32_t> votes;
    int32_t first = -1;
    for (auto [sw, c] : host_nics[h]) {
      if (sw < 0) continue;
      const int32_t root = leaf_union.find(leaf_pos[sw]);
      ++votes[root];
      if (first < 0) first = root;
    }
    int32_t best = first;
    for (auto [root, v] : votes)
      if (v > votes[best]) best = root;
    group_hosts[best].push_back(h);
  }
  struct Su {
    std::vector<int32_t> hosts;   // nodes, natural name order
    std::vector<int32_t> leaves;  // nodes by rail (rail) or the one leaf (ToR)
    int32_t pod = 0;
  };
  std::vector<Su> sus;
  for (auto& [root, members] : group_hosts) {
    Su su;
    su.hosts = members;
    std::sort(su.hosts.begin(), su.hosts.end(), [&](int32_t a, int32_t b) {
      return natural_less(name[static_cast<size_t>(a)], name[static_cast<size_t>(b)]);
    });
    if (!rail) {
      su.leaves = {leaves[static_cast<size_t>(root)]};
    } else {
      su.leaves.assign(static_cast<size_t>(nics), -1);
      for (size_t l = 0; l < leaves.size(); ++l) {
        if (leaf_union.find(static_cast<int32_t>(l)) != root) continue;
        const int32_t r = fit_argmax(leaf_nic_count[l]);
        int32_t& slot = su.leaves[static_cast<size_t>(r)];
        if (slot >= 0)
          return invalid_argument_error(
              str_cat("leaves ", csv_quoted(name[static_cast<size_t>(slot)]), " and ",
                      csv_quoted(name[static_cast<size_t>(leaves[l])]), " both serve NIC ",
                      csv_quoted(nic_names[static_cast<size_t>(r)]), " of the hosts of one group (",
                      csv_quoted(name[static_cast<size_t>(su.hosts[0])]),
                      ", ...): railyard fits one leaf per rail and group"));
        slot = leaves[l];
      }
      for (int32_t r = 0; r < nics; ++r)
        if (su.leaves[static_cast<size_t>(r)] < 0)
          return invalid_argument_error(
              str_cat("the group of ", csv_quoted(name[static_cast<size_t>(su.hosts[0])]),
                      " has no leaf for NIC ", csv_quoted(nic_names[static_cast<size_t>(r)]),
                      " (a leaf none of whose host cables are in the file cannot be placed)"));
    }
    sus.push_back(std::move(su));
  }
  auto su_before = [&](const Su& a, const Su& b) {
    return natural_less(name[static_cast<size_t>(a.hosts[0])],
                        name[static_cast<size_t>(b.hosts[0])]);
  };
  std::sort(sus.begin(), sus.end(), su_before);
  int32_t hosts_per_su = 0;
  for (const Su& su : sus)
    hosts_per_su = std::max(hosts_per_su, static_cast<int32_t>(su.hosts.size()));
  {
    int32_t short_sus = 0;
    for (const Su& su : sus) short_sus += static_cast<int32_t>(su.hosts.size()) < hosts_per_su;
    if (short_sus > 1)
      return invalid_argument_error(str_cat("leaf groups of different sizes: ", short_sus, " of ",
                                            sus.size(), " groups have fewer than ", hosts_per_su,
                                            " hosts; railyard fits groups of one size "
                                            "(one smaller group may come last)"));
  }
  // The leaf group of every leaf node (-1: not a leaf of the design).
  std::map<int32_t, int32_t> su_of_leaf;
  auto index_leaves = [&] {
    su_of_leaf.clear();
    for (size_t s = 0; s < sus.size(); ++s)
      for (int32_t l : sus[s].leaves) su_of_leaf[l] = static_cast<int32_t>(s);
  };
  index_leaves();

  // ---- 5. Spines, pods, cores ----------------------------------------------------
  std::vector<int32_t> spines, cores;
  for (int32_t v = 0; v < n; ++v) {
    if (lvl(v) == 2) spines.push_back(v);
    if (lvl(v) == 3) cores.push_back(v);
  }
  const int32_t tiers = cores.empty() ? (spines.empty() ? 1 : 2) : 3;
  if (tiers == 1 && sus.size() > 1)
    return invalid_argument_error(str_cat(sus.size(), " leaf groups but no spine joins them"));
  if (kind == Kind::kRailFatTree && !spines.empty()) {
    // Rail-only fabrics (spines of one rail each) are not fitted with spines.
    bool every_spine_one_rail = true;
    for (int32_t s : spines) {
      std::map<int32_t, int32_t> rails;
      for (const End& e : adj[static_cast<size_t>(s)]) {
        auto it = su_of_leaf.find(e.peer);
        if (it == su_of_leaf.end()) continue;
        const auto& ls = sus[static_cast<size_t>(it->second)].leaves;
        rails[static_cast<int32_t>(std::find(ls.begin(), ls.end(), e.peer) - ls.begin())]++;
      }
      every_spine_one_rail = every_spine_one_rail && rails.size() <= 1;
    }
    if (every_spine_one_rail && nics > 1)
      return invalid_argument_error(
          "every spine serves one rail (a rail-only fabric with spines): not a shape railyard "
          "fits (rail_only is fitted only with one switch per rail)");
  }
  // Pods: SUs joined by spines that take at least half their busiest SU's count.
  std::map<int32_t, std::map<int32_t, int32_t>> spine_su_cables;  // spine -> SU -> cables
  for (int32_t s : spines)
    for (const End& e : adj[static_cast<size_t>(s)])
      if (auto it = su_of_leaf.find(e.peer); it != su_of_leaf.end())
        ++spine_su_cables[s][it->second];
  detail::FitUnion pod_union(sus.size());
  if (tiers == 3) {
    for (auto& [s, per_su] : spine_su_cables) {
      int32_t most = 0;
      for (auto [su, c] : per_su) most = std::max(most, c);
      int32_t first = -1;
      for (auto [su, c] : per_su)
        if (2 * c >= most) {
          if (first < 0)
            first = su;
          else
            pod_union.join(first, su);
        }
    }
  } else {
    for (size_t s = 1; s < sus.size(); ++s) pod_union.join(0, static_cast<int32_t>(s));
  }
  // Order SUs pod by pod (pods by their first SU), the smaller SU last.
  {
    std::vector<int32_t> pod_root(sus.size());
    for (size_t s = 0; s < sus.size(); ++s) pod_root[s] = pod_union.find(static_cast<int32_t>(s));
    int32_t short_pod = -1;
    for (size_t s = 0; s < sus.size(); ++s)
      if (static_cast<int32_t>(sus[s].hosts.size()) < hosts_per_su) short_pod = pod_root[s];
    std::vector<int32_t> order(sus.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      const auto key = [&](int32_t s) {
        const bool is_short =
            static_cast<int32_t>(sus[static_cast<size_t>(s)].hosts.size()) < hosts_per_su;
        return std::tuple{pod_root[static_cast<size_t>(s)] == short_pod,
                          pod_root[static_cast<size_t>(s)], is_short};
      };
      return key(a) < key(b);
    });
    std::vector<Su> sorted;
    std::map<int32_t, int32_t> pod_number;
    for (int32_t s : order) {
      Su su = sus[static_cast<size_t>(s)];
      auto [it, fresh] = pod_number.try_emplace(pod_root[static_cast<size_t>(s)],
                                                static_cast<int32_t>(pod_number.size()));
      su.pod = it->second;
      sorted.push_back(std::move(su));
    }
    sus = std::move(sorted);
    index_leaves();
  }
  const auto pods = static_cast<int32_t>(sus.empty() ? 0 : sus.back().pod + 1);
  int32_t sus_per_pod = static_cast<int32_t>(sus.size());
  if (tiers == 3) {
    std::vector<int32_t> per_pod(static_cast<size_t>(pods), 0);
    for (const Su& su : sus) ++per_pod[static_cast<size_t>(su.pod)];
    sus_per_pod = per_pod[0];
    for (int32_t p = 0; p < pods; ++p)
      if (per_pod[static_cast<size_t>(p)] != sus_per_pod &&
          !(p == pods - 1 && per_pod[static_cast<size_t>(p)] < sus_per_pod))
        return invalid_argument_error(str_cat("pods of different sizes: pod ", p, " has ",
                                              per_pod[static_cast<size_t>(p)],
                                              " leaf groups, pod 0 has ", sus_per_pod));
  }
  // Spines per pod, by name.
  std::vector<std::vector<int32_t>> pod_spines(static_cast<size_t>(std::max(pods, 1)));
  for (int32_t s : spines) {
    std::map<int32_t, int32_t> votes;
    for (auto [su, c] : spine_su_cables[s]) votes[sus[static_cast<size_t>(su)].pod] += c;
    const int32_t pod = votes.empty() ? -1 : fit_argmax(votes);
    if (pod < 0)
      return invalid_argument_error(str_cat("spine ", csv_quoted(name[static_cast<size_t>(s)]),
                                            " has no cable to a leaf of the design"));
    pod_spines[static_cast<size_t>(pod)].push_back(s);
  }
  const int32_t spines_per_pod = spines.empty() ? 0 : static_cast<int32_t>(pod_spines[0].size());
  for (size_t p = 0; p < pod_spines.size() && !spines.empty(); ++p) {
    if (static_cast<int32_t>(pod_spines[p].size()) != spines_per_pod)
      return invalid_argument_error(str_cat("pods with different spine counts: pod ", p, " has ",
                                            pod_spines[p].size(), ", pod 0 has ", spines_per_pod));
    std::sort(pod_spines[p].begin(), pod_spines[p].end(), [&](int32_t a, int32_t b) {
      return natural_less(name[static_cast<size_t>(a)], name[static_cast<size_t>(b)]);
    });
  }
  std::map<int32_t, int32_t> spine_index;  // node -> global spine index
  for (size_t p = 0; p < pod_spines.size(); ++p)
    for (size_t s = 0; s < pod_spines[p].size(); ++s)
      spine_index[pod_spines[p][s]] =
          static_cast<int32_t>(p) * spines_per_pod + static_cast<int32_t>(s);
  // Uplinks per leaf: the most common count of cables to spines.
  auto up_count = [&](int32_t v) {
    int32_t up = 0;
    for (const End& e : adj[static_cast<size_t>(v)]) up += lvl(e.peer) == lvl(v) + 1;
    return up;
  };
  std::vector<int32_t> leaf_ups, spine_ups;
  for (const Su& su : sus)
    for (int32_t l : su.leaves) leaf_ups.push_back(up_count(l));
  for (int32_t s : spines) spine_ups.push_back(up_count(s));
  const int32_t leaf_up = spines.empty() ? 0 : detail::fit_mode(leaf_ups);
  const int32_t spine_up = cores.empty() ? 0 : detail::fit_mode(spine_ups);
  // Core groups: by the spine position most of a core's cables come from.
  std::vector<std::vector<int32_t>> group_cores(static_cast<size_t>(spines_per_pod));
  for (int32_t c : cores) {
    std::map<int32_t, int32_t> votes;
    for (const End& e : adj[static_cast<size_t>(c)])
      if (auto it = spine_index.find(e.peer); it != spine_index.end())
        ++votes[it->second % spines_per_pod];
    if (votes.empty())
      return invalid_argument_error(str_cat("core ", csv_quoted(name[static_cast<size_t>(c)]),
                                            " has no cable to a spine of the design"));
    group_cores[static_cast<size_t>(fit_argmax(votes))].push_back(c);
  }
  const int32_t cores_per_group = cores.empty() ? 0 : static_cast<int32_t>(group_cores[0].size());
  for (size_t g = 0; g < group_cores.size() && !cores.empty(); ++g) {
    if (static_cast<int32_t>(group_cores[g].size()) != cores_per_group)
      return invalid_argument_error(str_cat("core groups of different sizes: spines at position ",
                                            g, " of their pod reach ", group_cores[g].size(),
                                            " cores, those at position 0 reach ", cores_per_group));
    std::sort(group_cores[g].begin(), group_cores[g].end(), [&](int32_t a, int32_t b) {
      return natural_less(name[static_cast<size_t>(a)], name[static_cast<size_t>(b)]);
    });
  }

  // ---- 6. The spec ---------------------------------------------------------------
  ClusterSpec spec = options.base;
  spec.kind = kind;
  spec.hosts = static_cast<int32_t>(hosts.size());
  spec.nics_per_host = nics;
  spec.planes = 1;
  spec.hosts_per_su = hosts_per_su;
  spec.tiers = tiers;
  spec.sus_per_pod = tiers == 3 ? sus_per_pod : 0;
  if (spec.nics_per_host % spec.gpus_per_host != 0 && spec.gpus_per_host % spec.nics_per_host != 0)
    spec.gpus_per_host = nics;
  spec.scale_up = spec.gpus_per_host;
  {
    std::vector<int32_t> speeds;
    for (int32_t h : hosts)
      for (const End& e : adj[static_cast<size_t>(h)])
        if (const int32_t g = cables[static_cast<size_t>(e.cable)].gbps; g > 0) speeds.push_back(g);
    spec.nic_gbps = !speeds.empty()        ? detail::fit_mode(speeds)
                    : options.default_gbps ? options.default_gbps
                                           : options.base.nic_gbps;
  }
  const int64_t leaf_down = rail ? hosts_per_su : int64_t{hosts_per_su} * nics;
  spec.oversub = {1, 1};
  spec.pod_oversub = {1, 1};
  if (tiers >= 2) {
    if (leaf_up == 0)
      return invalid_argument_error("leaves have no cables to spines, yet there are spines");
    if (leaf_up > leaf_down)
      return invalid_argument_error(
          str_cat("leaves have ", leaf_up, " uplinks for ", leaf_down,
                  " host ports: fewer host ports than uplinks is not a design railyard fits"));
    spec.oversub = detail::fit_ratio(leaf_down, leaf_up);
  }
  const int64_t leaves_per_pod = int64_t{sus_per_pod} * (rail ? nics : 1);
  if (tiers == 3) {
    const int64_t spine_down = (leaves_per_pod * leaf_up + spines_per_pod - 1) / spines_per_pod;
    if (spine_up == 0 || spine_up > spine_down)
      return invalid_argument_error(str_cat("spines have ", spine_up, " uplinks for ", spine_down,
                                            " leaf ports: not a design railyard fits"));
    spec.pod_oversub = detail::fit_ratio(spine_down, spine_up);
  }
  auto matches = [&](const ClosShape& c) {
    if (c.leaves_per_su != (rail ? nics : 1) || c.hosts_per_leaf != hosts_per_su) return false;
    if (tiers == 1) return true;
    if (c.leaf_up_ports != leaf_up || c.spines_per_pod != spines_per_pod) return false;
    if (tiers == 2) return true;
    return c.pods == pods && c.spine_up_ports == spine_up && c.cores_per_group == cores_per_group;
  };
  bool found = false;
  for (int32_t radix = 2; radix <= kMaxSwitchRadix && !found; ++radix) {
    spec.switch_radix = radix;
    const ShapeResult r = derive_shape(spec);
    found = r.ok() && matches(r.shape);
  }
  if (!found) {
    // A problem no radix cures (a partial last SU while descriptors refuse one,
    // say) is the descriptor's own message.
    spec.switch_radix = kMaxSwitchRadix;
    if (const ShapeResult any = derive_shape(spec);
        !any.ok() && any.problem != ShapeProblem::kSuExceedsLeafPorts &&
        any.problem != ShapeProblem::kHostExceedsLeafPorts &&
        any.problem != ShapeProblem::kLeafCannotReachSpines &&
        any.problem != ShapeProblem::kSpineRadixExceeded &&
        any.problem != ShapeProblem::kSpineCannotReachCores &&
        any.problem != ShapeProblem::kOneTierSwitchTooSmall)
      return invalid_argument_error(str_cat("the fitted spec (", to_string(kind), ", ", spec.hosts,
                                            " hosts in groups of ", hosts_per_su,
                                            "): ", describe_problem(spec, any)));
    int32_t busiest = 2;
    for (int32_t v = 0; v < n; ++v)
      if (!host[static_cast<size_t>(v)]) busiest = std::max(busiest, static_cast<int32_t>(deg(v)));
    spec.switch_radix = busiest;
    const ShapeResult r = derive_shape(spec);
    std::string at = r.ok() ? str_cat("; at radix ", busiest,
                                      " (the busiest switch's cables) the "
                                      "construction gives ",
                                      r.shape.leaf_up_ports, " uplinks per leaf and ",
                                      r.shape.spines_per_pod, " spines per pod")
                            : str_cat("; at radix ", busiest, ": ", describe_problem(spec, r));
    return invalid_argument_error(
        str_cat("no switch radix gives this fabric's shape (", to_string(kind), ", ", spec.hosts,
                " hosts in groups of ", hosts_per_su, ", ", leaf_up, " uplinks per leaf, ",
                spines_per_pod, " spines per pod",
                tiers == 3 ? str_cat(", ", pods, " pods, ", spine_up, " uplinks per spine, ",
                                     cores_per_group, " cores per group")
                           : std::string(),
                ")", at));
  }
  auto desc = make_descriptor(spec);
  if (!desc.ok())
    return invalid_argument_error(
        str_cat("the fitted spec ", to_spec_string(spec), ": ", message_of(desc.status())));
  const ClusterDescriptor<>& d = *desc;

  // ---- 7. Compare ----------------------------------------------------------------
  CableFit fit{d, {},       nic_names, {}, {}, {}, {}, {}, static_cast<int64_t>(cables.size()),
               0, host_rule};
  const ClosShape& shape = d.shape();
  fit.design_cables =
      int64_t{d.hosts()} * nics + shape.leaf_spine_links() + shape.spine_core_links();
  std::vector<int32_t> host_id_of_node(static_cast<size_t>(n), -1);
  std::vector<int32_t> leaf_index_of_node(static_cast<size_t>(n), -1);
  fit.leaf_names.assign(static_cast<size_t>(shape.total_leaves()), "");
  for (size_t s = 0; s < sus.size(); ++s) {
    for (size_t i = 0; i < sus[s].hosts.size(); ++i) {
      const auto h = static_cast<int32_t>(s) * hosts_per_su + static_cast<int32_t>(i);
      host_id_of_node[static_cast<size_t>(sus[s].hosts[i])] = h;
    }
  }
  fit.host_names.assign(static_cast<size_t>(d.hosts()), "");
  for (int32_t v = 0; v < n; ++v)
    if (host_id_of_node[static_cast<size_t>(v)] >= 0)
      fit.host_names[static_cast<size_t>(host_id_of_node[static_cast<size_t>(v)])] =
          name[static_cast<size_t>(v)];
  for (size_t s = 0; s < sus.size(); ++s) {
    const HostId first{static_cast<int32_t>(s) * hosts_per_su};
    for (size_t r = 0; r < sus[s].leaves.size(); ++r) {
      // Through the descriptor: the leaf of this group's first host on rail r
      // (ToR: its one leaf).
      const SwitchIndex l = d.leaf_of(first, RailId{rail ? static_cast<int32_t>(r) : 0});
      leaf_index_of_node[static_cast<size_t>(sus[s].leaves[r])] = l.value();
      fit.leaf_names[static_cast<size_t>(l.value())] = name[static_cast<size_t>(sus[s].leaves[r])];
    }
  }
  fit.spine_names.assign(static_cast<size_t>(shape.total_spines()), "");
  std::vector<int32_t> spine_node(static_cast<size_t>(shape.total_spines()), -1);
  for (auto [node, index] : spine_index) {
    fit.spine_names[static_cast<size_t>(index)] = name[static_cast<size_t>(node)];
    spine_node[static_cast<size_t>(index)] = node;
  }
  fit.core_names.assign(static_cast<size_t>(shape.total_cores()), "");
  std::vector<int32_t> core_node(static_cast<size_t>(shape.total_cores()), -1);
  for (size_t g = 0; g < group_cores.size(); ++g)
    for (size_t k = 0; k < group_cores[g].size(); ++k) {
      const SwitchIndex c = d.core_index(0, 0, static_cast<int32_t>(g), static_cast<int32_t>(k));
      fit.core_names[static_cast<size_t>(c.value())] = name[static_cast<size_t>(group_cores[g][k])];
      core_node[static_cast<size_t>(c.value())] = group_cores[g][k];
    }

  std::vector<char> used(cables.size(), 0);
  std::vector<CableFinding> missing, miswired, extra, slow;
  auto check_speed = [&](int32_t cable, const CableSlot& slot, std::string lower,
                         std::string upper) {
    const int32_t g = cables[static_cast<size_t>(cable)].gbps;
    if (g > 0 && g < spec.nic_gbps)
      slow.push_back({CableProblem::kSlow, slot, std::move(lower), std::move(upper),
                      cables[static_cast<size_t>(cable)], static_cast<double>(g) / spec.nic_gbps});
  };
  // Host cables, host by host, NIC by NIC.
  std::vector<char> drained(static_cast<size_t>(d.hosts()), 0);
  for (int32_t h = 0; h < d.hosts(); ++h) {
    const int32_t node = id_of.find(fit.host_names[static_cast<size_t>(h)])->second;
    for (int32_t i = 0; i < nics; ++i) {
      const CableSlot slot{LinkTier::kHostLeaf, h, i};
      const SwitchIndex want = d.leaf_of(HostId{h}, RailId{i});
      std::string lower =
          str_cat(fit.host_names[static_cast<size_t>(h)], " ", nic_names[static_cast<size_t>(i)]);
      std::string upper = fit.leaf_names[static_cast<size_t>(want.value())];
      auto [sw, cable] = host_nics[node][static_cast<size_t>(i)];
      if (sw < 0) {
        missing.push_back(
            {CableProblem::kMissing, slot, std::move(lower), std::move(upper), {}, 0});
        drained[static_cast<size_t>(h)] = 1;
        continue;
      }
      used[static_cast<size_t>(cable)] = 1;
      if (leaf_index_of_node[static_cast<size_t>(sw)] != want.value()) {
        miswired.push_back({CableProblem::kMiswired, slot, std::move(lower), std::move(upper),
                            cables[static_cast<size_t>(cable)], 0});
        drained[static_cast<size_t>(h)] = 1;
        continue;
      }
      check_speed(cable, slot, std::move(lower), std::move(upper));
    }
  }
  // Switch uplinks: leaf by leaf (then spine by spine), expected targets in
  // uplink order, matched against the file's cables in the lower switch's port order.
  auto match_uplinks = [&](LinkTier tier, int32_t lower_index, int32_t lower_node, int32_t uplinks,
                           auto&& target_of, const std::vector<std::string>& lower_names,
                           const std::vector<std::string>& upper_names,
                           const std::map<int32_t, int32_t>& upper_index) {
    std::vector<const End*> actual;
    for (const End& e : adj[static_cast<size_t>(lower_node)])
      if (lvl(e.peer) == lvl(lower_node) + 1) actual.push_back(&e);
    auto port_name = [&](const End* e) -> const std::string& {
      const Cable& c = cables[static_cast<size_t>(e->cable)];
      return ends[static_cast<size_t>(e->cable)].first == lower_node ? c.a.port : c.b.port;
    };
    std::stable_sort(actual.begin(), actual.end(), [&](const End* a, const End* b) {
      return natural_less(port_name(a), port_name(b));
    });
    std::vector<char> taken(actual.size(), 0);
    std::vector<char> done(static_cast<size_t>(uplinks), 0);
    std::vector<int32_t> unmatched;
    auto goes_to = [&](size_t a, int32_t want) {
      auto it = upper_index.find(actual[a]->peer);
      return it != upper_index.end() && it->second == want;
    };
    // First the cable at the uplink's own position in port order, so that of
    // two cables to one switch the one out of place is reported.
    for (int32_t j = 0; j < uplinks && static_cast<size_t>(j) < actual.size(); ++j)
      if (goes_to(static_cast<size_t>(j), target_of(j))) {
        taken[static_cast<size_t>(j)] = 1;
        done[static_cast<size_t>(j)] = 1;
        used[static_cast<size_t>(actual[static_cast<size_t>(j)]->cable)] = 1;
        check_speed(actual[static_cast<size_t>(j)]->cable, {tier, lower_index, j},
                    str_cat(lower_names[static_cast<size_t>(lower_index)], " uplink ", j),
                    upper_names[static_cast<size_t>(target_of(j))]);
      }
    for (int32_t j = 0; j < uplinks; ++j) {
      if (done[static_cast<size_t>(j)]) continue;
      const int32_t want = target_of(j);
      bool hit = false;
      for (size_t a = 0; a < actual.size() && !hit; ++a) {
        if (taken[a] || !goes_to(a, want)) continue;
        taken[a] = 1;
        hit = true;
        used[static_cast<size_t>(actual[a]->cable)] = 1;
        check_speed(actual[a]->cable, {tier, lower_index, j},
                    str_cat(lower_names[static_cast<size_t>(lower_index)], " uplink ", j),
                    upper_names[static_cast<size_t>(want)]);
      }
      if (!hit) unmatched.push_back(j);
    }
    size_t next = 0;
    for (size_t a = 0; a < actual.size(); ++a) {
      if (taken[a]) continue;
      used[static_cast<size_t>(actual[a]->cable)] = 1;
      const Cable& c = cables[static_cast<size_t>(actual[a]->cable)];
      if (next < unmatched.size()) {
        const int32_t j = unmatched[next++];
        miswired.push_back({CableProblem::kMiswired,
                            {tier, lower_index, j},
                            str_cat(lower_names[static_cast<size_t>(lower_index)], " uplink ", j),
                            upper_names[static_cast<size_t>(target_of(j))],
                            c,
                            0});
      } else {
        extra.push_back({CableProblem::kExtra, {}, "", "", c, 0});
      }
    }
    for (; next < unmatched.size(); ++next) {
      const int32_t j = unmatched[next];
      missing.push_back({CableProblem::kMissing,
                         {tier, lower_index, j},
                         str_cat(lower_names[static_cast<size_t>(lower_index)], " uplink ", j),
                         upper_names[static_cast<size_t>(target_of(j))],
                         {},
                         0});
    }
  };
  std::vector<int32_t> leaf_node(static_cast<size_t>(shape.total_leaves()), -1);
  for (int32_t v = 0; v < n; ++v)
    if (leaf_index_of_node[static_cast<size_t>(v)] >= 0)
      leaf_node[static_cast<size_t>(leaf_index_of_node[static_cast<size_t>(v)])] = v;
  for (int32_t l = 0; l < shape.total_leaves() && shape.leaf_up_ports > 0; ++l)
    match_uplinks(
        LinkTier::kLeafSpine, l, leaf_node[static_cast<size_t>(l)], shape.leaf_up_ports,
        [&](int32_t j) { return d.spine_above(SwitchIndex{l}, j).value(); }, fit.leaf_names,
        fit.spine_names, spine_index);
  std::map<int32_t, int32_t> core_index;
  for (size_t c = 0; c < core_node.size(); ++c) core_index[core_node[c]] = static_cast<int32_t>(c);
  for (int32_t s = 0; s < shape.total_spines() && shape.spine_up_ports > 0; ++s)
    match_uplinks(
        LinkTier::kSpineCore, s, spine_node[static_cast<size_t>(s)], shape.spine_up_ports,
        [&](int32_t k) { return d.core_above(SwitchIndex{s}, k).value(); }, fit.spine_names,
        fit.core_names, core_index);
  for (size_t c = 0; c < cables.size(); ++c)
    if (!used[c]) extra.push_back({CableProblem::kExtra, {}, "", "", cables[c], 0});
  for (auto* part : {&missing, &miswired, &extra, &slow})
    for (CableFinding& f : *part) fit.findings.push_back(std::move(f));
  for (int32_t h = 0; h < d.hosts(); ++h)
    if (drained[static_cast<size_t>(h)]) fit.drained.push_back(HostId{h});
  return fit;
}

}  // namespace railyard::topology
