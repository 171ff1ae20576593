// railyard/report/presets_report.hpp — the embedded cluster presets as a text
// report and as JSON (what `railyard presets` prints).
//
//   std::string text = railyard::report::presets_text();
//   // h100-1024       128 HGX H100 hosts, ...
//   //                 = rail_fat_tree:hosts=128
//   std::string json = railyard::report::presets_json();
//
// Text: per preset (topology::kPresets order) its name, padded to the longest,
// and its description, then its spec under the description after "= ".
// JSON keys (docs/cli.md#json-output): default (topology::kDefaultCluster),
// presets[] {name, spec, description}.
#pragma once

#include <algorithm>
#include <string>
#include <utility>

#include "railyard/core/lazy.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/json.hpp"
#include "railyard/topology/cluster_spec.hpp"

namespace railyard::report {

RAILYARD_LAZY
[[nodiscard]] std::string presets_json(int indent = 2) {
  JsonWriter w(indent);
  w.begin_object();
  w.key("default").value(topology::kDefaultCluster);
  w.key("presets").begin_array();
  for (const topology::Preset& preset : topology::kPresets) {
    w.begin_object();
    w.key("name").value(preset.name);
    w.key("spec").value(preset.spec);
    w.key("description").value(preset.description);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w).line();
}

RAILYARD_LAZY
[[nodiscard]] std::string presets_text() {
  size_t width = 0;
  for (const topology::Preset& preset : topology::kPresets)
    width = std::max(width, preset.name.size());
  std::string out;
  for (const topology::Preset& preset : topology::kPresets) {
    std::string name(preset.name);
    name.resize(width, ' ');
    str_append(out, name, "  ", preset.description, "\n");
    str_append(out, std::string(width, ' '), "  = ", preset.spec, "\n");
  }
  return out;
}

}  // namespace railyard::report
