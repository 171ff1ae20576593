// railyard/topology/cluster_spec.hpp — the cluster spec: what a user writes to
// describe a cluster, parsed and checked.
//
// A spec string is `KIND:key=value,...` or a preset name (see docs/cluster-spec.md for the
// keys). ClusterSpec holds its values with defaults filled in; parse_cluster()
// (parse_cluster.hpp) produces one and check_shape() (shape.hpp) validates it.
//
//   railyard::topology::ClusterSpec spec;            // the defaults of docs/cluster-spec.md
//   spec.hosts = 256;
//   spec.oversub = {2, 1};
//   std::string text = railyard::topology::to_spec_string(spec);
//   // "rail_fat_tree:hosts=256,...,oversub=2:1,..." -- parse_cluster(text) == spec
//
// hosts need not be a multiple of hosts_per_su (nor, with tiers=3, the SUs of
// sus_per_pod): the last SU or pod is partial and cabled as a full one
// (shape.hpp); "rail_fat_tree:hosts=100" is 4 SUs, the last with 4 hosts.
//
// One-tier clusters: spec.tiers = 1 with hosts_per_su = hosts (one switch per
// rail for rail_only, one for every NIC for tor_fat_tree); cable lengths per
// tier: host_leaf_m, leaf_spine_m, spine_core_m (kCableByMedium: by medium).
//
// ClusterSpec is a literal type, so a cluster can also be written in constexpr
// code (see descriptor.hpp for compile-time descriptors).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::topology {

// How hosts attach to leaves and what lies above them.
enum class Kind : uint8_t {
  kRailFatTree,  // NIC i of every host in an SU -> leaf i of that SU; leaves -> spines
  kTorFatTree,   // all NICs of a host -> one top-of-rack leaf; leaves -> spines
  kRailOnly,     // like a rail fat tree, but the upper tiers are separate per rail:
                 // no network path joins two rails (NVLink forwards across rails)
};

// Where switches sit, which decides cable media (see inventory.hpp).
enum class SwitchLayout : uint8_t {
  kReference,  // leaves and spines in network racks of their own: optics above hosts
  kVms,        // virtual modular switch: spine racks between leaf racks, leaf-spine copper
};

// The GPU of every host: NCCL's model keys its constants on the compute
// capability (tuning.cc compCapIndex), and the topology file on the CPU/GPU
// attachment (GB200/GB300: Grace CPUs, GPUs on NVLink-C2C).
enum class GpuModel : uint8_t { kH100, kH200, kB200, kB300, kGb200, kGb300, kA100 };
// The host CPU: NCCL's model keys LL bandwidth and network overhead on it
// (tuning.cc llMaxBws index1, getNetOverhead); the topology file writes it.
enum class CpuModel : uint8_t { kIntel, kAmd, kGrace };

inline constexpr std::array<std::string_view, 7> kGpuModelNames = {"h100",  "h200",  "b200", "b300",
                                                                   "gb200", "gb300", "a100"};
inline constexpr std::array<std::string_view, 3> kCpuModelNames = {"intel", "amd", "grace"};

[[nodiscard]] constexpr std::string_view to_string(GpuModel g) {
  return kGpuModelNames[static_cast<size_t>(g)];
}
[[nodiscard]] constexpr std::string_view to_string(CpuModel c) {
  return kCpuModelNames[static_cast<size_t>(c)];
}
// CUDA compute capability x 10 (nvidia-smi's compute_cap; NCCL's `sm`).
[[nodiscard]] constexpr int32_t compute_capability(GpuModel g) {
  switch (g) {
    case GpuModel::kA100: return 80;
    case GpuModel::kH100:
    case GpuModel::kH200: return 90;
    case GpuModel::kB200:
    case GpuModel::kGb200: return 100;
    case GpuModel::kB300:
    case GpuModel::kGb300: return 103;
  }
  return 90;
}
// Grace-Blackwell superchips: the GPU hangs off a Grace CPU over NVLink-C2C.
[[nodiscard]] constexpr bool grace_superchip(GpuModel g) {
  return g == GpuModel::kGb200 || g == GpuModel::kGb300;
}
// The CPU a host of this GPU has unless the spec says otherwise.
[[nodiscard]] constexpr CpuModel default_cpu(GpuModel g) {
  return grace_superchip(g) ? CpuModel::kGrace : CpuModel::kIntel;
}

inline constexpr std::array<std::string_view, 3> kKindNames = {"rail_fat_tree", "tor_fat_tree",
                                                               "rail_only"};
inline constexpr std::array<std::string_view, 2> kSwitchLayoutNames = {"reference", "vms"};

[[nodiscard]] constexpr std::string_view to_string(Kind kind) {
  return kKindNames[static_cast<size_t>(kind)];
}
[[nodiscard]] constexpr std::string_view to_string(SwitchLayout layout) {
  return kSwitchLayoutNames[static_cast<size_t>(layout)];
}

// A cable length key left out: the length follows the cable's medium.
inline constexpr int32_t kCableByMedium = -1;
// The longest cable a spec may give (m): NVUE's PFC cable-length takes 1..100000 m.
inline constexpr int32_t kMaxCableLengthM = 100000;
// The largest switch radix a spec may give. Real switch ASICs have at most 512
// ports, but a user may model a whole chassis or a disaggregated (DDC) cluster
// of up to 32,768 ports as one switch; 65,536 leaves room for that. Nothing is
// allocated per port (only per cable used) and every product of a radix with a
// port or switch count is computed in 64 bits, so the bound is a plausibility
// limit, not an encoding one.
inline constexpr int32_t kMaxSwitchRadix = 65536;

// Everything a cluster spec says, with defaults filled in. Field meanings are the
// spec keys of docs/cluster-spec.md. A ClusterSpec returned by parse_cluster() is valid:
// derive_shape() (shape.hpp) succeeds on it.
struct ClusterSpec {
  Kind kind = Kind::kRailFatTree;
  int32_t hosts = 0;
  int32_t gpus_per_host = 8;
  int32_t nics_per_host = 8;   // rails, when equal to gpus_per_host
  int32_t nic_gbps = 400;      // speed of one NIC port (every link of the fabric runs at it)
  int32_t hosts_per_su = 32;   // hosts under one leaf group
  int32_t switch_radix = 64;   // ports per switch
  Ratio oversub{1, 1};         // leaf down:up
  int32_t tiers = 2;           // 1 (one switch per partition), 2 (leaf, spine) or 3 (+ core)
  int32_t sus_per_pod = 0;     // SUs per pod; 0 when tiers == 2
  Ratio pod_oversub{1, 1};     // spine down:up when tiers == 3
  int32_t scale_up = 8;        // GPUs per NVLink domain
  int32_t nvlink_gbps = 3600;  // per-GPU NVLink bandwidth, one direction
  int32_t planes = 1;          // ports per NIC, each in its own plane
  SwitchLayout switch_layout = SwitchLayout::kReference;
  GpuModel gpu = GpuModel::kH100;
  CpuModel cpu = CpuModel::kIntel;  // default_cpu(gpu) unless given
  // Cable lengths in metres per tier, which set each link's propagation latency
  // (kCableNsPerMetre); kCableByMedium: the assumption of descriptor.hpp
  // (copper 3 m, host-leaf optical 30 m, leaf-spine 50 m, spine-core 150 m).
  int32_t host_leaf_m = kCableByMedium;
  int32_t leaf_spine_m = kCableByMedium;
  int32_t spine_core_m = kCableByMedium;

  friend constexpr bool operator==(const ClusterSpec&, const ClusterSpec&) = default;

  [[nodiscard]] constexpr int64_t gpus() const { return int64_t{hosts} * gpus_per_host; }
  [[nodiscard]] constexpr int64_t nics() const { return int64_t{hosts} * nics_per_host; }
  // SUs, the last one partial when hosts is not a multiple of hosts_per_su
  // (shape.hpp: a partial SU is cabled like a full one).
  [[nodiscard]] constexpr int32_t sus() const { return (hosts + hosts_per_su - 1) / hosts_per_su; }
};

// The keys parse_cluster() accepts, in canonical order.
inline constexpr std::array<std::string_view, 19> kClusterKeys = {
    "hosts",        "gpus_per_host", "nics_per_host", "nic_gbps",      "hosts_per_su",
    "switch_radix", "oversub",       "tiers",         "sus_per_pod",   "pod_oversub",
    "scale_up",     "nvlink_gbps",   "planes",        "switch_layout", "gpu",
    "cpu",          "host_leaf_m",   "leaf_spine_m",  "spine_core_m"};

// The canonical spec string: kind and every key in kClusterKeys order (keys at
// their default for tiers=2, such as sus_per_pod, are left out; gpu only when
// not h100, cpu only when not the GPU's default_cpu; cable lengths only when given).
RAILYARD_LAZY
[[nodiscard]] std::string to_spec_string(const ClusterSpec& s) {
  std::string out =
      str_cat(to_string(s.kind), ":hosts=", s.hosts, ",gpus_per_host=", s.gpus_per_host,
              ",nics_per_host=", s.nics_per_host, ",nic_gbps=", s.nic_gbps,
              ",hosts_per_su=", s.hosts_per_su, ",switch_radix=", s.switch_radix,
              ",oversub=", s.oversub.down, ":", s.oversub.up, ",tiers=", s.tiers);
  if (s.tiers == 3)
    str_append(out, ",sus_per_pod=", s.sus_per_pod, ",pod_oversub=", s.pod_oversub.down, ":",
               s.pod_oversub.up);
  str_append(out, ",scale_up=", s.scale_up, ",nvlink_gbps=", s.nvlink_gbps, ",planes=", s.planes,
             ",switch_layout=", to_string(s.switch_layout));
  if (s.gpu != GpuModel::kH100) str_append(out, ",gpu=", to_string(s.gpu));
  if (s.cpu != default_cpu(s.gpu)) str_append(out, ",cpu=", to_string(s.cpu));
  if (s.host_leaf_m != kCableByMedium) str_append(out, ",host_leaf_m=", s.host_leaf_m);
  if (s.leaf_spine_m != kCableByMedium) str_append(out, ",leaf_spine_m=", s.leaf_spine_m);
  if (s.spine_core_m != kCableByMedium) str_append(out, ",spine_core_m=", s.spine_core_m);
  return out;
}

// A named cluster. `spec` is a spec string in the ordinary grammar.
struct Preset {
  std::string_view name;
  std::string_view spec;
  std::string_view description;
};

// The embedded presets; what each models: docs/cluster-spec.md#presets.
inline constexpr std::array<Preset, 8> kPresets = {{
    {"h100-1024", "rail_fat_tree:hosts=128",
     "128 HGX H100 hosts, 8x400G rails, 4 SUs of 32 hosts, 64-port switches, non-blocking"},
    {"h100-1024-2to1", "rail_fat_tree:hosts=128,oversub=2:1",
     "h100-1024 with 2:1 leaf oversubscription (the default cluster)"},
    {"h100-1024-tor", "tor_fat_tree:hosts=128",
     "128 HGX H100 hosts, all 8 NICs of a host on one top-of-rack leaf, non-blocking"},
    {"h100-1024-railonly", "rail_only:hosts=128,hosts_per_su=128,switch_radix=128",
     "128 HGX H100 hosts, one 128-port switch per rail, no spine (cross-rail over NVLink)"},
    {"h100-1024-dualplane", "rail_fat_tree:hosts=128,nic_gbps=200,planes=2",
     "128 HGX H100 hosts, each NIC 2x200G ports in two separate planes"},
    {"gb200-nvl72-576",
     "rail_fat_tree:hosts=144,gpus_per_host=4,nics_per_host=4,hosts_per_su=18,scale_up=72,"
     "nvlink_gbps=7200,gpu=gb200",
     "8 GB200 NVL72 racks (18 hosts x 4 GPUs each), 4x400G rails, one SU per rack"},
    {"h100-16k-3tier", "rail_fat_tree:hosts=2048,tiers=3,sus_per_pod=4",
     "16,384 H100 GPUs: 64 SUs of 32 hosts, pods of 4 SUs, non-blocking 3-tier"},
    {"h100-128k-3tier",
     "rail_fat_tree:hosts=16384,hosts_per_su=64,switch_radix=128,tiers=3,sus_per_pod=8",
     "131,072 H100 GPUs on 128-port switches: 256 SUs of 64 hosts, pods of 8 SUs, 3-tier"},
}};

inline constexpr std::string_view kDefaultCluster = "h100-1024-2to1";

}  // namespace railyard::topology
