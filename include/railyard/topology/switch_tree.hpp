// railyard/topology/switch_tree.hpp — the switch hierarchy a scheduler sees: named
// switches by level, each leaf-level switch with its hosts. SLURM's topology
// files and Kubernetes topology labels are written from a SwitchTree, and
// imported files are turned back into one, so every exporter serves clusters
// described by a spec and clusters read from files alike.
//
//   auto namer = railyard::topology::NodeNamer::parse(railyard::topology::kDefaultNodePattern);
//   auto tree = railyard::topology::switch_tree(descriptor, *namer);
//   for (const auto& sw : tree->switches)
//     if (sw.level == 1) std::cout << sw.name << ": " << sw.hosts.size() << " hosts\n";
//
// How a descriptor maps to a tree (schedulers need each host under exactly one
// leaf-level switch, so parallel rail and plane leaves are grouped):
// * rail_fat_tree, rail_only: one leaf-level switch per SU, named `su<N>`: the 8
//   rail leaves (and every plane) of an SU serve the same hosts. Slurm warns about
//   hosts under several leaf switches (docs/constants.md#schedulers), and an SU is where jobs keep
//   their traffic one hop away.
// * tor_fat_tree: one leaf-level switch per top-of-rack leaf, `leaf<N>` (N = the
//   plane-0 leaf index); the planes' copies serve the same hosts.
// * tiers=2: one level-2 switch `spine` above every leaf-level switch.
// * tiers=3: one level-2 switch per pod, `pod<N>`, and one level-3 `core` above.
// * A cluster with a single leaf-level switch has no upper level.
// * A partial last SU (shape.hpp) has fewer hosts under its switch; a
//   tor_fat_tree leaf past its last host holds none and is left out (a scheduler
//   switch must have nodes or children), so leaf names can skip numbers there.
//   A partial last pod has fewer children.
// Numbers are zero-padded to the widest, so names sort in topology order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/node_names.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::topology {

struct SwitchTree {
  struct Switch {
    std::string name;
    int level = 1;                  // 1 = leaf level (holds hosts), then upwards
    std::vector<int32_t> children;  // indices into `switches` (one level down), ascending
    std::vector<int32_t> hosts;     // host indices (leaf level only), ascending
    friend bool operator==(const Switch&, const Switch&) = default;
  };
  std::vector<std::string> hosts;  // host names, by host index
  std::vector<Switch> switches;    // by level, then in topology order

  [[nodiscard]] int top_level() const { return switches.empty() ? 0 : switches.back().level; }
  friend bool operator==(const SwitchTree&, const SwitchTree&) = default;
};

// `prefix` followed by n zero-padded to the digit count of `count - 1`.
RAILYARD_LAZY
std::string padded_name(std::string_view prefix, int64_t n, int64_t count) {
  std::string digits = str_cat(n);
  const size_t width = str_cat(count > 0 ? count - 1 : 0).size();
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return str_cat(prefix, digits);
}

// The scheduler's view of a descriptor's cluster (rules above). Fails only when
// `namer` gives two hosts the same name.
RAILYARD_LAZY
[[nodiscard]] StatusOr<SwitchTree> switch_tree(const topology::ClusterDescriptor<>& d,
                                                     const NodeNamer& namer) {
  RAILYARD_RETURN_IF_ERROR(namer.check(d));
  SwitchTree tree;
  tree.hosts = namer.names(d);
  const topology::ClosShape& c = d.shape();
  const bool tor = d.kind() == topology::Kind::kTorFatTree;
  const int64_t groups = tor ? int64_t{c.sus} * c.leaves_per_su : c.sus;
  const int32_t hosts_per_group = tor ? c.hosts_per_leaf : d.hosts_per_su();
  std::vector<int32_t> pod_of_switch;  // per leaf-level switch
  for (int64_t g = 0; g < groups; ++g) {
    // Groups are consecutive hosts; in a partial SU the last ones end early or hold none.
    const int64_t first = g * hosts_per_group;
    const int64_t end = std::min<int64_t>(first + hosts_per_group, d.hosts());
    if (first >= end) continue;
    SwitchTree::Switch leaf;
    leaf.name = padded_name(tor ? "leaf" : "su", g, groups);
    for (int64_t h = first; h < end; ++h) leaf.hosts.push_back(static_cast<int32_t>(h));
    tree.switches.push_back(std::move(leaf));
    const int64_t su = tor ? g / c.leaves_per_su : g;
    pod_of_switch.push_back(static_cast<int32_t>(su / c.sus_per_pod));
  }
  const auto leaf_count = static_cast<int32_t>(tree.switches.size());
  if (leaf_count == 1) return tree;
  if (d.tiers() == 2) {
    SwitchTree::Switch spine{"spine", 2, {}, {}};
    for (int32_t g = 0; g < leaf_count; ++g) spine.children.push_back(g);
    tree.switches.push_back(std::move(spine));
    return tree;
  }
  std::vector<SwitchTree::Switch> pods;
  for (int32_t p = 0; p < c.pods; ++p) pods.push_back({padded_name("pod", p, c.pods), 2, {}, {}});
  for (int32_t g = 0; g < leaf_count; ++g)
    pods[static_cast<size_t>(pod_of_switch[static_cast<size_t>(g)])].children.push_back(g);
  for (SwitchTree::Switch& pod : pods) tree.switches.push_back(std::move(pod));
  SwitchTree::Switch core{"core", 3, {}, {}};
  for (int32_t p = 0; p < c.pods; ++p) core.children.push_back(leaf_count + p);
  tree.switches.push_back(std::move(core));
  return tree;
}

// Link speeds for fabrics built from scheduler files, which carry none (Slurm
// ignores LinkSpeed). `host_gbps` for host-leaf cables, then one per switch level.
struct LinkSpeeds {
  double host_gbps = 400;
  double leaf_up_gbps = 400;   // level 1 -> 2
  double spine_up_gbps = 400;  // level 2 -> 3
};

// Checks what fabric_from_tree() needs: at most 3 switch levels; leaf-level
// switches hold hosts and no switches, upper ones switches and no hosts; every
// child exactly one level down; each host under exactly one leaf-level switch;
// unique switch and host names; no empty switch. Errors name the switch or host.
RAILYARD_LAZY
[[nodiscard]] Status validate_tree(const SwitchTree& tree) {
  const auto host_count = static_cast<int32_t>(tree.hosts.size());
  std::vector<int32_t> leaf_of_host(tree.hosts.size(), -1);
  std::vector<std::string_view> names;
  for (size_t i = 0; i < tree.switches.size(); ++i) {
    const SwitchTree::Switch& sw = tree.switches[i];
    names.push_back(sw.name);
    if (sw.level < 1 || sw.level > topology::kMaxLevel)
      return invalid_argument_error(str_cat("switch ", sw.name, ": level ", sw.level,
                                                " (railyard fabrics have 1 to 3 switch levels)"));
    if (sw.hosts.empty() && sw.children.empty())
      return invalid_argument_error(
          str_cat("switch ", sw.name, ": empty (no hosts, no switches)"));
    if (sw.level == 1 && !sw.children.empty())
      return invalid_argument_error(
          str_cat("switch ", sw.name, ": a leaf-level switch cannot hold switches"));
    if (sw.level > 1 && !sw.hosts.empty())
      return invalid_argument_error(str_cat("switch ", sw.name, ": holds hosts and switches"));
    for (int32_t h : sw.hosts) {
      if (h < 0 || h >= host_count)
        return invalid_argument_error(str_cat("switch ", sw.name, ": unknown host index ", h));
      if (leaf_of_host[static_cast<size_t>(h)] >= 0)
        return invalid_argument_error(
            str_cat("host ", tree.hosts[static_cast<size_t>(h)], ": under two leaf switches (",
                    tree.switches[static_cast<size_t>(leaf_of_host[static_cast<size_t>(h)])].name,
                    " and ", sw.name, ")"));
      leaf_of_host[static_cast<size_t>(h)] = static_cast<int32_t>(i);
    }
    for (int32_t c : sw.children) {
      if (c < 0 || static_cast<size_t>(c) >= tree.switches.size())
        return invalid_argument_error(str_cat("switch ", sw.name, ": unknown child index ", c));
      const SwitchTree::Switch& child = tree.switches[static_cast<size_t>(c)];
      if (child.level != sw.level - 1)
        return invalid_argument_error(
            str_cat("switch ", sw.name, ": child ", child.name, " is at level ", child.level,
                    ", not ", sw.level - 1, " (railyard needs a layered tree)"));
    }
  }
  for (int32_t h = 0; h < host_count; ++h)
    if (leaf_of_host[static_cast<size_t>(h)] < 0)
      return invalid_argument_error(
          str_cat("host ", tree.hosts[static_cast<size_t>(h)], ": under no leaf switch"));
  std::vector<std::string_view> host_names(tree.hosts.begin(), tree.hosts.end());
  for (auto* list : {&names, &host_names}) {
    std::sort(list->begin(), list->end());
    if (auto dup = std::adjacent_find(list->begin(), list->end()); dup != list->end())
      return invalid_argument_error(str_cat("name ", *dup, ": used twice"));
  }
  return ok_status();
}

// Builds the Fabric of a scheduler tree: one NIC-port node per host (named after
// the host, owner = host index), switches named as in the tree at levels
// leaf/spine/core, one cable per host and per parent-child pair. Errors: what
// validate_tree() rejects, or a link speed that is not a positive number of at
// most 10^7 Gb/s (InvalidArgument naming host_gbps, leaf_up_gbps or
// spine_up_gbps and the value).
RAILYARD_LAZY
[[nodiscard]] StatusOr<topology::Fabric> fabric_from_tree(const SwitchTree& tree,
                                                                       const LinkSpeeds& speeds) {
  // The speeds come from the user (flags, plugin options), not the file: a zero,
  // negative or NaN capacity would reach every bandwidth figure as nonsense, and
  // 10^7 Gb/s (10 Pb/s, thousands of times any link built) is a typo.
  constexpr double kMaxGbps = 1e7;
  for (const auto& [key, gbps] :
       {std::pair{"host_gbps", speeds.host_gbps}, std::pair{"leaf_up_gbps", speeds.leaf_up_gbps},
        std::pair{"spine_up_gbps", speeds.spine_up_gbps}})
    if (!(gbps > 0) || !(gbps <= kMaxGbps))
      return invalid_field(key, str_cat(gbps), "must be a positive Gb/s, at most 10^7");
  RAILYARD_RETURN_IF_ERROR(validate_tree(tree));
  using topology::LinkTier;
  using topology::Medium;
  using topology::NodeKind;
  topology::FabricBuilder b;
  size_t cables = tree.hosts.size();
  for (const auto& sw : tree.switches) cables += sw.children.size();
  b.reserve(tree.hosts.size() + tree.switches.size(), cables);
  for (size_t h = 0; h < tree.hosts.size(); ++h)
    b.add_named_node(NodeKind::kNicPort, static_cast<int32_t>(h), tree.hosts[h]);
  const NodeKind kinds[] = {NodeKind::kLeaf, NodeKind::kSpine, NodeKind::kCore};
  std::vector<int32_t> per_level(4, 0);
  for (const auto& sw : tree.switches)
    b.add_named_node(kinds[sw.level - 1], per_level[static_cast<size_t>(sw.level)]++, sw.name);
  const auto first_switch = static_cast<int32_t>(tree.hosts.size());
  for (size_t i = 0; i < tree.switches.size(); ++i) {
    const auto& sw = tree.switches[i];
    const NodeId node{first_switch + static_cast<int32_t>(i)};
    for (int32_t h : sw.hosts)
      b.add_cable(NodeId{h}, node, LinkTier::kHostLeaf, speeds.host_gbps, 0, Medium::kOptical);
    for (int32_t c : sw.children)
      b.add_cable(NodeId{first_switch + c}, node,
                  sw.level == 2 ? LinkTier::kLeafSpine : LinkTier::kSpineCore,
                  sw.level == 2 ? speeds.leaf_up_gbps : speeds.spine_up_gbps, 0, Medium::kOptical);
  }
  return std::move(b).build();
}

// The scheduler tree of a Fabric whose hosts each have one NIC port under one
// leaf (what fabric_from_tree builds): the inverse of fabric_from_tree, so
// import -> export is lossless. Fails, naming the host, for a host on several
// leaves (a materialized rail-optimized fabric: use switch_tree(descriptor)).
RAILYARD_LAZY
[[nodiscard]] StatusOr<SwitchTree> switch_tree(const topology::Fabric& f) {
  using topology::NodeKind;
  SwitchTree tree;
  std::vector<int32_t> host_index(static_cast<size_t>(f.node_count()), -1);
  std::vector<int32_t> switch_index(static_cast<size_t>(f.node_count()), -1);
  for (int32_t v = 0; v < f.node_count(); ++v) {
    if (f.kind(NodeId{v}) != NodeKind::kNicPort) continue;
    host_index[static_cast<size_t>(v)] = static_cast<int32_t>(tree.hosts.size());
    tree.hosts.push_back(f.node_name(NodeId{v}));
  }
  for (int level = 1; level <= topology::kMaxLevel; ++level)
    for (int32_t v = 0; v < f.node_count(); ++v) {
      const NodeId n{v};
      const NodeKind k = f.kind(n);
      if (k == NodeKind::kGpu || k == NodeKind::kNicPort || k == NodeKind::kNvSwitch ||
          f.level(n) != level)
        continue;
      switch_index[static_cast<size_t>(v)] = static_cast<int32_t>(tree.switches.size());
      tree.switches.push_back({f.node_name(n), level, {}, {}});
    }
  for (int32_t l = 0; l < f.link_count(); l += 2) {  // up links: lower -> upper
    const NodeId lower = f.src(LinkId{l});
    const NodeId upper = f.dst(LinkId{l});
    const int32_t parent = switch_index[static_cast<size_t>(upper.value())];
    if (parent < 0) continue;
    auto& sw = tree.switches[static_cast<size_t>(parent)];
    if (int32_t h = host_index[static_cast<size_t>(lower.value())]; h >= 0)
      sw.hosts.push_back(h);
    else if (int32_t c = switch_index[static_cast<size_t>(lower.value())]; c >= 0)
      sw.children.push_back(c);
  }
  for (auto& sw : tree.switches) {
    std::sort(sw.hosts.begin(), sw.hosts.end());
    sw.hosts.erase(std::unique(sw.hosts.begin(), sw.hosts.end()), sw.hosts.end());
    std::sort(sw.children.begin(), sw.children.end());
    sw.children.erase(std::unique(sw.children.begin(), sw.children.end()), sw.children.end());
  }
  RAILYARD_RETURN_IF_ERROR(validate_tree(tree));
  return tree;
}

}  // namespace railyard::topology
