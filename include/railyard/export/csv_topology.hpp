// railyard/export/csv_topology.hpp — a switch tree written as the plain CSV rows
// `host,leaf,spine[,core]` that topology/import/csv_topology.hpp reads (the format
// and its rules are documented there); canonical text reads and writes back to
// identical bytes.
//
//   railyard::StatusOr<std::string> csv = railyard::exports::csv_topology_from_tree(tree);
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/import/csv_topology.hpp"
#include "railyard/topology/switch_tree.hpp"

namespace railyard::exports {

// Writes `tree` as canonical CSV: the header `host,leaf,spine` (2 switch
// levels) or `host,leaf,spine,core` (3), then one row per host in host order,
// LF line ends. Fails, naming the switch or host, for a tree validate_tree()
// rejects, a tree with a single switch level (the format has no row shape for
// a cluster without spines: a synthetic spine would change the fabric), a
// switch below the top level without a parent, or a name the importer would
// reject (including a host called `host`/`hostname` or starting with '#', and
// a host named like a switch).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> csv_topology_from_tree(const topology::SwitchTree& tree) {
  using topology::csv_quoted;
  RAILYARD_RETURN_IF_ERROR(topology::validate_tree(tree));
  const int levels = tree.top_level();
  if (levels < 2)
    return invalid_argument_error(
        tree.switches.empty()
            ? std::string("empty tree: no hosts, no switches")
            : str_cat("switch ", csv_quoted(tree.switches.front().name),
                      ": the tree has one switch level; host,leaf,spine[,core] CSV needs 2 or 3"));
  std::vector<int32_t> parent(tree.switches.size(), -1);
  for (size_t i = 0; i < tree.switches.size(); ++i)
    for (int32_t c : tree.switches[i].children)
      parent[static_cast<size_t>(c)] = static_cast<int32_t>(i);
  for (size_t i = 0; i < tree.switches.size(); ++i)
    if (tree.switches[i].level < levels && parent[i] < 0)
      return invalid_argument_error(
          str_cat("switch ", csv_quoted(tree.switches[i].name), ": level ", tree.switches[i].level,
                  " switch without a parent; every CSV row needs all ", levels, " levels"));
  std::map<std::string_view, std::string_view> role_of;
  for (const auto& sw : tree.switches) {
    if (std::string p = topology::csv_token_problem(sw.name); !p.empty())
      return invalid_argument_error(str_cat("switch ", csv_quoted(sw.name), ": ", p));
    role_of.emplace(sw.name, topology::kCsvRoles[sw.level]);
  }
  for (const std::string& host : tree.hosts) {
    if (std::string p = topology::csv_token_problem(host); !p.empty())
      return invalid_argument_error(str_cat("host ", csv_quoted(host), ": ", p));
    if (topology::csv_is_header_word(host) || host.front() == '#')
      return invalid_argument_error(
          str_cat("host ", csv_quoted(host), ": would read back as a header or a comment"));
    if (auto it = role_of.find(host); it != role_of.end())
      return invalid_argument_error(
          str_cat("host ", csv_quoted(host), ": same name as a ", it->second, " switch"));
  }
  std::vector<int32_t> leaf_of(tree.hosts.size(), -1);
  for (size_t i = 0; i < tree.switches.size(); ++i)
    for (int32_t h : tree.switches[i].hosts)
      leaf_of[static_cast<size_t>(h)] = static_cast<int32_t>(i);
  std::string out = levels == 2 ? "host,leaf,spine\n" : "host,leaf,spine,core\n";
  for (size_t h = 0; h < tree.hosts.size(); ++h) {
    out += tree.hosts[h];
    for (int32_t s = leaf_of[h]; s >= 0; s = parent[static_cast<size_t>(s)])
      str_append(out, ",", tree.switches[static_cast<size_t>(s)].name);
    out += '\n';
  }
  return out;
}

}  // namespace railyard::exports
