// railyard/export/slurm.hpp — Slurm topology files from a SwitchTree: topology.conf
// for topology/tree, topology.conf for topology/block, and topology.yaml
// (Slurm 25.05+) holding both. Reading a topology.conf back is in
// io/slurm_import.hpp.
//
//   auto namer = railyard::topology::NodeNamer::parse("gpu-{su:02}-{slot:03}");
//   auto tree = railyard::topology::switch_tree(descriptor, *namer);
//   std::string tree_conf = railyard::exports::slurm_topology_conf(*tree);
//   std::string block_conf = railyard::exports::slurm_block_conf(*tree, descriptor);
//   std::string yaml = railyard::exports::slurm_topology_yaml(*tree, descriptor);
//
// Formats (doc/man/man5/topology.conf.5 and topology.yaml.5 of SchedMD/slurm):
// * tree: one `SwitchName=<name> Nodes=<hostlist>` line per leaf-level switch,
//   then `SwitchName=<name> Switches=<hostlist>` for each level above, leaves
//   first. Slurm derives switch levels from this structure and ignores LinkSpeed,
//   so none is written.
// * block: `BlockName=<name> Nodes=<hostlist>` per base block, then
//   `BlockSizes=<base>,<2 x base>,...`. The base block is the NVLink domain when
//   one spans several hosts (NVL72: 18 hosts), otherwise the scalable unit: the
//   largest group whose traffic stays one hop away. BlockSizes follow Slurm's
//   rules (src/plugins/topology/block/block_record.c): the first size is the
//   base block's node count, every block must hold at least that many nodes,
//   and each further size must be the base times a power of two, 2^k with
//   k <= 15. Slurm stops at the first size that covers all blocks; railyard
//   writes base x 2^k for every k with 2^k <= number of blocks, so every size
//   fits in the cluster. Slurm aggregates consecutive blocks in file order, so
//   blocks are written in host order (SU-major: aggregates of 2^k SUs stay inside
//   a pod whenever SUs per pod is a multiple of 2^k). A partial last SU
//   (topology/shape.hpp) holds fewer nodes than the SU base block, which Slurm
//   refuses, so with an SU base its nodes are in no block (the header comment
//   says which and how many; the tree topology has them). NVLink domains are
//   never partial, so a domain base covers every host.
// * yaml: a list of two topologies: `tree` (cluster_default: true) with
//   `switches: [{switch, nodes | children}]`, and `block` with `block_sizes` and
//   `blocks: [{block, nodes}]`; `nodes` and `children` are hostlist strings, as
//   in topology.conf.
// Every output is deterministic: same tree, same bytes. Host names and switch
// names are compressed with io/hostlist.hpp.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/hostlist.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/version.hpp"

namespace railyard::exports {

// The topology/block layout of a cluster: equal base blocks of consecutive hosts
// and the BlockSizes Slurm enforces above them (rules in the overview).
struct BlockPlan {
  enum class Base : uint8_t { kNvlinkDomain, kScalableUnit };
  struct Block {
    std::string name;    // `nvl<N>` or `su<N>`, zero-padded to sort in host order
    int32_t first_host;  // hosts first_host .. first_host + base_hosts - 1
  };
  Base base = Base::kScalableUnit;
  int32_t base_hosts = 0;            // nodes per base block (the first BlockSize)
  std::vector<int64_t> block_sizes;  // base_hosts * 2^k, k = 0, 1, ... (2^k <= blocks)
  std::vector<Block> blocks;
  // Hosts past the last whole base block (a partial last SU): in no block.
  int32_t unblocked_first_host = 0;
  int32_t unblocked_hosts = 0;
};

// Slurm's limit: BlockSizes levels are bits 0..15 (MAX_BLOCK_LEVELS = 16).
inline constexpr int kMaxBlockLevel = 15;

// The block plan of a descriptor's cluster. O(blocks).
RAILYARD_LAZY
[[nodiscard]] BlockPlan block_plan(const topology::ClusterDescriptor<>& d) {
  BlockPlan plan;
  const bool domains = d.hosts_per_domain() > 1;
  plan.base = domains ? BlockPlan::Base::kNvlinkDomain : BlockPlan::Base::kScalableUnit;
  plan.base_hosts = domains ? d.hosts_per_domain() : d.hosts_per_su();
  // Whole base blocks only: NVLink domains tile the hosts, but a partial last SU
  // is smaller than the base and stays out (see the overview).
  // A lone partial SU is the only block there is: it becomes the base.
  if (d.hosts() < plan.base_hosts) plan.base_hosts = d.hosts();
  const int32_t count = d.hosts() / plan.base_hosts;
  plan.unblocked_first_host = count * plan.base_hosts;
  plan.unblocked_hosts = d.hosts() - plan.unblocked_first_host;
  for (int k = 0; k <= kMaxBlockLevel && (int64_t{1} << k) <= count; ++k)
    plan.block_sizes.push_back(int64_t{plan.base_hosts} << k);
  for (int32_t b = 0; b < count; ++b)
    plan.blocks.push_back(
        {topology::padded_name(domains ? "nvl" : "su", b, count), b * plan.base_hosts});
  return plan;
}

namespace detail {

// Switch indices by level, leaves first; topology order within a level.
RAILYARD_LAZY
std::vector<size_t> switches_by_level(const topology::SwitchTree& tree) {
  std::vector<size_t> order(tree.switches.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return tree.switches[a].level < tree.switches[b].level;
  });
  return order;
}

RAILYARD_LAZY
std::string hosts_hostlist(const topology::SwitchTree& tree, const std::vector<int32_t>& hosts) {
  std::vector<std::string_view> names;
  names.reserve(hosts.size());
  for (int32_t h : hosts) names.emplace_back(tree.hosts[static_cast<size_t>(h)]);
  return compress_hostlist(names);
}

RAILYARD_LAZY
std::string children_hostlist(const topology::SwitchTree& tree, const std::vector<int32_t>& kids) {
  std::vector<std::string_view> names;
  names.reserve(kids.size());
  for (int32_t c : kids) names.emplace_back(tree.switches[static_cast<size_t>(c)].name);
  return compress_hostlist(names);
}

RAILYARD_LAZY
std::string block_hostlist(const topology::SwitchTree& tree, const BlockPlan& plan,
                                  const BlockPlan::Block& b) {
  std::vector<std::string_view> names;
  for (int32_t h = b.first_host; h < b.first_host + plan.base_hosts; ++h)
    names.emplace_back(tree.hosts[static_cast<size_t>(h)]);
  return compress_hostlist(names);
}

RAILYARD_LAZY
std::string tree_summary(const topology::SwitchTree& tree) {
  return str_cat(tree.switches.size(), tree.switches.size() == 1 ? " switch" : " switches", " on ",
                 tree.top_level(), tree.top_level() == 1 ? " level" : " levels", ", ",
                 tree.hosts.size(), " nodes");
}

RAILYARD_LAZY
std::string block_summary(const BlockPlan& plan) {
  return str_cat("base block = one ",
                 plan.base == BlockPlan::Base::kNvlinkDomain ? "NVLink domain" : "scalable unit",
                 " (", plan.base_hosts, " nodes), ", plan.blocks.size(),
                 plan.blocks.size() == 1 ? " block" : " blocks");
}

// A comment line naming the hosts in no block (a partial last SU), or "".
RAILYARD_LAZY
std::string unblocked_comment(const topology::SwitchTree& tree, const BlockPlan& plan) {
  if (plan.unblocked_hosts == 0) return "";
  std::vector<int32_t> rest(static_cast<size_t>(plan.unblocked_hosts));
  std::iota(rest.begin(), rest.end(), plan.unblocked_first_host);
  return str_cat("# The partial last SU's ", plan.unblocked_hosts, " nodes (",
                 hosts_hostlist(tree, rest), ") are in no block: Slurm needs at least ",
                 plan.base_hosts, " nodes in every block.\n");
}

// YAML 1.1 plain scalars that would not read back as the same string.
RAILYARD_LAZY
bool yaml_needs_quotes(std::string_view s) {
  if (s.empty()) return true;
  const char c = s[0];
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return true;
  for (char ch : s)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || is_digit(ch) || ch == '_' ||
          ch == '-' || ch == '.' || ch == '[' || ch == ']' || ch == ','))
      return true;
  const std::string lower = to_lower(s);
  for (std::string_view word : {"y", "n", "yes", "no", "true", "false", "on", "off", "null"})
    if (lower == word) return true;
  return false;
}

RAILYARD_LAZY
std::string yaml_scalar(std::string_view s) {
  if (!yaml_needs_quotes(s)) return std::string(s);
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  out += '"';
  return out;
}

}  // namespace detail

// topology.conf for topology/tree. Precondition: validate_tree(tree).ok().
// O(total names).
RAILYARD_LAZY
[[nodiscard]] std::string slurm_topology_conf(const topology::SwitchTree& tree) {
  std::string out =
      str_cat("# topology.conf for Slurm's topology/tree plugin, written by railyard ", kVersion,
              ".\n# ", detail::tree_summary(tree),
              ". Put it next to slurm.conf; set TopologyPlugin=topology/tree.\n");
  for (size_t i : detail::switches_by_level(tree)) {
    const topology::SwitchTree::Switch& sw = tree.switches[i];
    assert(!sw.hosts.empty() || !sw.children.empty());
    if (!sw.hosts.empty())
      str_append(out, "SwitchName=", sw.name, " Nodes=", detail::hosts_hostlist(tree, sw.hosts),
                 "\n");
    else
      str_append(out, "SwitchName=", sw.name,
                 " Switches=", detail::children_hostlist(tree, sw.children), "\n");
  }
  return out;
}

// topology.conf for topology/block. Preconditions: `tree` names the hosts of `d`
// (switch_tree(d, namer)), so tree.hosts.size() == d.hosts().
RAILYARD_LAZY
[[nodiscard]] std::string slurm_block_conf(const topology::SwitchTree& tree,
                                           const topology::ClusterDescriptor<>& d) {
  assert(tree.hosts.size() == static_cast<size_t>(d.hosts()));
  const BlockPlan plan = block_plan(d);
  std::string out = str_cat(
      "# topology.conf for Slurm's topology/block plugin (Slurm 23.11+), written by railyard ",
      kVersion, ".\n# ", detail::block_summary(plan), ", ", tree.hosts.size(),
      " nodes. Put it next to slurm.conf; set TopologyPlugin=topology/block.\n",
      detail::unblocked_comment(tree, plan));
  for (const auto& b : plan.blocks)
    str_append(out, "BlockName=", b.name, " Nodes=", detail::block_hostlist(tree, plan, b), "\n");
  str_append(out, "BlockSizes=", join(plan.block_sizes, ","), "\n");
  return out;
}

// topology.yaml (Slurm 25.05+) with a `tree` topology (the cluster default) and a
// `block` topology. Preconditions as for slurm_topology_conf and slurm_block_conf.
RAILYARD_LAZY
[[nodiscard]] std::string slurm_topology_yaml(const topology::SwitchTree& tree,
                                              const topology::ClusterDescriptor<>& d) {
  assert(tree.hosts.size() == static_cast<size_t>(d.hosts()));
  const BlockPlan plan = block_plan(d);
  std::string out = str_cat("# topology.yaml for Slurm 25.05+, written by railyard ", kVersion,
                            ".\n# tree: ", detail::tree_summary(tree),
                            ".\n# block: ", detail::block_summary(plan), ".\n",
                            detail::unblocked_comment(tree, plan),
                            "# Put it next to slurm.conf; it takes precedence over "
                            "topology.conf.\n");
  out += "- topology: tree\n  cluster_default: true\n  tree:\n    switches:\n";
  for (size_t i : detail::switches_by_level(tree)) {
    const topology::SwitchTree::Switch& sw = tree.switches[i];
    str_append(out, "      - switch: ", detail::yaml_scalar(sw.name), "\n");
    if (!sw.hosts.empty())
      str_append(out,
                 "        nodes: ", detail::yaml_scalar(detail::hosts_hostlist(tree, sw.hosts)),
                 "\n");
    else
      str_append(out, "        children: ",
                 detail::yaml_scalar(detail::children_hostlist(tree, sw.children)), "\n");
  }
  out += "- topology: block\n  cluster_default: false\n  block:\n    block_sizes:\n";
  for (int64_t size : plan.block_sizes) str_append(out, "      - ", size, "\n");
  out += "    blocks:\n";
  for (const auto& b : plan.blocks)
    str_append(out, "      - block: ", detail::yaml_scalar(b.name),
               "\n        nodes: ", detail::yaml_scalar(detail::block_hostlist(tree, plan, b)),
               "\n");
  return out;
}

}  // namespace railyard::exports
