// railyard/topology/failure_spec.hpp — failed and degraded links written on a command
// line, applied to a FailureOverlay.
//
//   railyard::topology::FailureOverlay overlay(fabric);
//   RAILYARD_RETURN_IF_ERROR(railyard::topology::apply_failures(fabric, "leaf3/2,spine1,leaf0/5@0.5",
//   overlay));
//
// Grammar, comma-separated:
//   leaf<L>/<j>    the cable of leaf L's uplink j (global leaf index, 0-based)
//   spine<S>/<k>   the cable of spine S's uplink k (to a core)
//   leaf<L> | spine<S> | core<C>   every cable of that switch (a switch failure)
//   ...@<f>        degraded to fraction f of its capacity (0 < f < 1) instead of down
// Errors name the item: unknown switch kind, index out of range, uplink out of
// range, bad fraction.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::topology {

RAILYARD_LAZY
[[nodiscard]] Status apply_failures(const topology::Fabric& f, std::string_view text,
                                                 topology::FailureOverlay& overlay) {
  if (!f.has_descriptor())
    return invalid_field("down", text, "failures need a fabric built from a cluster spec");
  const topology::ClosShape& c = f.descriptor().shape();
  for (std::string_view item : split(text, ',')) {
    auto bad = [&](std::string_view problem) { return invalid_field("down", item, problem); };
    std::string_view body = item;
    double fraction = 0.0;
    if (const size_t at = body.find('@'); at != std::string_view::npos) {
      // from_chars, not strtod: no leading spaces, no hex floats, no locale.
      const std::string_view value = body.substr(at + 1);
      const char* end = value.data() + value.size();
      const auto [ptr, ec] = std::from_chars(value.data(), end, fraction);
      if (value.empty() || ec != std::errc() || ptr != end || !(fraction > 0.0) ||
          !(fraction < 1.0))
        return bad("a degraded fraction must be between 0 and 1, e.g. leaf3/2@0.5");
      body = body.substr(0, at);
    }
    const size_t slash = body.find('/');
    const std::string_view name = body.substr(0, slash);
    size_t digits = 0;
    while (digits < name.size() && !is_digit(name[digits])) ++digits;
    const std::string_view kind = name.substr(0, digits);
    auto index = parse_int("down", name.substr(digits));
    if (!index.ok()) return bad("expected leaf<L>/<j>, spine<S>/<k>, leaf<L>, spine<S> or core<C>");
    int64_t count = 0;
    int32_t uplinks = 0;
    if (kind == "leaf")
      count = c.total_leaves(), uplinks = c.leaf_up_ports;
    else if (kind == "spine")
      count = c.total_spines(), uplinks = c.spine_up_ports;
    else if (kind == "core")
      count = c.total_cores();
    else
      return bad("unknown switch kind (leaf, spine or core)");
    if (*index >= count) return bad(str_cat("there are ", count, " ", kind, " switches"));
    const SwitchIndex sw{static_cast<int32_t>(*index)};
    if (slash == std::string_view::npos) {
      const NodeId node = kind == "leaf" ? f.leaf(sw) : kind == "spine" ? f.spine(sw) : f.core(sw);
      for (LinkId l : f.out_links(node)) overlay.set_cable_fraction(l, fraction);
      continue;
    }
    if (kind == "core") return bad("cores have no uplinks; name the spine's uplink instead");
    if (uplinks == 0)  // spines of a 2-tier fabric; leaves of a partition with one leaf
      return bad(str_cat(kind, " switches have no uplinks in this cluster; name the whole switch (",
                         kind, "<N>)"));
    auto up = parse_int("down", body.substr(slash + 1));
    if (!up.ok() || *up >= uplinks)
      return bad(str_cat(kind, " uplinks are numbered 0..", uplinks - 1));
    const int32_t j = static_cast<int32_t>(*up);
    overlay.set_cable_fraction(kind == "leaf" ? f.leaf_uplink(sw, j) : f.spine_uplink(sw, j),
                               fraction);
  }
  return ok_status();
}

}  // namespace railyard::topology
