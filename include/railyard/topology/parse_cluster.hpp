// railyard/topology/parse_cluster.hpp — spec string -> valid ClusterSpec.
//
// parse_cluster() accepts a preset name or `KIND:key=value,...`, checks every
// value and every consistency rule (NVLink domains that tile the hosts, a radix
// large enough for the shape, ...; a partial last SU or pod is valid, see
// shape.hpp) and returns a ClusterSpec the descriptors and the
// Fabric can trust. Errors name the key and the value:
//
//   auto spec = railyard::topology::parse_cluster("rail_fat_tree:hosts=256,oversub=2:1");
//   if (!spec.ok()) { std::cerr << spec.status().message() << "\n"; return 2; }
//   auto again = railyard::topology::parse_cluster(to_spec_string(*spec));  // == *spec
//   auto one = railyard::topology::parse_cluster("rail_only:hosts=64,tiers=1");  // 8 switches
//   // "rail_fat_tree:hosts=64,tiers=1" fails: rails need spines to meet; use rail_only
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "railyard/core/lazy.hpp"
#include "railyard/core/spec.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/shape.hpp"

namespace railyard::topology {

// Parses a spec string or preset name into a valid ClusterSpec. Errors name the
// key and value: unknown key, missing required key, non-numeric, zero or negative,
// and inconsistent values (see ShapeProblem in shape.hpp).
RAILYARD_LAZY
[[nodiscard]] StatusOr<ClusterSpec> parse_cluster(std::string_view text) {
  for (const Preset& preset : kPresets)
    if (text == preset.name) return parse_cluster(preset.spec);

  // The kind comes first: "h100-1024-2:1" is a mistyped preset (its ':' is the
  // ratio's), not a spec whose entry '1' lacks '=', and a preset takes no keys.
  const std::string_view kind = text.substr(0, text.find(':'));
  ClusterSpec s;
  bool known_kind = false;
  for (size_t k = 0; k < kKindNames.size(); ++k)
    if (kind == kKindNames[k]) {
      s.kind = static_cast<Kind>(k);
      known_kind = true;
    }
  if (!known_kind && !kind.empty()) {
    for (const Preset& preset : kPresets)
      if (kind == preset.name)
        return with_field(invalid_argument_error(str_cat(
                              "'", kind, "': a preset takes no keys; write its spec (",
                              preset.spec, ") with the keys changed instead")),
                          "kind", kind);
    std::string names;
    for (const Preset& preset : kPresets) str_append(names, names.empty() ? "" : ", ", preset.name);
    return with_field(invalid_argument_error(str_cat("'", kind,
                                                     "': unknown cluster kind or preset (kinds: ",
                                                     join(kKindNames, ", "), "; presets: ", names,
                                                     ")")),
                      "kind", kind);
  }
  RAILYARD_ASSIGN_OR_RETURN(SpecReader reader, SpecReader::parse(text));
  constexpr int64_t kMaxHosts = 1 << 20;
  auto as32 = [](int64_t v) { return static_cast<int32_t>(v); };
  RAILYARD_ASSIGN_OR_RETURN(int64_t hosts, reader.required_int("hosts", 1, kMaxHosts));
  s.hosts = as32(hosts);
  RAILYARD_ASSIGN_OR_RETURN(int64_t gpus, reader.integer("gpus_per_host", 8, 1, 64));
  s.gpus_per_host = as32(gpus);
  RAILYARD_ASSIGN_OR_RETURN(int64_t nics, reader.integer("nics_per_host", 8, 1, 64));
  s.nics_per_host = as32(nics);
  RAILYARD_ASSIGN_OR_RETURN(int64_t nic_gbps, reader.integer("nic_gbps", 400, 1, 100000));
  s.nic_gbps = as32(nic_gbps);
  // tiers first: a one-tier cluster is one SU, so hosts_per_su defaults to hosts.
  RAILYARD_ASSIGN_OR_RETURN(int64_t tiers, reader.integer("tiers", 2, 1, 3));
  s.tiers = as32(tiers);
  RAILYARD_ASSIGN_OR_RETURN(int64_t per_su,
                            reader.integer("hosts_per_su", s.tiers == 1 ? s.hosts : 32, 1, kMaxHosts));
  s.hosts_per_su = as32(per_su);
  RAILYARD_ASSIGN_OR_RETURN(int64_t radix,
                            reader.integer("switch_radix", 64, 2, kMaxSwitchRadix));
  s.switch_radix = as32(radix);
  RAILYARD_ASSIGN_OR_RETURN(s.oversub, reader.ratio("oversub", Ratio{1, 1}));
  RAILYARD_ASSIGN_OR_RETURN(int64_t sus_per_pod, reader.integer("sus_per_pod", 0, 1, kMaxHosts));
  s.sus_per_pod = as32(sus_per_pod);
  RAILYARD_ASSIGN_OR_RETURN(s.pod_oversub, reader.ratio("pod_oversub", Ratio{1, 1}));
  RAILYARD_ASSIGN_OR_RETURN(int64_t scale_up,
                            reader.integer("scale_up", s.gpus_per_host, 1, 1 << 20));
  s.scale_up = as32(scale_up);
  RAILYARD_ASSIGN_OR_RETURN(int64_t nvlink, reader.integer("nvlink_gbps", 3600, 1, 1000000));
  s.nvlink_gbps = as32(nvlink);
  RAILYARD_ASSIGN_OR_RETURN(int64_t planes, reader.integer("planes", 1, 1, 16));
  s.planes = as32(planes);
  RAILYARD_ASSIGN_OR_RETURN(int layout, reader.choice("switch_layout", {"reference", "vms"}, 0));
  s.switch_layout = static_cast<SwitchLayout>(layout);
  RAILYARD_ASSIGN_OR_RETURN(
      int gpu, reader.choice("gpu", {"h100", "h200", "b200", "b300", "gb200", "gb300", "a100"}, 0));
  s.gpu = static_cast<GpuModel>(gpu);
  RAILYARD_ASSIGN_OR_RETURN(int cpu, reader.choice("cpu", {"intel", "amd", "grace"},
                                                   static_cast<int>(default_cpu(s.gpu))));
  s.cpu = static_cast<CpuModel>(cpu);
  if (grace_superchip(s.gpu) && s.cpu != CpuModel::kGrace)
    return invalid_field("cpu", to_string(s.cpu),
                         str_cat("a ", to_string(s.gpu), " host's CPU is Grace (cpu=grace)"));
  for (auto [key, field] : {std::pair{"host_leaf_m", &ClusterSpec::host_leaf_m},
                            std::pair{"leaf_spine_m", &ClusterSpec::leaf_spine_m},
                            std::pair{"spine_core_m", &ClusterSpec::spine_core_m}}) {
    RAILYARD_ASSIGN_OR_RETURN(int64_t metres,
                              reader.integer(key, kCableByMedium, 0, kMaxCableLengthM));
    s.*field = as32(metres);
  }
  RAILYARD_RETURN_IF_ERROR(
      reader.finish({"hosts", "gpus_per_host", "nics_per_host", "nic_gbps", "hosts_per_su",
                     "switch_radix", "oversub", "tiers", "sus_per_pod", "pod_oversub", "scale_up",
                     "nvlink_gbps", "planes", "switch_layout", "gpu", "cpu", "host_leaf_m",
                     "leaf_spine_m", "spine_core_m"}));
  RAILYARD_RETURN_IF_ERROR(check_shape(s));
  return s;
}

}  // namespace railyard::topology
