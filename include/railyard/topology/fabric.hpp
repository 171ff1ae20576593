// railyard/topology/fabric.hpp — the explicit fabric graph.
//
// Any descriptor materializes into a Fabric: GPU, NIC-port, NVLink-switch and
// leaf/spine/core switch nodes, joined by directed links with capacity, latency,
// medium and tier. Topologies read from files (SLURM topology.conf, ...) are built
// with FabricBuilder into the same structure. Storage is index-based
// structure-of-arrays with a CSR out-edge index, so a 131,072-GPU fabric is a few
// tens of MB.
//
//   auto spec = railyard::topology::parse_cluster("h100-1024");
//   auto desc = railyard::topology::make_descriptor(*spec);
//   railyard::topology::Fabric fabric = railyard::topology::materialize(*desc);
//   railyard::NodeId a = fabric.nic_port({railyard::HostId{0}, railyard::NicIndex{0}});
//   railyard::NodeId b = fabric.nic_port({railyard::HostId{40}, railyard::NicIndex{0}});
//   fabric.for_each_path(a, b, [&](const railyard::topology::Path& p) { ... });
//
//   railyard::topology::FailureOverlay failures(fabric);
//   failures.set_cable_down(fabric.leaf_uplink(railyard::SwitchIndex{0}, 0));
//   int64_t left = fabric.count_paths(a, b, &failures);
//
// Every cable is two directed links with consecutive ids: 2c goes up (towards the
// core) and 2c+1 comes down, so reverse(l) == l ^ 1.
//
// Node levels for up/down routing: GPUs, NIC ports and NVLink switches are level
// 0; leaves 1, spines 2, cores 3. A path between two NIC ports climbs to the
// lowest level at which the two sides meet (over working links) and descends.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::topology {

enum class NodeKind : uint8_t { kGpu, kNicPort, kNvSwitch, kLeaf, kSpine, kCore };
inline constexpr std::string_view kNodeKindNames[6] = {"gpu",  "nic",   "nvswitch",
                                                       "leaf", "spine", "core"};

// Highest routing level a fabric may have (core = 3).
inline constexpr int kMaxLevel = 3;
// Longest up/down path: NIC -> leaf -> spine -> core -> spine -> leaf -> NIC.
inline constexpr int kMaxPathHops = 2 * kMaxLevel;

// One up/down path as its directed links, source first.
struct Path {
  std::array<LinkId, kMaxPathHops> links{};
  int8_t hops = 0;

  [[nodiscard]] std::span<const LinkId> view() const { return {links.data(), size_t(hops)}; }
  void push(LinkId l) { links[static_cast<size_t>(hops++)] = l; }
  friend bool operator==(const Path& a, const Path& b) {
    return std::equal(a.view().begin(), a.view().end(), b.view().begin(), b.view().end());
  }
};

class FailureOverlay;

class Fabric {
 public:
  Fabric() = default;

  [[nodiscard]] int32_t node_count() const { return static_cast<int32_t>(node_kind_.size()); }
  [[nodiscard]] int32_t link_count() const { return static_cast<int32_t>(link_src_.size()); }

  [[nodiscard]] NodeKind kind(NodeId n) const { return node_kind_[idx(n)]; }
  [[nodiscard]] int level(NodeId n) const { return node_level_[idx(n)]; }
  // Host id (GPU, NIC port), domain id (NVLink switch) or switch index in its tier.
  [[nodiscard]] int32_t owner(NodeId n) const { return node_owner_[idx(n)]; }

  [[nodiscard]] NodeId src(LinkId l) const { return link_src_[idx(l)]; }
  [[nodiscard]] NodeId dst(LinkId l) const { return link_dst_[idx(l)]; }
  [[nodiscard]] double capacity_gbps(LinkId l) const { return link_capacity_gbps_[idx(l)]; }
  [[nodiscard]] double latency_ns(LinkId l) const { return link_latency_ns_[idx(l)]; }
  [[nodiscard]] LinkTier tier(LinkId l) const { return link_tier_[idx(l)]; }
  [[nodiscard]] Medium medium(LinkId l) const { return link_medium_[idx(l)]; }
  [[nodiscard]] static LinkId reverse(LinkId l) { return LinkId{l.value() ^ 1}; }
  [[nodiscard]] static bool is_up(LinkId l) { return (l.value() & 1) == 0; }

  // Links leaving `n`, in increasing link id.
  [[nodiscard]] std::span<const LinkId> out_links(NodeId n) const {
    const auto b = static_cast<size_t>(out_begin_[idx(n)]);
    const auto e = static_cast<size_t>(out_begin_[idx(n) + 1]);
    return {out_links_.data() + b, e - b};
  }

  // The name a builder gave the node, else a readable, stable generated name
  // such as "host12.gpu3", "host12.nic3.p0", "leaf17", "spine3", "core0", "nvl5".
  [[nodiscard]] std::string node_name(NodeId n) const;

  // Gives node `n` the name node_name() returns from now on (an imported
  // fabric's switch and port names on a materialized graph).
  void set_node_name(NodeId n, std::string name) {
    if (node_names_.empty()) node_names_.resize(node_kind_.size());
    node_names_[idx(n)] = std::move(name);
  }

  // Closed-form lookups; only for a Fabric built by materialize().
  [[nodiscard]] bool has_descriptor() const { return descriptor_.has_value(); }
  [[nodiscard]] const ClusterDescriptor<>& descriptor() const { return *descriptor_; }
  [[nodiscard]] NodeId gpu(HostId h, GpuIndex g) const;
  [[nodiscard]] NodeId nic_port(NicPort p) const;
  [[nodiscard]] NodeId leaf(SwitchIndex i) const { return NodeId{base_leaf_ + i.value()}; }
  [[nodiscard]] NodeId spine(SwitchIndex i) const { return NodeId{base_spine_ + i.value()}; }
  [[nodiscard]] NodeId core(SwitchIndex i) const { return NodeId{base_core_ + i.value()}; }
  // Up link of the cable from a NIC port to its leaf; of leaf uplink j; of
  // spine uplink k (global switch indices).
  [[nodiscard]] LinkId host_uplink(NicPort p) const;
  [[nodiscard]] LinkId leaf_uplink(SwitchIndex leaf, int32_t j) const;
  [[nodiscard]] LinkId spine_uplink(SwitchIndex spine, int32_t k) const;
  // The links of a descriptor route between two NIC ports.
  [[nodiscard]] Path route_links(NicPort a, NicPort b, const Route& r) const;

  // Up/down paths between two NIC ports (or, in imported fabrics, any two nodes
  // of the same level), over links the overlay (if any) does not mark down.
  // GPUs have no path: they reach the network through their NIC port.
  // for_each_path calls f(const Path&) in a fixed order.
  [[nodiscard]] int64_t count_paths(NodeId a, NodeId b,
                                    const FailureOverlay* failures = nullptr) const;
  template <class F>
  void for_each_path(NodeId a, NodeId b, F&& f, const FailureOverlay* failures = nullptr) const;
  [[nodiscard]] std::vector<Path> paths(NodeId a, NodeId b,
                                        const FailureOverlay* failures = nullptr) const {
    std::vector<Path> out;
    for_each_path(
        a, b, [&](const Path& p) { out.push_back(p); }, failures);
    return out;
  }

  // Approximate heap bytes held (for the memory benchmark and reports).
  [[nodiscard]] size_t memory_bytes() const;

 private:
  friend class FabricBuilder;
  friend Fabric materialize(const ClusterDescriptor<>& d);

  static size_t idx(NodeId n) { return static_cast<size_t>(n.value()); }
  static size_t idx(LinkId l) { return static_cast<size_t>(l.value()); }

  // Per level, (node, number of partial paths) sorted by node.
  using Frontier = std::vector<std::pair<int32_t, int64_t>>;
  struct Meeting {
    int level = -1;
    std::array<Frontier, kMaxLevel + 1> up;    // reachable from a going up
    std::array<Frontier, kMaxLevel + 1> down;  // can reach b going down
  };
  [[nodiscard]] Meeting meet(NodeId a, NodeId b, const FailureOverlay* failures) const;
  [[nodiscard]] bool usable(LinkId l, const FailureOverlay* failures) const;
  [[nodiscard]] static int64_t lookup(const Frontier& f, int32_t node) {
    auto it = std::lower_bound(f.begin(), f.end(), std::pair<int32_t, int64_t>{node, 0});
    return it != f.end() && it->first == node ? it->second : 0;
  }

  std::vector<NodeKind> node_kind_;
  std::vector<uint8_t> node_level_;
  std::vector<int32_t> node_owner_;
  std::vector<NodeId> link_src_;
  std::vector<NodeId> link_dst_;
  std::vector<float> link_capacity_gbps_;
  std::vector<float> link_latency_ns_;
  std::vector<LinkTier> link_tier_;
  std::vector<Medium> link_medium_;
  std::vector<int32_t> out_begin_;
  std::vector<LinkId> out_links_;
  std::vector<std::string> node_names_;  // empty unless a builder named nodes

  std::optional<ClusterDescriptor<>> descriptor_;
  int32_t base_nic_ = 0, base_nvswitch_ = 0, base_leaf_ = 0, base_spine_ = 0, base_core_ = 0;
  int32_t cable_nvlink_ = 0, cable_host_leaf_ = 0, cable_leaf_spine_ = 0, cable_spine_core_ = 0;
};

// Link states layered over a Fabric without changing it: a link is up (fraction
// 1), degraded (0 < fraction < 1 of its capacity) or down (0). Plans take an
// overlay so that one Fabric serves many failure scenarios.
class FailureOverlay {
 public:
  explicit FailureOverlay(const Fabric& fabric) : fabric_(&fabric) {}

  void set_link_fraction(LinkId l, double fraction) {
    if (fraction_.empty()) fraction_.assign(static_cast<size_t>(fabric_->link_count()), 1.0f);
    fraction_[static_cast<size_t>(l.value())] = static_cast<float>(std::clamp(fraction, 0.0, 1.0));
  }
  // Both directions of the cable containing `l`.
  void set_cable_fraction(LinkId l, double fraction) {
    set_link_fraction(l, fraction);
    set_link_fraction(Fabric::reverse(l), fraction);
  }
  void set_cable_down(LinkId l) { set_cable_fraction(l, 0.0); }
  void set_link_down(LinkId l) { set_link_fraction(l, 0.0); }
  // Every cable attached to a switch (a switch failure).
  void set_node_down(NodeId n) {
    for (LinkId l : fabric_->out_links(n)) set_cable_down(l);
  }
  void clear() { fraction_.clear(); }

  [[nodiscard]] double fraction(LinkId l) const {
    return fraction_.empty() ? 1.0 : fraction_[static_cast<size_t>(l.value())];
  }
  [[nodiscard]] bool is_down(LinkId l) const { return fraction(l) <= 0.0; }
  [[nodiscard]] double capacity_gbps(LinkId l) const {
    return fabric_->capacity_gbps(l) * fraction(l);
  }
  [[nodiscard]] int64_t down_links() const {
    return std::count(fraction_.begin(), fraction_.end(), 0.0f);
  }
  [[nodiscard]] const Fabric& fabric() const { return *fabric_; }

 private:
  const Fabric* fabric_;
  std::vector<float> fraction_;  // empty = every link healthy
};

// Builds arbitrary fabrics (imported files, tests). Nodes and cables get ids in
// the order added; build() sorts the out-edge index.
class FabricBuilder {
 public:
  void reserve(size_t nodes, size_t cables) {
    f_.node_kind_.reserve(nodes);
    f_.node_level_.reserve(nodes);
    f_.node_owner_.reserve(nodes);
    for (auto* v : {&f_.link_src_, &f_.link_dst_}) v->reserve(2 * cables);
    f_.link_capacity_gbps_.reserve(2 * cables);
    f_.link_latency_ns_.reserve(2 * cables);
    f_.link_tier_.reserve(2 * cables);
    f_.link_medium_.reserve(2 * cables);
  }
  NodeId add_node(NodeKind kind, int32_t owner) {
    static constexpr uint8_t kLevel[6] = {0, 0, 0, 1, 2, 3};
    f_.node_kind_.push_back(kind);
    f_.node_level_.push_back(kLevel[static_cast<size_t>(kind)]);
    f_.node_owner_.push_back(owner);
    if (!f_.node_names_.empty()) f_.node_names_.emplace_back();
    return NodeId{static_cast<int32_t>(f_.node_kind_.size() - 1)};
  }
  // A node with an explicit name (imported topologies keep their switch and
  // host names); node_name() returns it.
  NodeId add_named_node(NodeKind kind, int32_t owner, std::string name) {
    const NodeId id = add_node(kind, owner);
    f_.node_names_.resize(f_.node_kind_.size());  // first named node: names for all so far
    f_.node_names_.back() = std::move(name);
    return id;
  }
  // A cable between `lower` and `upper`; returns the up link (lower -> upper).
  LinkId add_cable(NodeId lower, NodeId upper, LinkTier tier, double capacity_gbps,
                   double latency_ns, Medium medium) {
    const auto up = static_cast<int32_t>(f_.link_src_.size());
    for (auto [s, d] : {std::pair{lower, upper}, std::pair{upper, lower}}) {
      f_.link_src_.push_back(s);
      f_.link_dst_.push_back(d);
      f_.link_capacity_gbps_.push_back(static_cast<float>(capacity_gbps));
      f_.link_latency_ns_.push_back(static_cast<float>(latency_ns));
      f_.link_tier_.push_back(tier);
      f_.link_medium_.push_back(medium);
    }
    return LinkId{up};
  }
  // Finishes the CSR index (a stable counting sort by source: O(nodes + links)).
  [[nodiscard]] Fabric build() && {
    const size_t n = f_.node_kind_.size();
    f_.out_begin_.assign(n + 1, 0);
    for (NodeId s : f_.link_src_) ++f_.out_begin_[static_cast<size_t>(s.value()) + 1];
    for (size_t i = 0; i < n; ++i) f_.out_begin_[i + 1] += f_.out_begin_[i];
    f_.out_links_.resize(f_.link_src_.size());
    std::vector<int32_t> cursor(f_.out_begin_.begin(), f_.out_begin_.end() - 1);
    for (size_t l = 0; l < f_.link_src_.size(); ++l)
      f_.out_links_[static_cast<size_t>(cursor[static_cast<size_t>(f_.link_src_[l].value())]++)] =
          LinkId{static_cast<int32_t>(l)};
    return std::move(f_);
  }

 private:
  friend Fabric materialize(const ClusterDescriptor<>& d);
  Fabric f_;
};

// ---- materialization -------------------------------------------------------

// Builds the explicit graph of a descriptor. Node and cable ids follow a fixed
// closed-form order (see the lookups above). O(nodes + links).
inline Fabric materialize(const ClusterDescriptor<>& d) {
  const ClosShape& c = d.shape();
  const int64_t hosts = d.hosts();
  const int64_t gpus = d.gpus_per_host();
  const int64_t nics = d.nics_per_host();
  const int64_t planes = d.planes();
  const int64_t ports = hosts * nics * planes;
  const int64_t domains = hosts / c.hosts_per_domain;
  const int64_t leaves = c.total_leaves();
  const int64_t spines = c.total_spines();
  const int64_t cores = c.total_cores();
  // PCIe: one cable per (GPU, port of its NIC) when GPUs outnumber NICs, else one
  // per NIC port to the GPU it serves.
  const int64_t pcie = hosts * std::max(gpus, nics) * planes;
  const int64_t cables = pcie + hosts * gpus + ports + c.leaf_spine_links() + c.spine_core_links();

  FabricBuilder b;
  b.reserve(static_cast<size_t>(hosts * gpus + ports + domains + leaves + spines + cores),
            static_cast<size_t>(cables));
  Fabric& f = b.f_;
  f.base_nic_ = static_cast<int32_t>(hosts * gpus);
  f.base_nvswitch_ = static_cast<int32_t>(f.base_nic_ + ports);
  f.base_leaf_ = static_cast<int32_t>(f.base_nvswitch_ + domains);
  f.base_spine_ = static_cast<int32_t>(f.base_leaf_ + leaves);
  f.base_core_ = static_cast<int32_t>(f.base_spine_ + spines);
  for (int64_t h = 0; h < hosts; ++h)
    for (int64_t g = 0; g < gpus; ++g) b.add_node(NodeKind::kGpu, static_cast<int32_t>(h));
  for (int64_t h = 0; h < hosts; ++h)
    for (int64_t p = 0; p < nics * planes; ++p)
      b.add_node(NodeKind::kNicPort, static_cast<int32_t>(h));
  for (int64_t i = 0; i < domains; ++i) b.add_node(NodeKind::kNvSwitch, static_cast<int32_t>(i));
  for (int64_t i = 0; i < leaves; ++i) b.add_node(NodeKind::kLeaf, static_cast<int32_t>(i));
  for (int64_t i = 0; i < spines; ++i) b.add_node(NodeKind::kSpine, static_cast<int32_t>(i));
  for (int64_t i = 0; i < cores; ++i) b.add_node(NodeKind::kCore, static_cast<int32_t>(i));

  auto add_tier = [&](NodeId lower, NodeId upper, LinkTier tier) {
    b.add_cable(lower, upper, tier, d.capacity_gbps(tier), d.latency_ns(tier), d.medium(tier));
  };
  // Cables in closed-form order: PCIe, NVLink, host-leaf, leaf-spine, spine-core.
  auto nic_port_node = [&](int64_t h, int64_t n, int64_t p) {
    return NodeId{static_cast<int32_t>(f.base_nic_ + (h * nics + n) * planes + p)};
  };
  for (int32_t h = 0; h < hosts; ++h) {
    if (gpus > nics) {
      for (int32_t g = 0; g < gpus; ++g)
        for (int32_t p = 0; p < planes; ++p)
          add_tier(NodeId{static_cast<int32_t>(h * gpus + g)},
                   nic_port_node(h, d.nic_of_gpu(GpuIndex{g}).value(), p), LinkTier::kPcie);
    } else {
      for (int32_t n = 0; n < nics; ++n)
        for (int32_t p = 0; p < planes; ++p)
          add_tier(NodeId{static_cast<int32_t>(h * gpus + d.gpu_of_nic(NicIndex{n}).value())},
                   nic_port_node(h, n, p), LinkTier::kPcie);
    }
  }
  f.cable_nvlink_ = static_cast<int32_t>(pcie);
  for (int32_t h = 0; h < hosts; ++h)
    for (int32_t g = 0; g < gpus; ++g)
      add_tier(NodeId{static_cast<int32_t>(h * gpus + g)},
               NodeId{f.base_nvswitch_ + d.domain_of(HostId{h})}, LinkTier::kNvlink);
  f.cable_host_leaf_ = static_cast<int32_t>(pcie + hosts * gpus);
  for (int32_t h = 0; h < hosts; ++h)
    for (int32_t n = 0; n < nics; ++n)
      for (int32_t p = 0; p < planes; ++p)
        add_tier(NodeId{static_cast<int32_t>(f.base_nic_ + (h * nics + n) * planes + p)},
                 f.leaf(d.leaf_of(HostId{h}, RailId{n}, PlaneId{p})), LinkTier::kHostLeaf);
  f.cable_leaf_spine_ = static_cast<int32_t>(f.cable_host_leaf_ + ports);
  for (int32_t l = 0; l < leaves; ++l)
    for (int32_t j = 0; j < c.leaf_up_ports; ++j)
      add_tier(f.leaf(SwitchIndex{l}), f.spine(d.spine_above(SwitchIndex{l}, j)),
               LinkTier::kLeafSpine);
  f.cable_spine_core_ = static_cast<int32_t>(f.cable_leaf_spine_ + c.leaf_spine_links());
  for (int32_t s = 0; s < spines; ++s)
    for (int32_t k = 0; k < c.spine_up_ports; ++k)
      add_tier(f.spine(SwitchIndex{s}), f.core(d.core_above(SwitchIndex{s}, k)),
               LinkTier::kSpineCore);
  f.descriptor_ = d;
  return std::move(b).build();
}

// ---- Fabric member definitions ----------------------------------------------

inline std::string Fabric::node_name(NodeId n) const {
  if (!node_names_.empty() && !node_names_[idx(n)].empty()) return node_names_[idx(n)];
  const int32_t owner = node_owner_[idx(n)];
  switch (kind(n)) {
    case NodeKind::kGpu: {
      if (!descriptor_) return str_cat("gpu", n.value());
      return str_cat("host", owner, ".gpu", n.value() % descriptor_->gpus_per_host());
    }
    case NodeKind::kNicPort: {
      if (!descriptor_) return str_cat("nic", n.value());
      const int32_t per_host = descriptor_->nics_per_host() * descriptor_->planes();
      const int32_t local = (n.value() - base_nic_) % per_host;
      return str_cat("host", owner, ".nic", local / descriptor_->planes(), ".p",
                     local % descriptor_->planes());
    }
    case NodeKind::kNvSwitch:
      return str_cat("nvl", owner);
    case NodeKind::kLeaf:
      return str_cat("leaf", owner);
    case NodeKind::kSpine:
      return str_cat("spine", owner);
    case NodeKind::kCore:
      return str_cat("core", owner);
  }
  return str_cat("node", n.value());
}

inline NodeId Fabric::gpu(HostId h, GpuIndex g) const {
  return NodeId{h.value() * descriptor_->gpus_per_host() + g.value()};
}
inline NodeId Fabric::nic_port(NicPort p) const {
  const ClusterDescriptor<>& d = *descriptor_;
  return NodeId{base_nic_ + (p.host.value() * d.nics_per_host() + p.nic.value()) * d.planes() +
                p.plane.value()};
}
inline LinkId Fabric::host_uplink(NicPort p) const {
  return LinkId{2 * (cable_host_leaf_ + nic_port(p).value() - base_nic_)};
}
inline LinkId Fabric::leaf_uplink(SwitchIndex leaf, int32_t j) const {
  return LinkId{2 * (cable_leaf_spine_ + leaf.value() * descriptor_->shape().leaf_up_ports + j)};
}
inline LinkId Fabric::spine_uplink(SwitchIndex spine, int32_t k) const {
  return LinkId{2 * (cable_spine_core_ + spine.value() * descriptor_->shape().spine_up_ports + k)};
}

inline Path Fabric::route_links(NicPort a, NicPort b, const Route& r) const {
  const ClusterDescriptor<>& d = *descriptor_;
  Path p;
  p.push(host_uplink(a));
  const SwitchIndex la = d.leaf_of(a);
  const SwitchIndex lb = d.leaf_of(b);
  if (r.top >= 2) p.push(leaf_uplink(la, r.src_leaf_uplink));
  if (r.top == 3) {
    p.push(spine_uplink(d.spine_above(la, r.src_leaf_uplink), r.src_spine_uplink));
    p.push(reverse(spine_uplink(d.spine_above(lb, r.dst_leaf_uplink), r.dst_spine_uplink)));
  }
  if (r.top >= 2) p.push(reverse(leaf_uplink(lb, r.dst_leaf_uplink)));
  p.push(reverse(host_uplink(b)));
  return p;
}

inline bool Fabric::usable(LinkId l, const FailureOverlay* failures) const {
  return failures == nullptr || !failures->is_down(l);
}

inline Fabric::Meeting Fabric::meet(NodeId a, NodeId b, const FailureOverlay* failures) const {
  Meeting m;
  const int start = level(a);
  if (level(b) != start) return m;
  m.up[static_cast<size_t>(start)] = {{a.value(), 1}};
  m.down[static_cast<size_t>(start)] = {{b.value(), 1}};
  // Climb one level on both sides at a time; the up side needs the up link
  // usable, the down side needs the link that will be taken downwards usable.
  auto climb = [&](const Frontier& from, Frontier& to, bool downward) {
    for (auto [node, count] : from)
      for (LinkId l : out_links(NodeId{node})) {
        const NodeId next = dst(l);
        if (level(next) != level(NodeId{node}) + 1) continue;
        if (!usable(downward ? reverse(l) : l, failures)) continue;
        to.emplace_back(next.value(), count);
      }
    std::sort(to.begin(), to.end());
    size_t w = 0;
    for (size_t i = 0; i < to.size(); ++i) {
      if (w > 0 && to[w - 1].first == to[i].first)
        to[w - 1].second += to[i].second;
      else
        to[w++] = to[i];
    }
    to.resize(w);
  };
  for (int lv = start + 1; lv <= kMaxLevel; ++lv) {
    climb(m.up[lv - 1], m.up[lv], false);
    climb(m.down[lv - 1], m.down[lv], true);
    for (auto [node, count] : m.up[lv])
      if (lookup(m.down[lv], node) > 0) {
        m.level = lv;
        return m;
      }
    if (m.up[lv].empty() || m.down[lv].empty()) break;
  }
  return m;
}

inline int64_t Fabric::count_paths(NodeId a, NodeId b, const FailureOverlay* failures) const {
  if (a == b) return 0;
  const Meeting m = meet(a, b, failures);
  if (m.level < 0) return 0;
  int64_t total = 0;
  for (auto [node, count] : m.up[m.level]) total += count * lookup(m.down[m.level], node);
  return total;
}

template <class F>
void Fabric::for_each_path(NodeId a, NodeId b, F&& f, const FailureOverlay* failures) const {
  if (a == b) return;
  const Meeting m = meet(a, b, failures);
  if (m.level < 0) return;
  Path path;
  // Descend from `node` (at level lv) towards b through nodes that reach b.
  const int bottom = level(b);
  auto descend = [&](auto& self, NodeId node, int lv) -> void {
    if (lv == bottom) {
      if (node == b) f(static_cast<const Path&>(path));
      return;
    }
    for (LinkId l : out_links(node)) {
      const NodeId next = dst(l);
      if (level(next) != lv - 1 || !usable(l, failures)) continue;
      if (lookup(m.down[static_cast<size_t>(lv - 1)], next.value()) == 0) continue;
      path.push(l);
      self(self, next, lv - 1);
      --path.hops;
    }
  };
  // Climb from `node` (level lv) towards the meeting level through nodes that
  // are reachable from a and still able to reach the meeting set.
  auto climb = [&](auto& self, NodeId node, int lv) -> void {
    if (lv == m.level) {
      if (lookup(m.down[static_cast<size_t>(lv)], node.value()) > 0) descend(descend, node, lv);
      return;
    }
    for (LinkId l : out_links(node)) {
      const NodeId next = dst(l);
      if (level(next) != lv + 1 || !usable(l, failures)) continue;
      path.push(l);
      self(self, next, lv + 1);
      --path.hops;
    }
  };
  climb(climb, a, level(a));
}

inline size_t Fabric::memory_bytes() const {
  auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  return bytes(node_kind_) + bytes(node_level_) + bytes(node_owner_) + bytes(link_src_) +
         bytes(link_dst_) + bytes(link_capacity_gbps_) + bytes(link_latency_ns_) +
         bytes(link_tier_) + bytes(link_medium_) + bytes(out_begin_) + bytes(out_links_) +
         bytes(node_names_);
}

}  // namespace railyard::topology
