// railyard/topology/shape.hpp — how many switches of each tier a cluster spec
// needs and how they are wired, derived from radix, host count and
// oversubscription (never looked up in a table).
//
//   constexpr railyard::topology::ClusterSpec spec{.hosts = 128};
//   constexpr auto result = railyard::topology::derive_shape(spec);
//   static_assert(result.ok() && result.shape.total_spines() == 16);
//
// The construction (state it once, everything else follows from it):
//
// * The fabric is `planes` independent copies (one per NIC port). Inside a plane,
//   a rail_only fabric is split again into one partition per rail; the other kinds
//   have one partition. Partitions share no switch.
// * Leaves. rail_fat_tree / rail_only: one leaf per (SU, rail) with one down-port
//   per host of the SU. tor_fat_tree: a leaf takes all NICs of `hosts_per_leaf`
//   hosts, the largest divisor of hosts_per_su whose ports fit the leaf's down
//   share. A leaf may use at most floor(radix * d / (d + u)) ports downward for
//   oversub d:u, and gets ceil(down * u / d) uplinks.
// * Spines. Tiers=2: one pod holds every leaf of a partition. Tiers=3: a pod holds
//   sus_per_pod SUs. A pod's spines are S = ceil(pod_leaf_uplinks / spine_down_max)
//   where spine_down_max is the radix (tiers=2, the top tier) or
//   floor(radix * pd / (pd + pu)) for pod_oversub pd:pu. Leaf l of a pod (l counted
//   inside the pod) sends its uplink j to spine (l*U + j) mod S: spine port loads
//   differ by at most one and every leaf reaches every spine, which needs U >= S.
// * Cores (tiers=3 with more than one pod). Spine s of every pod connects only to
//   core group s, of G = ceil(pods * Us / radix) cores; spine s of pod p sends
//   uplink j to core (p*Us + j) mod G of its group. Needs Us >= G.
// * A partition with a single leaf (and single pod) needs no spine: U = 0, and
//   that leaf may give all its ports to hosts.
// * Tiers=1 asks for exactly that: one SU whose every partition is one switch
//   (rail_only: one switch per rail; tor_fat_tree: one switch for every NIC;
//   rail_fat_tree only with one NIC per host, since joining rails needs spines).
//   Such a fabric has no uplinks, so oversub, sus_per_pod and pod_oversub do
//   not apply; the switch needs hosts (rail) or hosts x NICs (ToR) ports.
// * Partial SUs and pods. hosts need not be a multiple of hosts_per_su: there are
//   ceil(hosts / hosts_per_su) SUs and the last one holds the remainder (hosts
//   are numbered SU-major, so it holds the highest ids). Its leaves are those of a
//   full SU with the same uplinks, as a real SU is cabled for its full count
//   before every rack is filled: the missing hosts' ports stay free on its leaves
//   (a tor_fat_tree SU keeps all its ToR leaves, so a leaf past the last host may
//   hold none). Likewise, with tiers=3 the SUs need not be a multiple of
//   sus_per_pod: the last pod has fewer SUs but the spines of a full pod, with
//   free down ports. Every count above therefore follows from the full SU and
//   pod; only hosts, host ports and host-leaf cables follow the real host count.
//   Tiers=1 has no partial SU: its one SU is the whole cluster (hosts_per_su =
//   hosts).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/cluster_spec.hpp"

namespace railyard::topology {

// The derived shape of one cluster. Counts marked "per partition" hold for each
// (plane, partition) pair alike.
struct ClosShape {
  int32_t partitions = 1;        // per plane: rails for rail_only, else 1
  int32_t sus = 0;               // scalable units (leaf groups), the last one maybe partial
  int32_t pods = 1;              // spine groups (1 when tiers == 2), the last one maybe partial
  int32_t sus_per_pod = 0;       // SUs in one pod
  int32_t hosts_per_domain = 1;  // hosts in one NVLink domain
  int32_t leaves_per_su = 0;     // per plane, all partitions together
  int32_t hosts_per_leaf = 0;    // hosts attached to one leaf
  int32_t leaf_down_ports = 0;   // host-facing ports cabled on each leaf (a partial SU uses fewer)
  int32_t leaf_up_ports = 0;     // U: uplinks per leaf (0 if the partition has one leaf)
  int32_t leaves_per_pod = 0;    // per partition: leaves of one pod
  int32_t spines_per_pod = 0;    // S, per partition
  int32_t spine_down_ports = 0;  // most down-ports used on one spine: ceil(Lp*U/S)
  int32_t spine_up_ports = 0;    // Us: uplinks per spine (0 unless tiers == 3 and pods > 1)
  int32_t cores_per_group = 0;   // G: cores serving spine index s of every pod
  int32_t planes = 1;

  // Totals over the whole cluster.
  [[nodiscard]] constexpr int64_t total_leaves() const {
    return int64_t{planes} * sus * leaves_per_su;
  }
  [[nodiscard]] constexpr int64_t total_spines() const {
    return int64_t{planes} * partitions * pods * spines_per_pod;
  }
  [[nodiscard]] constexpr int64_t total_cores() const {
    return int64_t{planes} * partitions * spines_per_pod * cores_per_group;
  }
  [[nodiscard]] constexpr int64_t leaf_spine_links() const {
    return total_leaves() * leaf_up_ports;
  }
  [[nodiscard]] constexpr int64_t spine_core_links() const {
    return total_spines() * spine_up_ports;
  }
  // Leaves of one partition of one plane.
  [[nodiscard]] constexpr int32_t leaves_per_partition() const {
    return sus * leaves_per_su / partitions;
  }
};

// Why a spec has no valid shape. Each names the key a user must change.
enum class ShapeProblem : uint8_t {
  kNone,
  kOutOfRange,                // a field outside the range parse_cluster() accepts
  kNicsGpusMismatch,          // neither of nics_per_host, gpus_per_host divides the other
  kScaleUpNotMultipleOfHost,  // scale_up % gpus_per_host != 0
  kHostsNotMultipleOfDomain,  // hosts % (scale_up / gpus_per_host) != 0
  kDomainStraddlesSu,         // an NVLink domain would span two SUs partly
  kSusPerPodMissing,          // tiers=3 without sus_per_pod
  kSusPerPodWithTwoTiers,     // sus_per_pod given with tiers=2
  kPodOversubWithTwoTiers,    // pod_oversub given with tiers=2
  kSinglePod,                 // tiers=3 but sus_per_pod covers every SU: no core is needed
  kSuExceedsLeafPorts,        // rail leaf: hosts_per_su > leaf down ports
  kHostExceedsLeafPorts,      // ToR leaf: one host's NICs exceed the leaf down ports
  kLeafCannotReachSpines,     // U < S: radix too small for the pod; use tiers=3 / smaller pods
  kSpineRadixExceeded,        // spine down + up > radix (a guard: the ceil/floor pair keeps it)
  kSpineCannotReachCores,     // Us < G: too many pods for the radix
  kOversubWithOneTier,        // oversub given with tiers=1 (no uplinks)
  kOneTierSeveralSus,         // tiers=1 but hosts_per_su != hosts (several or a partial SU)
  kOneTierRailsNeedSpine,     // tiers=1 rail_fat_tree with several rails: use rail_only
  kOneTierSwitchTooSmall,     // tiers=1: the one switch lacks ports for every host NIC
};

struct ShapeResult {
  ClosShape shape;
  ShapeProblem problem = ShapeProblem::kNone;
  [[nodiscard]] constexpr bool ok() const { return problem == ShapeProblem::kNone; }
};

namespace detail {
[[nodiscard]] constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The first field outside the ranges parse_cluster() enforces, or "" if none
// (descriptors built from a hand-written ClusterSpec go through this too).
[[nodiscard]] constexpr std::string_view out_of_range_field(const ClusterSpec& s) {
  if (s.hosts < 1 || s.hosts > (1 << 20)) return "hosts";
  if (s.gpus_per_host < 1 || s.gpus_per_host > 64) return "gpus_per_host";
  if (s.nics_per_host < 1 || s.nics_per_host > 64) return "nics_per_host";
  if (s.nic_gbps < 1) return "nic_gbps";
  if (s.hosts_per_su < 1) return "hosts_per_su";
  if (s.switch_radix < 2 || s.switch_radix > kMaxSwitchRadix) return "switch_radix";
  if (s.oversub.down < s.oversub.up || s.oversub.up < 1) return "oversub";
  if (s.tiers < 1 || s.tiers > 3) return "tiers";
  if (s.sus_per_pod < 0) return "sus_per_pod";
  if (s.pod_oversub.down < s.pod_oversub.up || s.pod_oversub.up < 1) return "pod_oversub";
  if (s.scale_up < 1) return "scale_up";
  if (s.nvlink_gbps < 1) return "nvlink_gbps";
  if (s.planes < 1 || s.planes > 16) return "planes";
  auto bad_cable = [](int32_t m) {
    return m != kCableByMedium && (m < 0 || m > kMaxCableLengthM);
  };
  if (bad_cable(s.host_leaf_m)) return "host_leaf_m";
  if (bad_cable(s.leaf_spine_m)) return "leaf_spine_m";
  if (bad_cable(s.spine_core_m)) return "spine_core_m";
  return "";
}

// Whether each partition of the cluster is served by one leaf, which then needs
// no uplinks and may give every port to hosts: one SU, and one leaf per SU and
// partition (rail_only always; a rail fat tree with one NIC per host; a ToR
// fat tree whose SU fits on one switch).
[[nodiscard]] constexpr bool one_leaf_per_partition(const ClusterSpec& s) {
  // A lone partial SU is one SU too: its leaves are those of a full SU.
  if (s.hosts > s.hosts_per_su) return false;
  switch (s.kind) {
    case Kind::kRailOnly:
      return true;
    case Kind::kRailFatTree:
      return s.nics_per_host == 1;
    case Kind::kTorFatTree:
      return int64_t{s.hosts_per_su} * s.nics_per_host <= s.switch_radix;
  }
  return false;
}

// Host ports the one switch of a partition needs on a one-tier fabric: one per
// host on a rail switch, every NIC of every host on a ToR switch.
[[nodiscard]] constexpr int64_t one_tier_ports(const ClusterSpec& s) {
  return s.kind == Kind::kTorFatTree ? int64_t{s.hosts} * s.nics_per_host : s.hosts;
}

// Ports a leaf may give to hosts: all of them for a lone leaf, else its share
// of the radix at oversub d:u, floor(radix * d / (d + u)).
[[nodiscard]] constexpr int64_t leaf_down_limit(const ClusterSpec& s) {
  if (one_leaf_per_partition(s)) return s.switch_radix;
  return int64_t{s.switch_radix} * s.oversub.down / (s.oversub.down + s.oversub.up);
}
}  // namespace detail

// Derives the shape of `s`, or the first problem that prevents one. Field values
// are assumed in the ranges parse_cluster() enforces. O(hosts_per_su) at worst.
[[nodiscard]] constexpr ShapeResult derive_shape(const ClusterSpec& s) {
  using detail::ceil_div;
  ShapeResult r;
  ClosShape& c = r.shape;
  auto fail = [&r](ShapeProblem p) {
    r.problem = p;
    return r;
  };
  c.planes = s.planes;
  if (!detail::out_of_range_field(s).empty()) return fail(ShapeProblem::kOutOfRange);
  if (s.nics_per_host % s.gpus_per_host != 0 && s.gpus_per_host % s.nics_per_host != 0)
    return fail(ShapeProblem::kNicsGpusMismatch);
  if (s.scale_up % s.gpus_per_host != 0) return fail(ShapeProblem::kScaleUpNotMultipleOfHost);
  c.hosts_per_domain = s.scale_up / s.gpus_per_host;
  if (s.hosts % c.hosts_per_domain != 0) return fail(ShapeProblem::kHostsNotMultipleOfDomain);
  if (s.hosts_per_su % c.hosts_per_domain != 0 && c.hosts_per_domain % s.hosts_per_su != 0)
    return fail(ShapeProblem::kDomainStraddlesSu);

  // The last SU may be partial (see the rule above).
  c.sus = static_cast<int32_t>(ceil_div(s.hosts, s.hosts_per_su));
  if (s.tiers == 1) {
    if (s.sus_per_pod != 0) return fail(ShapeProblem::kSusPerPodWithTwoTiers);
    if (!(s.pod_oversub == Ratio{1, 1})) return fail(ShapeProblem::kPodOversubWithTwoTiers);
    if (!(s.oversub == Ratio{1, 1})) return fail(ShapeProblem::kOversubWithOneTier);
    if (s.hosts_per_su != s.hosts) return fail(ShapeProblem::kOneTierSeveralSus);
    if (s.kind == Kind::kRailFatTree && s.nics_per_host > 1)
      return fail(ShapeProblem::kOneTierRailsNeedSpine);
    if (detail::one_tier_ports(s) > s.switch_radix)
      return fail(ShapeProblem::kOneTierSwitchTooSmall);
    c.sus_per_pod = 1;
    c.pods = 1;
  } else if (s.tiers == 2) {
    if (s.sus_per_pod != 0) return fail(ShapeProblem::kSusPerPodWithTwoTiers);
    if (!(s.pod_oversub == Ratio{1, 1})) return fail(ShapeProblem::kPodOversubWithTwoTiers);
    c.sus_per_pod = c.sus;
    c.pods = 1;
  } else {
    if (s.sus_per_pod == 0) return fail(ShapeProblem::kSusPerPodMissing);
    c.sus_per_pod = s.sus_per_pod;
    // The last pod may be partial (see the rule above).
    c.pods = static_cast<int32_t>(ceil_div(c.sus, s.sus_per_pod));
    // One pod would leave every spine's pod_oversub share of ports for cores that
    // do not exist; the same cluster is a 2-tier one.
    if (c.pods == 1) return fail(ShapeProblem::kSinglePod);
  }

  const int64_t radix = s.switch_radix;
  const int64_t leaf_down_max = detail::leaf_down_limit(s);
  if (s.kind == Kind::kTorFatTree) {
    if (s.nics_per_host > leaf_down_max) return fail(ShapeProblem::kHostExceedsLeafPorts);
    const int64_t fit = leaf_down_max / s.nics_per_host;
    int32_t per_leaf = 1;
    // A prime hosts_per_su larger than `fit` ends with one host per leaf: valid,
    // if wasteful; choose hosts_per_su with small divisors for ToR designs.
    for (int32_t d = 1; d <= s.hosts_per_su && d <= fit; ++d)
      if (s.hosts_per_su % d == 0) per_leaf = d;
    c.hosts_per_leaf = per_leaf;
    c.leaves_per_su = s.hosts_per_su / per_leaf;
    c.leaf_down_ports = per_leaf * s.nics_per_host;
    c.partitions = 1;
  } else {
    if (s.hosts_per_su > leaf_down_max) return fail(ShapeProblem::kSuExceedsLeafPorts);
    c.hosts_per_leaf = s.hosts_per_su;
    c.leaves_per_su = s.nics_per_host;
    c.leaf_down_ports = s.hosts_per_su;
    c.partitions = s.kind == Kind::kRailOnly ? s.nics_per_host : 1;
  }
  c.leaves_per_pod = c.sus_per_pod * c.leaves_per_su / c.partitions;

  const bool single_leaf = c.leaves_per_pod == 1 && c.pods == 1;
  if (single_leaf) return r;
  c.leaf_up_ports =
      static_cast<int32_t>(ceil_div(int64_t{c.leaf_down_ports} * s.oversub.up, s.oversub.down));
  const int64_t spine_down_max =
      s.tiers == 2 ? radix : radix * s.pod_oversub.down / (s.pod_oversub.down + s.pod_oversub.up);
  const int64_t pod_uplinks = int64_t{c.leaves_per_pod} * c.leaf_up_ports;
  c.spines_per_pod = static_cast<int32_t>(ceil_div(pod_uplinks, spine_down_max));
  if (c.leaf_up_ports < c.spines_per_pod) return fail(ShapeProblem::kLeafCannotReachSpines);
  c.spine_down_ports = static_cast<int32_t>(ceil_div(pod_uplinks, c.spines_per_pod));
  if (c.pods > 1) {
    c.spine_up_ports = static_cast<int32_t>(
        ceil_div(int64_t{c.spine_down_ports} * s.pod_oversub.up, s.pod_oversub.down));
    if (c.spine_down_ports + c.spine_up_ports > radix)
      return fail(ShapeProblem::kSpineRadixExceeded);
    c.cores_per_group = static_cast<int32_t>(ceil_div(int64_t{c.pods} * c.spine_up_ports, radix));
    if (c.spine_up_ports < c.cores_per_group) return fail(ShapeProblem::kSpineCannotReachCores);
  }
  return r;
}

// The message for a failed derive_shape(): names the key and value to change and
// the numbers that conflict.
RAILYARD_LAZY
[[nodiscard]] std::string describe_problem(const ClusterSpec& s, const ShapeResult& r) {
  const ClosShape& c = r.shape;
  auto ratio = [](Ratio q) { return str_cat(q.down, ":", q.up); };
  switch (r.problem) {
    case ShapeProblem::kNone:
      return "ok";
    case ShapeProblem::kOutOfRange: {
      const std::string_view key = detail::out_of_range_field(s);
      // The value too: a hand-built ClusterSpec (no parse_cluster() in between)
      // lands here, and its author needs to see what the field held.
      std::string value;
      if (key == "hosts") value = str_cat(s.hosts);
      if (key == "gpus_per_host") value = str_cat(s.gpus_per_host);
      if (key == "nics_per_host") value = str_cat(s.nics_per_host);
      if (key == "nic_gbps") value = str_cat(s.nic_gbps);
      if (key == "hosts_per_su") value = str_cat(s.hosts_per_su);
      if (key == "switch_radix") value = str_cat(s.switch_radix);
      if (key == "oversub") value = ratio(s.oversub);
      if (key == "tiers") value = str_cat(s.tiers);
      if (key == "sus_per_pod") value = str_cat(s.sus_per_pod);
      if (key == "pod_oversub") value = ratio(s.pod_oversub);
      if (key == "scale_up") value = str_cat(s.scale_up);
      if (key == "nvlink_gbps") value = str_cat(s.nvlink_gbps);
      if (key == "planes") value = str_cat(s.planes);
      if (key == "host_leaf_m") value = str_cat(s.host_leaf_m);
      if (key == "leaf_spine_m") value = str_cat(s.leaf_spine_m);
      if (key == "spine_core_m") value = str_cat(s.spine_core_m);
      return str_cat(key, "=", value,
                     ": value out of range (parse_cluster() lists the valid ranges)");
    }
    case ShapeProblem::kSinglePod:
      return str_cat("sus_per_pod=", s.sus_per_pod, ": covers all ", c.sus,
                     " SUs, a single pod with no core tier; use tiers=2");
    case ShapeProblem::kNicsGpusMismatch:
      return str_cat("nics_per_host=", s.nics_per_host,
                     ": must divide or be a multiple of gpus_per_host=", s.gpus_per_host);
    case ShapeProblem::kScaleUpNotMultipleOfHost:
      return str_cat("scale_up=", s.scale_up,
                     ": not a multiple of gpus_per_host=", s.gpus_per_host);
    case ShapeProblem::kHostsNotMultipleOfDomain:
      return str_cat("hosts=", s.hosts, ": not a multiple of the ", c.hosts_per_domain,
                     " hosts of one NVLink domain (scale_up=", s.scale_up, ")");
    case ShapeProblem::kDomainStraddlesSu:
      return str_cat("scale_up=", s.scale_up, ": an NVLink domain of ", c.hosts_per_domain,
                     " hosts would straddle SUs of hosts_per_su=", s.hosts_per_su);
    case ShapeProblem::kSusPerPodMissing:
      return str_cat("sus_per_pod: required key is missing (tiers=3 needs sus_per_pod=N)");
    case ShapeProblem::kSusPerPodWithTwoTiers:
      return str_cat("sus_per_pod=", s.sus_per_pod, ": only applies to tiers=3");
    case ShapeProblem::kPodOversubWithTwoTiers:
      return str_cat("pod_oversub=", ratio(s.pod_oversub), ": only applies to tiers=3");
    case ShapeProblem::kSuExceedsLeafPorts:
      return str_cat("hosts_per_su=", s.hosts_per_su, ": exceeds the ", detail::leaf_down_limit(s),
                     " host ports of a leaf with switch_radix=", s.switch_radix,
                     " and oversub=", ratio(s.oversub));
    case ShapeProblem::kHostExceedsLeafPorts:
      return str_cat("switch_radix=", s.switch_radix, ": a leaf cannot take the ", s.nics_per_host,
                     " NICs of one host at oversub=", ratio(s.oversub));
    case ShapeProblem::kLeafCannotReachSpines:
      return str_cat("switch_radix=", s.switch_radix, ": too small for this shape: a pod of ",
                     c.leaves_per_pod, " leaves needs ", c.spines_per_pod,
                     " spines but a leaf has only ", c.leaf_up_ports,
                     " uplinks (use tiers=3, fewer sus_per_pod, or a larger radix)");
    case ShapeProblem::kSpineRadixExceeded:
      return str_cat("switch_radix=", s.switch_radix, ": a spine needs ", c.spine_down_ports,
                     " down and ", c.spine_up_ports, " up ports");
    case ShapeProblem::kSpineCannotReachCores:
      return str_cat("switch_radix=", s.switch_radix, ": too small for this shape: ", c.pods,
                     " pods need ", c.cores_per_group,
                     " cores per spine group but a spine has only ", c.spine_up_ports,
                     " uplinks (use more sus_per_pod or a larger radix)");
    case ShapeProblem::kOversubWithOneTier:
      return str_cat("oversub=", ratio(s.oversub),
                     ": only applies to tiers=2 or 3 (a one-tier fabric has no uplinks)");
    case ShapeProblem::kOneTierSeveralSus:
      return str_cat("hosts_per_su=", s.hosts_per_su,
                     ": tiers=1 is one SU on one switch per partition, so hosts_per_su must equal "
                     "hosts=", s.hosts, " (or be left out)",
                     s.hosts % s.hosts_per_su != 0 ? "; a one-tier cluster has no partial SU" : "");
    case ShapeProblem::kOneTierRailsNeedSpine:
      return str_cat("tiers=1: a rail_fat_tree with ", s.nics_per_host,
                     " NICs per host needs spines to join its rail leaves; for one switch per "
                     "rail write rail_only (rails meet over NVLink), for one switch for every "
                     "NIC tor_fat_tree");
    case ShapeProblem::kOneTierSwitchTooSmall:
      return str_cat("switch_radix=", s.switch_radix, ": tiers=1 puts ",
                     detail::one_tier_ports(s),
                     s.kind == Kind::kTorFatTree ? " NIC ports (every NIC of every host)"
                                                 : " hosts (one port each)",
                     " on one switch; needs switch_radix >= ", detail::one_tier_ports(s));
  }
  return "unknown shape problem";
}

// railyard::Status form of derive_shape(): OK or InvalidArgument with describe_problem().
RAILYARD_LAZY
[[nodiscard]] Status check_shape(const ClusterSpec& s) {
  const ShapeResult r = derive_shape(s);
  if (r.ok()) return ok_status();
  return invalid_argument_error(describe_problem(s, r));
}

}  // namespace railyard::topology
