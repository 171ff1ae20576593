// Fuzz targets for the real-fabric importers: cable lists
// (topology/import/cable_list.hpp) and ibnetdiscover output
// (topology/import/ibnetdiscover.hpp), each followed by fit_cables()
// (topology/import/cable_fit.hpp).
//
// A rejected file must be an InvalidArgument naming a line of the input (and,
// for a cable list, the column and a token of the file). An accepted one is
// fitted; a fit that succeeds must account for every cable: each position of
// the design is matched, missing or miswired, and each cable of the file fills
// one position or is extra, so file cables = design cables - missing + extra;
// its names cover every index, its slots are in range, its drained hosts are
// ascending, and its overlay applies to the materialized fabric.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_target.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/fabric.hpp"
#include "railyard/topology/import/cable_fit.hpp"
#include "railyard/topology/import/cable_list.hpp"
#include "railyard/topology/import/ibnetdiscover.hpp"

// Everything in this file is in its own namespace: the fuzz targets compile in
// one unity batch (tests/fuzz/CMakeLists.txt).
namespace railyard_fuzz_cables_fuzz {

namespace {

using railyard::fuzz::kMaxInput;
namespace topology = railyard::topology;

// Fitted clusters up to this many hosts also get their fabric and overlay built.
constexpr int32_t kMaxFabricHosts = 256;

int64_t line_count(std::string_view text) {
  return 1 + static_cast<int64_t>(std::count(text.begin(), text.end(), '\n'));
}

// N of a message "line N: ...", or -1.
int64_t line_of(std::string_view m) {
  if (!m.starts_with("line ")) return -1;
  int64_t n = 0;
  size_t i = 5;
  if (i >= m.size() || !railyard::is_digit(m[i])) return -1;
  for (; i < m.size() && railyard::is_digit(m[i]) && n < (int64_t{1} << 40); ++i)
    n = n * 10 + (m[i] - '0');
  return n;
}

void check_rejection(const absl::Status& s, std::string_view input) {
  RAILYARD_FUZZ_CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  const std::string m = railyard::fuzz::message(s);
  const std::string_view body = input.substr(0, 3) == "\xEF\xBB\xBF" ? input.substr(3) : input;
  const int64_t line = line_of(m);
  RAILYARD_FUZZ_CHECK(line >= 1 && line <= line_count(body) + 1, "the error names a line");
}

void check_fit(const topology::CableList& list) {
  const auto fit = topology::fit_cables(list);
  if (!fit.ok()) {
    RAILYARD_FUZZ_CHECK(fit.status().code() == absl::StatusCode::kInvalidArgument);
    RAILYARD_FUZZ_CHECK(!fit.status().message().empty(), "a refusal says why");
    return;
  }
  using topology::CableProblem;
  const topology::ClusterDescriptor<>& d = fit->descriptor;
  const topology::ClosShape& c = d.shape();
  RAILYARD_FUZZ_CHECK(fit->file_cables == static_cast<int64_t>(list.cables.size()));
  RAILYARD_FUZZ_CHECK(fit->design_cables == int64_t{d.hosts()} * d.nics_per_host() +
                                                c.leaf_spine_links() + c.spine_core_links());
  RAILYARD_FUZZ_CHECK(fit->file_cables == fit->design_cables - fit->count(CableProblem::kMissing) +
                                              fit->count(CableProblem::kExtra),
                      "every cable fills one position or is extra");
  RAILYARD_FUZZ_CHECK(static_cast<int64_t>(fit->host_names.size()) == d.hosts());
  RAILYARD_FUZZ_CHECK(static_cast<int32_t>(fit->nic_names.size()) == d.nics_per_host());
  RAILYARD_FUZZ_CHECK(static_cast<int64_t>(fit->leaf_names.size()) == c.total_leaves());
  RAILYARD_FUZZ_CHECK(static_cast<int64_t>(fit->spine_names.size()) == c.total_spines());
  RAILYARD_FUZZ_CHECK(static_cast<int64_t>(fit->core_names.size()) == c.total_cores());
  for (const auto* names :
       {&fit->host_names, &fit->leaf_names, &fit->spine_names, &fit->core_names})
    for (const std::string& n : *names) RAILYARD_FUZZ_CHECK(!n.empty(), "every index is named");
  for (const topology::CableFinding& f : fit->findings) {
    if (f.problem == CableProblem::kExtra) {
      RAILYARD_FUZZ_CHECK(f.actual.has_value());
      continue;
    }
    const int64_t lowers = f.slot.tier == topology::LinkTier::kHostLeaf    ? d.hosts()
                           : f.slot.tier == topology::LinkTier::kLeafSpine ? c.total_leaves()
                                                                           : c.total_spines();
    const int64_t ports = f.slot.tier == topology::LinkTier::kHostLeaf    ? d.nics_per_host()
                          : f.slot.tier == topology::LinkTier::kLeafSpine ? c.leaf_up_ports
                                                                          : c.spine_up_ports;
    RAILYARD_FUZZ_CHECK(f.slot.lower >= 0 && f.slot.lower < lowers, "slot in range");
    RAILYARD_FUZZ_CHECK(f.slot.port >= 0 && f.slot.port < ports, "slot port in range");
    RAILYARD_FUZZ_CHECK(f.actual.has_value() == (f.problem != CableProblem::kMissing));
  }
  for (size_t i = 1; i < fit->drained.size(); ++i)
    RAILYARD_FUZZ_CHECK(fit->drained[i - 1] < fit->drained[i], "drained hosts ascending");
  if (d.hosts() > kMaxFabricHosts) return;
  topology::Fabric fabric = topology::materialize(d);
  fit->name_fabric(fabric);
  const topology::FailureOverlay overlay = fit->overlay(fabric);
  int64_t down_positions = 0;
  for (const topology::CableFinding& f : fit->findings)
    down_positions += f.problem == CableProblem::kMissing || f.problem == CableProblem::kMiswired;
  RAILYARD_FUZZ_CHECK(overlay.down_links() == 2 * down_positions,
                      "each missing or miswired position is one cable down, both ways");
}

}  // namespace

RAILYARD_FUZZ_TARGET(cable_list) {
  if (input.size() > kMaxInput) return;
  const auto list = topology::cable_list_from_text(input);
  if (!list.ok()) {
    check_rejection(list.status(), input);
    const auto field = railyard::error_field(list.status());
    if (field) {
      RAILYARD_FUZZ_CHECK(field->field == "a_node" || field->field == "a_port" ||
                              field->field == "b_node" || field->field == "b_port" ||
                              field->field == "gbps" || field->field == "header" ||
                              field->field == "row",
                          "the error names a column");
      RAILYARD_FUZZ_CHECK(input.find(field->value) != std::string_view::npos,
                          "the attached token is the file's");
    }
    return;
  }
  RAILYARD_FUZZ_CHECK(!list->cables.empty());
  for (const topology::Cable& c : list->cables)
    RAILYARD_FUZZ_CHECK(c.a.node != c.b.node && c.line >= 1 && c.line <= line_count(input));
  check_fit(*list);
}

RAILYARD_FUZZ_TARGET(ibnetdiscover) {
  if (input.size() > kMaxInput) return;
  const auto list = topology::cable_list_from_ibnetdiscover(input);
  if (!list.ok()) {
    check_rejection(list.status(), input);
    return;
  }
  RAILYARD_FUZZ_CHECK(!list->cables.empty());
  for (const topology::Cable& c : list->cables) {
    RAILYARD_FUZZ_CHECK(c.a.node != c.b.node, "a cable joins two nodes");
    RAILYARD_FUZZ_CHECK(list->kinds.contains(c.a.node) && list->kinds.contains(c.b.node),
                        "every node has a kind");
  }
  check_fit(*list);
}

}  // namespace railyard_fuzz_cables_fuzz
