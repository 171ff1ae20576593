// railyard/placement/tree_order.hpp — numbering ranks on a cluster known only as
// a switch tree (a Slurm topology.conf or a host,leaf,spine[,core] CSV), where
// no spec says how many GPUs a host has or how rails are wired: the launcher
// files then still follow the fabric.
//
//   auto tree = railyard::topology::slurm_topology_from_conf(text);
//   auto plan = railyard::placement::parse_plan("tp=8,dp=4");
//   auto job = railyard::placement::order_on_tree(*tree, *plan, /*gpus_per_host=*/8, hosts);
//   auto hostfile = railyard::exports::hostfile_seq(*job, tree->hosts);
//
// The job's hosts are grouped by the switches above them, biggest groups first
// at every level (top switch, then the next level down, then the leaf-level
// switch), ties broken by switch index, then host id — the rule
// detail::topology_host_order() applies to pods, SUs and leaves of a spec. A
// host's GPUs get consecutive ranks, and the plan's order string numbers the
// ranks (tp fastest by default), so tensor-parallel groups stay in a host and
// data-parallel neighbours under one leaf switch as far as the hosts allow.
// Unlike order_ranks() there is no traffic model to choose among order
// strings: a tree carries no rails or link counts.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/topology/switch_tree.hpp"

namespace railyard::placement {

// `hosts` reordered by the tree (see the header comment). Precondition: the
// tree passes topology::validate_tree and every id is a host of it.
RAILYARD_LAZY
[[nodiscard]] std::vector<HostId> tree_host_order(const topology::SwitchTree& tree,
                                                  std::vector<HostId> hosts) {
  // Per host its switches from the top level down: key[0] = level 3, key[1] =
  // level 2, key[2] = leaf level; -1 where the tree is shorter.
  using Key = std::array<int32_t, 3>;
  std::vector<int32_t> parent(tree.switches.size(), -1);
  for (size_t i = 0; i < tree.switches.size(); ++i)
    for (int32_t c : tree.switches[i].children) parent[static_cast<size_t>(c)] = static_cast<int32_t>(i);
  std::vector<Key> key_of(tree.hosts.size(), Key{-1, -1, -1});
  for (size_t i = 0; i < tree.switches.size(); ++i) {
    if (tree.switches[i].level != 1) continue;
    for (int32_t h : tree.switches[i].hosts) {
      Key& k = key_of[static_cast<size_t>(h)];
      for (auto s = static_cast<int32_t>(i); s >= 0; s = parent[static_cast<size_t>(s)])
        k[static_cast<size_t>(3 - tree.switches[static_cast<size_t>(s)].level)] = s;
    }
  }
  auto prefix = [](Key k, int level) {
    for (int i = level + 1; i < 3; ++i) k[static_cast<size_t>(i)] = -1;
    return k;
  };
  std::vector<std::pair<Key, int32_t>> counts;
  for (HostId h : hosts)
    for (int level = 0; level < 3; ++level)
      counts.push_back({prefix(key_of[static_cast<size_t>(h.value())], level), 1});
  std::sort(counts.begin(), counts.end());
  size_t w = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (w > 0 && counts[w - 1].first == counts[i].first)
      ++counts[w - 1].second;
    else
      counts[w++] = counts[i];
  }
  counts.resize(w);
  auto count_of = [&](const Key& k) {
    auto it = std::lower_bound(counts.begin(), counts.end(), std::pair<Key, int32_t>{k, INT32_MIN});
    return it != counts.end() && it->first == k ? it->second : 0;
  };
  std::vector<std::array<int32_t, 7>> order;
  order.reserve(hosts.size());
  for (HostId h : hosts) {
    const Key& k = key_of[static_cast<size_t>(h.value())];
    std::array<int32_t, 7> sort_key{};
    for (int level = 0; level < 3; ++level) {
      sort_key[static_cast<size_t>(2 * level)] = -count_of(prefix(k, level));
      sort_key[static_cast<size_t>(2 * level + 1)] = k[static_cast<size_t>(level)];
    }
    sort_key[6] = h.value();
    order.push_back(sort_key);
  }
  std::sort(order.begin(), order.end());
  for (size_t i = 0; i < order.size(); ++i) hosts[i] = HostId{order[i][6]};
  return hosts;
}

// The job on the tree's hosts: `hosts` as given (naive) or grouped by
// tree_host_order (grouped = true), `gpus_per_host` GPUs each, numbered by the
// plan's order string. No hosts: the first world / gpus_per_host of the tree.
// Errors (naming the field and value): gpus_per_host outside [1, 1024], a
// world that is not a multiple of it, a host count other than world /
// gpus_per_host, ids outside the tree or repeated, an invalid tree.
RAILYARD_LAZY
[[nodiscard]] StatusOr<JobPlacement> order_on_tree(const topology::SwitchTree& tree,
                                                   const ParallelPlan& plan, int32_t gpus_per_host,
                                                   std::span<const HostId> hosts, bool grouped) {
  RAILYARD_RETURN_IF_ERROR(topology::validate_tree(tree));
  if (gpus_per_host < 1 || gpus_per_host > 1024)
    return invalid_field("gpus_per_host", str_cat(gpus_per_host), "must be in [1, 1024]");
  const int64_t world = plan.world();
  if (world % gpus_per_host != 0)
    return invalid_field("job", plan.to_string(),
                         str_cat(world, " ranks do not fill whole hosts of ", gpus_per_host, " GPUs"));
  const int64_t needed = world / gpus_per_host;
  std::vector<HostId> list(hosts.begin(), hosts.end());
  if (list.empty()) {
    if (needed > static_cast<int64_t>(tree.hosts.size()))
      return invalid_field("job", plan.to_string(),
                           str_cat("needs ", needed, " hosts of ", gpus_per_host,
                                   " GPUs, more than the ", tree.hosts.size(), " of the tree"));
    for (int64_t h = 0; h < needed; ++h) list.push_back(HostId{static_cast<int32_t>(h)});
  }
  if (static_cast<int64_t>(list.size()) != needed)
    return invalid_field("hosts", str_cat(list.size(), " hosts"),
                         str_cat("plan ", plan.to_string(), " needs ", needed, " hosts of ",
                                 gpus_per_host, " GPUs"));
  std::vector<HostId> sorted = list;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i].value() < 0 || static_cast<size_t>(sorted[i].value()) >= tree.hosts.size())
      return invalid_field("hosts", str_cat(sorted[i].value()),
                           str_cat("out of range (the tree has hosts 0..", tree.hosts.size() - 1, ")"));
    if (i > 0 && sorted[i] == sorted[i - 1])
      return invalid_field("hosts", str_cat(sorted[i].value()), "listed twice");
  }
  if (grouped) list = tree_host_order(tree, std::move(list));
  return JobPlacement{plan, gpus_per_host, std::move(list)};
}

}  // namespace railyard::placement
