// railyard/topology/host_lookup.hpp — host ids from what a user or a scheduler
// writes: ids and id ranges (`0-15,32-47`), node names, or a Slurm hostlist
// such as `SLURM_JOB_NODELIST` (`gpu-a[003-010,035-042]`), resolved through the
// cluster's host names (NodeNamer::names() of a spec, or the names an imported
// file keeps).
//
//   auto namer = railyard::topology::NodeNamer::parse("gpu-a{host+1:03}");
//   const std::vector<std::string> names = namer->names(descriptor);   // by host id
//   auto ids = railyard::topology::resolve_hosts("hosts", "gpu-a[003-004],gpu-a001", names);
//   // *ids == {HostId{2}, HostId{3}, HostId{0}}: the order written (launch order)
//
// How a text is read, so that no text means two things:
// * Ids when it holds only digits, ',' and '-' (parse_host_list's grammar);
//   names otherwise: a Slurm hostlist expression (expand_hostlist, core/hostlist.hpp)
//   whose every name must be a host of the cluster.
// * A cluster whose host names are themselves numbers (pattern `{host}`) makes
//   some texts readable both ways. When both readings succeed and pick
//   different hosts the text is refused as ambiguous; when they agree it is
//   taken as ids; when only one reading works, that one.
// Errors are invalid_field statuses naming `field` and the offending value (a
// name is also quoted in the message, for callers that show the whole text): an
// unknown name (with the cluster's first and last names as a hint), a host
// listed twice, a malformed hostlist or id range, or `names` that repeat a name.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/hostlist.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::topology {

// True when `text` is read as host ids: non-empty and only digits, ',' and '-'.
[[nodiscard]] inline bool is_host_id_text(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return is_digit(c) || c == ',' || c == '-';
  });
}

// Host names to ids: a sorted copy of the names (O(n log n) to build, O(log n)
// per lookup; no hash map, so nothing depends on a per-process seed).
class HostNameIndex {
 public:
  // `names` are indexed by host id. Errors: an empty name, or a name given to
  // two hosts (both ids named).
  [[nodiscard]] static StatusOr<HostNameIndex> build(std::span<const std::string> names) {
    HostNameIndex index;
    index.by_name_.reserve(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i].empty())
        return invalid_field("host_name", str_cat(i), "host has an empty name");
      index.by_name_.emplace_back(names[i], HostId{static_cast<int32_t>(i)});
    }
    std::sort(index.by_name_.begin(), index.by_name_.end());
    for (size_t i = 1; i < index.by_name_.size(); ++i)
      if (index.by_name_[i].first == index.by_name_[i - 1].first)
        return invalid_field("host_name", index.by_name_[i].first,
                             str_cat("names two hosts (", index.by_name_[i - 1].second.value(),
                                     " and ", index.by_name_[i].second.value(), ")"));
    if (!names.empty()) index.first_ = names.front(), index.last_ = names.back();
    return index;
  }

  [[nodiscard]] std::optional<HostId> find(std::string_view name) const {
    auto it = std::lower_bound(
        by_name_.begin(), by_name_.end(), name,
        [](const std::pair<std::string, HostId>& e, std::string_view n) { return e.first < n; });
    if (it == by_name_.end() || it->first != name) return std::nullopt;
    return it->second;
  }
  [[nodiscard]] size_t size() const { return by_name_.size(); }
  // The names of host 0 and of the last host, for error hints.
  [[nodiscard]] const std::string& first_name() const { return first_; }
  [[nodiscard]] const std::string& last_name() const { return last_; }

 private:
  std::vector<std::pair<std::string, HostId>> by_name_;
  std::string first_, last_;
};

namespace detail {

// The names of a hostlist expression as ids, in the order written.
RAILYARD_LAZY
StatusOr<std::vector<HostId>> resolve_host_names(std::string_view field, std::string_view text,
                                                 const HostNameIndex& index) {
  auto expanded = expand_hostlist(text);
  if (!expanded.ok()) return invalid_field(field, text, std::string(expanded.status().message()));
  if (expanded->empty()) return invalid_field(field, text, "names no host");
  std::vector<HostId> ids;
  ids.reserve(expanded->size());
  for (const std::string& name : *expanded) {
    const std::optional<HostId> id = index.find(name);
    if (!id)
      return invalid_field(
          field, name,
          index.size() == 0
              ? str_cat("no host of the cluster is named '", name, "' (the cluster has no names)")
              : str_cat("no host of the cluster is named '", name, "' (its ", index.size(),
                        " hosts are named ", index.first_name(), " ... ", index.last_name(), ")"));
    ids.push_back(*id);
  }
  std::vector<std::pair<HostId, size_t>> sorted;
  sorted.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) sorted.emplace_back(ids[i], i);
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].first == sorted[i - 1].first)
      return invalid_field(field, (*expanded)[sorted[i].second],
                           str_cat("host '", (*expanded)[sorted[i].second], "' is listed twice"));
  return ids;
}

}  // namespace detail

// The hosts `text` lists (ids or names, see the header comment), in the order
// written. `names` holds every host's name by id (its size is the host count);
// ids must be below names.size(). Linear in the hosts listed after an
// O(n log n) index of the names.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<HostId>> resolve_hosts(std::string_view field,
                                                          std::string_view text,
                                                          std::span<const std::string> names) {
  if (text.empty()) return invalid_field(field, text, "empty host list");
  RAILYARD_ASSIGN_OR_RETURN(const HostNameIndex index, HostNameIndex::build(names));
  if (!is_host_id_text(text)) return detail::resolve_host_names(field, text, index);
  auto ids = parse_host_list(field, text, static_cast<int64_t>(names.size()));
  const bool numeric_names = std::any_of(names.begin(), names.end(), [](const std::string& n) {
    return is_host_id_text(n);
  });
  if (numeric_names) {
    auto by_name = detail::resolve_host_names(field, text, index);
    if (by_name.ok() && !ids.ok()) return by_name;
    if (by_name.ok() && *ids != *by_name)
      return invalid_field(field, text,
                           "ambiguous: the cluster's host names are numbers, and read as names "
                           "these pick other hosts than read as ids; use a node pattern with a "
                           "letter (e.g. node{host})");
  }
  return ids;
}

}  // namespace railyard::topology
