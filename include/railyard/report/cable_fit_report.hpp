// railyard/report/cable_fit_report.hpp — what fit_cables() found, for people
// (text) and programs (JSON): the fitted spec, the file's names by railyard's
// indices, and every missing, miswired, extra or slow cable.
//
//   auto fit = railyard::topology::fit_cables(*cables);
//   std::string text = railyard::report::cable_fit_text(*fit, "--cables=fabric.csv");
//   std::string json = railyard::report::cable_fit_json(*fit, "--cables=fabric.csv");
//
// JSON keys (docs/cli.md#describe): source, cluster (the spec string),
// host_rule, file_cables, design_cables, counts.{missing,miswired,extra,slow},
// hosts / nics / leaves / spines / cores (the file's names, by index), drained
// (host ids), findings[] with problem, tier, lower, port (the design's slot),
// expected (e.g. "gpu03 eth2"), expected_switch, actual {a_node, a_port, b_node,
// b_port, gbps, line} (absent for missing) and fraction (slow only).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/json.hpp"
#include "railyard/topology/import/cable_fit.hpp"

namespace railyard::report {

namespace detail {

RAILYARD_LAZY
std::string cable_text(const topology::Cable& c) {
  return str_cat(c.a.node, " ", c.a.port, " -- ", c.b.node, " ", c.b.port, " (line ", c.line, ")");
}

// "host 3 NIC 2", "leaf 5 uplink 2", "spine 1 uplink 0": the slot as --down
// and the other reports number it.
RAILYARD_LAZY
std::string slot_text(const topology::CableSlot& s) {
  switch (s.tier) {
    case topology::LinkTier::kLeafSpine:
      return str_cat("leaf", s.lower, "/", s.port);
    case topology::LinkTier::kSpineCore:
      return str_cat("spine", s.lower, "/", s.port);
    default:
      return str_cat("host ", s.lower, " nic ", s.port);
  }
}

// The first kMaxListedNames names of a list are printed; --json has them all.
inline constexpr size_t kMaxListedNames = 64;

RAILYARD_LAZY
void name_list(std::string& out, std::string_view label, const std::vector<std::string>& names) {
  if (names.empty()) return;
  std::string line = str_cat(label);
  line.resize(10, ' ');
  size_t width = line.size();
  const size_t shown = std::min(names.size(), kMaxListedNames);
  for (size_t i = 0; i < shown; ++i) {
    const std::string item =
        i + 1 < shown ? str_cat(i, " ", names[i], ",")
        : shown < names.size()
            ? str_cat(i, " ", names[i], ", ... ", names.size() - shown, " more (--json lists all)")
            : str_cat(i, " ", names[i]);
    if (width + item.size() + 1 > 96 && width > 10) {
      str_append(out, line, "\n");
      line = std::string(10, ' ');
      width = 10;
    } else if (width > 10) {
      line += ' ';
      ++width;
    }
    line += item;
    width += item.size();
  }
  str_append(out, line, "\n");
}

}  // namespace detail

// The fit as lines of text: the spec, counts, each finding, the drained hosts
// and the name of every host and switch by railyard's index.
RAILYARD_LAZY
[[nodiscard]] std::string cable_fit_text(const topology::CableFit& fit, std::string_view source) {
  using topology::CableProblem;
  std::string out = str_cat(
      "fitted    ", source, ": ", topology::to_spec_string(fit.spec()), "\n", "file      ",
      fit.file_cables, " cables; the design has ", fit.design_cables, "; ",
      fit.count(CableProblem::kMissing), " missing, ", fit.count(CableProblem::kMiswired),
      " miswired, ", fit.count(CableProblem::kExtra), " extra, ", fit.count(CableProblem::kSlow),
      " slow\n", "rule      ", fit.host_rule, "; NICs by port name: ");
  for (size_t i = 0; i < fit.nic_names.size(); ++i)
    str_append(out, i > 0 ? ", " : "", fit.nic_names[i], "=", i);
  out += "\n";
  for (const topology::CableFinding& f : fit.findings) {
    switch (f.problem) {
      case CableProblem::kMissing:
        str_append(out, "missing   ", f.expected_lower, " -- ", f.expected_upper, " [",
                   detail::slot_text(f.slot), "]: down\n");
        break;
      case CableProblem::kMiswired:
        str_append(out, "miswired  ", detail::cable_text(*f.actual), ": belongs ", f.expected_lower,
                   " -- ", f.expected_upper, " [", detail::slot_text(f.slot), "]: down there\n");
        break;
      case CableProblem::kExtra:
        str_append(out, "extra     ", detail::cable_text(*f.actual),
                   ": no place for it in the design, ignored\n");
        break;
      case CableProblem::kSlow:
        str_append(out, "slow      ", detail::cable_text(*f.actual), ": ", f.actual->gbps, " of ",
                   fit.spec().nic_gbps, " Gb/s [", detail::slot_text(f.slot), "]: degraded to ",
                   fixed(f.fraction, 2), "\n");
        break;
    }
  }
  if (!fit.drained.empty()) {
    out += "drained   ";
    for (size_t i = 0; i < fit.drained.size(); ++i)
      str_append(out, i > 0 ? ", " : "", fit.drained[i].value(), " (",
                 fit.host_names[static_cast<size_t>(fit.drained[i].value())], ")");
    out += ": a host cable missing or miswired; place and plan allocate no job there\n";
  }
  detail::name_list(out, "hosts", fit.host_names);
  detail::name_list(out, "leaves", fit.leaf_names);
  detail::name_list(out, "spines", fit.spine_names);
  detail::name_list(out, "cores", fit.core_names);
  return out;
}

RAILYARD_LAZY
[[nodiscard]] std::string cable_fit_json(const topology::CableFit& fit, std::string_view source,
                                         int indent = 2) {
  using topology::CableProblem;
  JsonWriter w(indent);
  w.begin_object();
  w.key("source").value(source);
  w.key("cluster").value(topology::to_spec_string(fit.spec()));
  w.key("host_rule").value(fit.host_rule);
  w.key("file_cables").value(fit.file_cables);
  w.key("design_cables").value(fit.design_cables);
  w.key("counts").begin_object();
  for (CableProblem p :
       {CableProblem::kMissing, CableProblem::kMiswired, CableProblem::kExtra, CableProblem::kSlow})
    w.key(topology::kCableProblemNames[static_cast<size_t>(p)]).value(fit.count(p));
  w.end_object();
  auto names = [&w](std::string_view key, const std::vector<std::string>& list) {
    w.key(key).begin_array();
    for (const std::string& n : list) w.value(n);
    w.end_array();
  };
  names("hosts", fit.host_names);
  names("nics", fit.nic_names);
  names("leaves", fit.leaf_names);
  names("spines", fit.spine_names);
  names("cores", fit.core_names);
  w.key("drained").begin_array();
  for (HostId h : fit.drained) w.value(h.value());
  w.end_array();
  w.key("findings").begin_array();
  for (const topology::CableFinding& f : fit.findings) {
    w.begin_object();
    w.key("problem").value(topology::kCableProblemNames[static_cast<size_t>(f.problem)]);
    if (f.problem != CableProblem::kExtra) {
      w.key("tier").value(topology::kLinkTierNames[static_cast<size_t>(f.slot.tier)]);
      w.key("lower").value(f.slot.lower);
      w.key("port").value(f.slot.port);
      w.key("expected").value(f.expected_lower);
      w.key("expected_switch").value(f.expected_upper);
    }
    if (f.actual) {
      w.key("actual").begin_object();
      w.key("a_node").value(f.actual->a.node);
      w.key("a_port").value(f.actual->a.port);
      w.key("b_node").value(f.actual->b.node);
      w.key("b_port").value(f.actual->b.port);
      w.key("gbps").value(f.actual->gbps);
      w.key("line").value(f.actual->line);
      w.end_object();
    }
    if (f.problem == CableProblem::kSlow) w.key("fraction").value(f.fraction);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w).line();
}

}  // namespace railyard::report
