// railyard/topology/descriptor.hpp — closed-form topology descriptors.
//
// A descriptor answers structural questions in O(1) without building a graph:
// which leaf serves (host, rail, plane), which SU/pod/NVLink domain a host is in
// (and how many hosts a partial last SU holds: hosts_in_su),
// how many up/down paths join two NIC ports, and which uplinks each path takes.
// Extents (GPUs and NICs per host, hosts per SU, planes) may be fixed at compile
// time, as with std::extents, so code built for one SKU divides by constants and
// a spec can be checked by the compiler (static_descriptor). Everything above the
// descriptor takes the run-time ClusterDescriptor<> (what a Cluster holds).
//
//   // Run time: any spec.
//   auto spec = railyard::topology::parse_cluster("h100-1024-2to1");
//   auto desc = railyard::topology::make_descriptor(*spec);        // StatusOr
//   railyard::SwitchIndex leaf = desc->leaf_of(railyard::HostId{40}, railyard::RailId{3});
//
//   // Compile time: an HGX H100 SKU, fully checked by the compiler.
//   using Hgx = railyard::topology::Extents<8, 8, 32, 1>;
//   constexpr auto h100 = railyard::topology::static_descriptor<Hgx>({.hosts = 128});
//   static_assert(h100.shape().total_spines() == 16);
//   static_assert(h100.path_count({railyard::HostId{0}, railyard::NicIndex{0}},
//                                 {railyard::HostId{32}, railyard::NicIndex{0}}) == 64);
//   // (16 spines, 2 parallel cables from each leaf to each: 16 * 2 * 2 paths.)
//
// Path model: a path between two NIC ports of one plane (and, for rail_only, one
// rail) goes up from the source leaf only as far as the lowest tier where the two
// sides meet, then down. Parallel cables between the same two switches are
// distinct paths (ECMP sees distinct next hops). Ports of different planes or
// (rail_only) different rails have no network path.
#pragma once

#include <cstdint>
#include <type_traits>

#include "railyard/core/fast_div.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/shape.hpp"

namespace railyard::topology {

// Marks an extent that is known only at run time.
inline constexpr int32_t kDynamic = -1;

// Which extents are fixed at compile time. A static extent must equal the spec's
// value; make_descriptor() rejects a spec that disagrees.
template <int32_t GpusPerHost = kDynamic, int32_t NicsPerHost = kDynamic,
          int32_t HostsPerSu = kDynamic, int32_t Planes = kDynamic>
struct Extents {
  static constexpr int32_t kGpusPerHost = GpusPerHost;
  static constexpr int32_t kNicsPerHost = NicsPerHost;
  static constexpr int32_t kHostsPerSu = HostsPerSu;
  static constexpr int32_t kPlanes = Planes;
};
using DynamicExtents = Extents<>;

// Link classes of the fabric, bottom up.
enum class LinkTier : uint8_t {
  kPcie,       // GPU <-> NIC inside a host
  kNvlink,     // GPU <-> NVLink switch of its domain
  kHostLeaf,   // NIC port <-> leaf
  kLeafSpine,  // leaf <-> spine
  kSpineCore,  // spine <-> core
};
inline constexpr int kLinkTierCount = 5;
inline constexpr std::string_view kLinkTierNames[kLinkTierCount] = {"pcie", "nvlink", "host_leaf",
                                                                    "leaf_spine", "spine_core"};

// Physical medium of a cable; kInternal is inside a host or an NVLink rack.
enum class Medium : uint8_t { kInternal, kCopper, kOptical };
inline constexpr std::string_view kMediumNames[3] = {"internal", "copper", "optical"};

// Cable assumptions (ours, for a typical data hall; they set link latency at
// kCableNsPerMetre and decide transceiver counts):
// * Copper (DAC/ACC) reaches 3 m: inside a rack or to the adjacent rack.
// * tor_fat_tree: the leaf sits at the top of its hosts' rack -> host-leaf copper.
//   Rail designs: a rail leaf serves every host of an SU across many racks from a
//   network rack -> host-leaf optical, 30 m.
// * switch_layout=reference: leaf-spine optical, 50 m. switch_layout=vms: the
//   spine rack sits between leaf racks -> leaf-spine copper.
// * spine-core is always optical, 150 m (between rows).
inline constexpr double kCopperLengthM = 3.0;
inline constexpr double kHostLeafOpticalM = 30.0;
inline constexpr double kLeafSpineOpticalM = 50.0;
inline constexpr double kSpineCoreOpticalM = 150.0;

// One up/down path between two NIC ports, by the uplink ports it uses. `top`
// is the highest tier reached: 1 = the shared leaf, 2 = a spine, 3 = a core.
// Uplink ordinals: leaf uplink j in [0, U), spine uplink k in [0, Us); the
// source side climbs (src_leaf_uplink, src_spine_uplink) and the destination
// side descends through (dst_leaf_uplink, dst_spine_uplink). Unused fields are -1.
struct Route {
  int8_t top = 1;
  int32_t src_leaf_uplink = -1;
  int32_t dst_leaf_uplink = -1;
  int32_t src_spine_uplink = -1;
  int32_t dst_spine_uplink = -1;
  friend constexpr bool operator==(const Route&, const Route&) = default;
};

namespace detail {
// Number of pairs of equal targets when two members of a round-robin wiring send
// `per` links each over `mod` targets starting at offsets oa and ob:
// sum_s count_a(s) * count_b(s), where count_x(s) = q + [(s - o_x) mod mod < r].
[[nodiscard]] constexpr int64_t round_robin_pairs(int64_t oa, int64_t ob, int64_t per,
                                                  int64_t mod) {
  const int64_t q = per / mod;
  const int64_t r = per % mod;
  const int64_t d = ((ob - oa) % mod + mod) % mod;
  int64_t overlap = 0;
  if (r > d) overlap += r - d;
  if (r > mod - d) overlap += r - (mod - d);
  return mod * q * q + 2 * q * r + overlap;
}

// Called only when a static descriptor's spec is invalid: not constexpr, so the
// compiler reports the call site (the {fmt} trick).
inline void static_cluster_spec_is_invalid() {}
}  // namespace detail

template <class E = DynamicExtents>
class ClusterDescriptor {
 public:
  using extents_type = E;

  // Precondition: derive_shape(spec).ok() and the static extents match. Use
  // make_descriptor() or static_descriptor() instead of calling this directly.
  constexpr ClusterDescriptor(const ClusterSpec& spec, const ClosShape& shape)
      : spec_(spec), shape_(shape), fast_(make_fast_constants(spec, shape)) {}

  [[nodiscard]] constexpr const ClusterSpec& spec() const { return spec_; }
  [[nodiscard]] constexpr const ClosShape& shape() const { return shape_; }
  [[nodiscard]] constexpr Kind kind() const { return spec_.kind; }

  [[nodiscard]] constexpr int32_t hosts() const { return spec_.hosts; }
  [[nodiscard]] constexpr int32_t gpus_per_host() const {
    return extent<E::kGpusPerHost>(spec_.gpus_per_host);
  }
  [[nodiscard]] constexpr int32_t nics_per_host() const {
    return extent<E::kNicsPerHost>(spec_.nics_per_host);
  }
  [[nodiscard]] constexpr int32_t hosts_per_su() const {
    return extent<E::kHostsPerSu>(spec_.hosts_per_su);
  }
  [[nodiscard]] constexpr int32_t planes() const { return extent<E::kPlanes>(spec_.planes); }
  [[nodiscard]] constexpr int32_t rails() const { return nics_per_host(); }
  [[nodiscard]] constexpr int64_t gpus() const { return int64_t{hosts()} * gpus_per_host(); }
  [[nodiscard]] constexpr int32_t sus() const { return shape_.sus; }
  [[nodiscard]] constexpr int32_t pods() const { return shape_.pods; }
  [[nodiscard]] constexpr int32_t tiers() const { return spec_.tiers; }

  // Hosts of an SU and SUs of a pod: hosts_per_su and sus_per_pod, except in a
  // partial last SU or pod (shape.hpp), which holds the remainder. Hosts of SU
  // `su` are [first_host_of_su(su), first_host_of_su(su) + hosts_in_su(su)).
  [[nodiscard]] constexpr int32_t first_host_of_su(int32_t su) const {
    return su * hosts_per_su();
  }
  [[nodiscard]] constexpr int32_t hosts_in_su(int32_t su) const {
    const int32_t rest = hosts() - first_host_of_su(su);
    return rest < hosts_per_su() ? rest : hosts_per_su();
  }
  [[nodiscard]] constexpr int32_t sus_in_pod(int32_t pod) const {
    const int32_t rest = shape_.sus - pod * shape_.sus_per_pod;
    return rest < shape_.sus_per_pod ? rest : shape_.sus_per_pod;
  }
  // Whether the last SU (or, with tiers=3, the last pod) is partial.
  [[nodiscard]] constexpr bool partial_su() const { return hosts() % hosts_per_su() != 0; }
  [[nodiscard]] constexpr bool partial_pod() const {
    return shape_.sus % shape_.sus_per_pod != 0;
  }

  [[nodiscard]] constexpr SuId su_of(HostId h) const { return SuId{h.value() / hosts_per_su()}; }
  [[nodiscard]] constexpr PodId pod_of(HostId h) const {
    return PodId{su_of(h).value() / shape_.sus_per_pod};
  }
  // NVLink domain of a host (a host is its own domain unless scale_up spans hosts).
  [[nodiscard]] constexpr int32_t domain_of(HostId h) const {
    return h.value() / shape_.hosts_per_domain;
  }
  [[nodiscard]] constexpr int32_t hosts_per_domain() const { return shape_.hosts_per_domain; }

  // The NIC a GPU uses (its PCIe peer) and the GPU a NIC serves. When one of
  // gpus_per_host, nics_per_host is a multiple of the other, consecutive GPUs
  // share a NIC or consecutive NICs share a GPU.
  [[nodiscard]] constexpr NicIndex nic_of_gpu(GpuIndex g) const {
    if (nics_per_host() >= gpus_per_host())
      return NicIndex{g.value() * (nics_per_host() / gpus_per_host())};
    return NicIndex{g.value() / (gpus_per_host() / nics_per_host())};
  }
  [[nodiscard]] constexpr GpuIndex gpu_of_nic(NicIndex n) const {
    if (nics_per_host() >= gpus_per_host())
      return GpuIndex{n.value() / (nics_per_host() / gpus_per_host())};
    return GpuIndex{n.value() * (gpus_per_host() / nics_per_host())};
  }

  // Global leaf index of the leaf serving (host, rail) in `plane`. Leaves are
  // numbered plane-major, then SU, then rail (or ToR index). O(1).
  [[nodiscard]] constexpr SwitchIndex leaf_of(HostId h, RailId rail,
                                              PlaneId plane = PlaneId{0}) const {
    const int32_t su = h.value() / hosts_per_su();
    const int32_t in_su = spec_.kind == Kind::kTorFatTree
                              ? (h.value() % hosts_per_su()) / shape_.hosts_per_leaf
                              : rail.value();
    return SwitchIndex{(plane.value() * shape_.sus + su) * shape_.leaves_per_su + in_su};
  }
  [[nodiscard]] constexpr SwitchIndex leaf_of(NicPort p) const {
    return leaf_of(p.host, RailId{p.nic.value()}, p.plane);
  }

  // The partition (rail for rail_only, else 0) and pod of a leaf, and the leaf's
  // index inside its (plane, partition, pod): the `l` of the wiring rule.
  [[nodiscard]] constexpr int32_t partition_of_leaf(SwitchIndex leaf) const {
    return spec_.kind == Kind::kRailOnly ? leaf.value() % shape_.leaves_per_su : 0;
  }
  [[nodiscard]] constexpr int32_t pod_of_leaf(SwitchIndex leaf) const {
    return (leaf.value() / shape_.leaves_per_su) % shape_.sus / shape_.sus_per_pod;
  }
  [[nodiscard]] constexpr int32_t plane_of_leaf(SwitchIndex leaf) const {
    return leaf.value() / shape_.leaves_per_su / shape_.sus;
  }
  [[nodiscard]] constexpr int32_t leaf_index_in_pod(SwitchIndex leaf) const {
    const int32_t su_in_pod =
        (leaf.value() / shape_.leaves_per_su) % shape_.sus % shape_.sus_per_pod;
    const int32_t in_su = leaf.value() % shape_.leaves_per_su;
    if (spec_.kind == Kind::kRailOnly) return su_in_pod;
    return su_in_pod * shape_.leaves_per_su + in_su;
  }

  // Global spine index of spine s of (plane, partition, pod), and of the spine that
  // leaf uplink j reaches. Global core index of core g of group s in (plane, partition).
  [[nodiscard]] constexpr SwitchIndex spine_index(int32_t plane, int32_t partition, int32_t pod,
                                                  int32_t s) const {
    return SwitchIndex{
        ((plane * shape_.partitions + partition) * shape_.pods + pod) * shape_.spines_per_pod + s};
  }
  [[nodiscard]] constexpr int32_t spine_of_uplink(SwitchIndex leaf, int32_t j) const {
    return static_cast<int32_t>((int64_t{leaf_index_in_pod(leaf)} * shape_.leaf_up_ports + j) %
                                shape_.spines_per_pod);
  }
  [[nodiscard]] constexpr SwitchIndex spine_above(SwitchIndex leaf, int32_t j) const {
    return spine_index(plane_of_leaf(leaf), partition_of_leaf(leaf), pod_of_leaf(leaf),
                       spine_of_uplink(leaf, j));
  }
  [[nodiscard]] constexpr SwitchIndex core_index(int32_t plane, int32_t partition, int32_t s,
                                                 int32_t g) const {
    return SwitchIndex{((plane * shape_.partitions + partition) * shape_.spines_per_pod + s) *
                           shape_.cores_per_group +
                       g};
  }
  // Core reached by uplink k of spine `spine` (a global spine index).
  [[nodiscard]] constexpr SwitchIndex core_above(SwitchIndex spine, int32_t k) const {
    const int32_t s = spine.value() % shape_.spines_per_pod;
    const int32_t pod = spine.value() / shape_.spines_per_pod % shape_.pods;
    const int32_t plane_partition = spine.value() / shape_.spines_per_pod / shape_.pods;
    const auto g =
        static_cast<int32_t>((int64_t{pod} * shape_.spine_up_ports + k) % shape_.cores_per_group);
    return SwitchIndex{(plane_partition * shape_.spines_per_pod + s) * shape_.cores_per_group + g};
  }

  // Uplinks per switch of a tier (kHostLeaf: NIC ports per host).
  [[nodiscard]] constexpr int32_t uplinks(LinkTier tier) const {
    switch (tier) {
      case LinkTier::kHostLeaf:
        return nics_per_host() * planes();
      case LinkTier::kLeafSpine:
        return shape_.leaf_up_ports;
      case LinkTier::kSpineCore:
        return shape_.spine_up_ports;
      default:
        return 0;
    }
  }

  // Capacity of one link of a tier, per direction. Every network link runs at
  // nic_gbps. The Fabric joins a GPU to each port of its NIC with one kPcie link
  // at the port's rate: PCIe is assumed never to be the bottleneck (on HGX each
  // GPU/NIC pair has its own PCIe Gen5 switch).
  [[nodiscard]] constexpr double capacity_gbps(LinkTier tier) const {
    switch (tier) {
      case LinkTier::kNvlink:
        return spec_.nvlink_gbps;
      default:
        return spec_.nic_gbps;
    }
  }
  [[nodiscard]] constexpr Medium medium(LinkTier tier) const {
    switch (tier) {
      case LinkTier::kHostLeaf:
        return spec_.kind == Kind::kTorFatTree ? Medium::kCopper : Medium::kOptical;
      case LinkTier::kLeafSpine:
        return spec_.switch_layout == SwitchLayout::kVms ? Medium::kCopper : Medium::kOptical;
      case LinkTier::kSpineCore:
        return Medium::kOptical;
      default:
        return Medium::kInternal;
    }
  }
  // A spec's host_leaf_m / leaf_spine_m / spine_core_m win over the medium's
  // length (the medium still decides transceivers).
  [[nodiscard]] constexpr double cable_length_m(LinkTier tier) const {
    if (medium(tier) == Medium::kInternal) return 0.0;
    const int32_t given = tier == LinkTier::kHostLeaf    ? spec_.host_leaf_m
                          : tier == LinkTier::kLeafSpine ? spec_.leaf_spine_m
                                                         : spec_.spine_core_m;
    if (given != kCableByMedium) return given;
    if (medium(tier) == Medium::kCopper) return kCopperLengthM;
    if (tier == LinkTier::kHostLeaf) return kHostLeafOpticalM;
    if (tier == LinkTier::kLeafSpine) return kLeafSpineOpticalM;
    return kSpineCoreOpticalM;
  }
  // Propagation latency of one link of a tier (switch forwarding time is not a
  // link property and is left to the cost models).
  [[nodiscard]] constexpr double latency_ns(LinkTier tier) const {
    return cable_length_m(tier) * kCableNsPerMetre;
  }

  // Number of distinct up/down paths between two NIC ports (0 for the same port,
  // different planes, or rail_only ports on different rails). O(1), no
  // allocation, no hardware divide: this is the per-query hot path. It
  // evaluates detail::round_robin_pairs() (see for_each_route for the wiring)
  // with divisors prepared at construction.
  [[nodiscard]] constexpr int64_t path_count(NicPort a, NicPort b) const {
    const auto ha = static_cast<uint32_t>(a.host.value());
    const auto hb = static_cast<uint32_t>(b.host.value());
    const int32_t ra = a.nic.value();
    const int32_t rb = b.nic.value();
    if (a.plane != b.plane || (ha == hb && ra == rb)) return 0;
    const bool rail_only = spec_.kind == Kind::kRailOnly;
    const bool tor = spec_.kind == Kind::kTorFatTree;
    if (rail_only && ra != rb) return 0;
    const uint32_t su_a = su_index(ha);
    const uint32_t su_b = su_index(hb);
    // Position of the leaf inside its SU (within the partition for rail_only).
    const auto in_su_a = static_cast<int64_t>(
        tor ? fast_.hosts_per_leaf.div(ha - su_a * static_cast<uint32_t>(hosts_per_su()))
            : (rail_only ? 0 : ra));
    const auto in_su_b = static_cast<int64_t>(
        tor ? fast_.hosts_per_leaf.div(hb - su_b * static_cast<uint32_t>(hosts_per_su()))
            : (rail_only ? 0 : rb));
    if (su_a == su_b && in_su_a == in_su_b) return 1;
    const uint32_t pod_a = fast_.sus_per_pod.div(su_a);
    const uint32_t pod_b = fast_.sus_per_pod.div(su_b);
    const int64_t sus_per_pod = shape_.sus_per_pod;
    const int64_t idx_a =
        (su_a - int64_t{pod_a} * sus_per_pod) * fast_.leaves_per_su_in_pod + in_su_a;
    const int64_t idx_b =
        (su_b - int64_t{pod_b} * sus_per_pod) * fast_.leaves_per_su_in_pod + in_su_b;
    const int64_t pairs = fast_.leaf_tier.pairs(idx_a, idx_b);
    if (pod_a == pod_b) return pairs;
    return pairs * fast_.core_tier.pairs(pod_a, pod_b);
  }

  // Calls f(const Route&) for every up/down path from a to b, in a fixed order
  // (by source uplink, then destination uplink). Same preconditions as path_count.
  template <class F>
  constexpr void for_each_route(NicPort a, NicPort b, F&& f) const {
    if (a == b || a.plane != b.plane) return;
    const SwitchIndex la = leaf_of(a);
    const SwitchIndex lb = leaf_of(b);
    if (la == lb) {
      f(Route{});
      return;
    }
    if (partition_of_leaf(la) != partition_of_leaf(lb)) return;
    const int32_t up = shape_.leaf_up_ports;
    const int32_t spines = shape_.spines_per_pod;
    const int64_t ob = int64_t{leaf_index_in_pod(lb)} * up;
    const int32_t pa = pod_of_leaf(la);
    const int32_t pb = pod_of_leaf(lb);
    for (int32_t j = 0; j < up; ++j) {
      const int32_t s = spine_of_uplink(la, j);
      for (auto jb = static_cast<int32_t>(positive_mod(s - ob, spines)); jb < up;
           jb += spines) {
        if (pa == pb) {
          f(Route{2, j, jb, -1, -1});
          continue;
        }
        const int32_t sup = shape_.spine_up_ports;
        const int32_t groups = shape_.cores_per_group;
        const int64_t ocb = int64_t{pb} * sup;
        for (int32_t k = 0; k < sup; ++k) {
          const auto g = static_cast<int32_t>((int64_t{pa} * sup + k) % groups);
          for (auto kb = static_cast<int32_t>(positive_mod(g - ocb, groups)); kb < sup;
               kb += groups)
            f(Route{3, j, jb, k, kb});
        }
      }
    }
  }

 private:
  // round_robin_pairs() for one tier with the divisions done up front: members
  // m of a group send `per` cables each to `mod` targets starting at m*per mod mod.
  struct RoundRobinTier {
    FastDivisor mod;          // number of targets
    int64_t per_mod_mod = 0;  // per % mod: offsets step by this
    int64_t rest = 0;         // r = per % mod
    int64_t base = 0;         // mod*q^2 + 2*q*r with q = per / mod
    [[nodiscard]] constexpr int64_t pairs(int64_t member_a, int64_t member_b) const {
      const int64_t m = mod.divisor();
      // Members and targets are both at most the radix (shape.hpp): |step| < 2^24.
      const int64_t step = (member_b - member_a) * per_mod_mod;
      const auto folded =
          static_cast<int64_t>(mod.mod(static_cast<uint32_t>(step < 0 ? -step : step)));
      const int64_t d = step >= 0 || folded == 0 ? folded : m - folded;
      int64_t overlap = 0;
      if (rest > d) overlap += rest - d;
      if (rest > m - d) overlap += rest - (m - d);
      return base + overlap;
    }
  };
  struct FastConstants {
    FastDivisor hosts_per_su;
    FastDivisor hosts_per_leaf;
    FastDivisor sus_per_pod;
    int64_t leaves_per_su_in_pod = 1;  // leaves of one SU inside one partition
    RoundRobinTier leaf_tier;          // leaf uplinks over the spines of a pod
    RoundRobinTier core_tier;          // spine uplinks over the cores of a group
  };
  static constexpr RoundRobinTier make_tier(int32_t per, int32_t mod) {
    RoundRobinTier t;
    if (per <= 0 || mod <= 0) return t;
    const int64_t q = per / mod;
    t.mod = FastDivisor(static_cast<uint32_t>(mod));
    t.rest = per % mod;
    t.per_mod_mod = t.rest;
    t.base = mod * q * q + 2 * q * t.rest;
    return t;
  }
  static constexpr FastConstants make_fast_constants(const ClusterSpec& s, const ClosShape& c) {
    FastConstants f;
    f.hosts_per_su = FastDivisor(static_cast<uint32_t>(s.hosts_per_su));
    f.hosts_per_leaf =
        FastDivisor(static_cast<uint32_t>(c.hosts_per_leaf > 0 ? c.hosts_per_leaf : 1));
    f.sus_per_pod = FastDivisor(static_cast<uint32_t>(c.sus_per_pod > 0 ? c.sus_per_pod : 1));
    f.leaves_per_su_in_pod = s.kind == Kind::kRailOnly ? 1 : c.leaves_per_su;
    f.leaf_tier = make_tier(c.leaf_up_ports, c.spines_per_pod);
    f.core_tier = make_tier(c.spine_up_ports, c.cores_per_group);
    return f;
  }
  // A static extent when the type fixes one, else the spec's run-time value.
  template <int32_t Static>
  [[nodiscard]] static constexpr int32_t extent(int32_t runtime) {
    if constexpr (Static != kDynamic) return Static;
    return runtime;
  }
  [[nodiscard]] constexpr uint32_t su_index(uint32_t host) const {
    if constexpr (E::kHostsPerSu != kDynamic)
      return host / static_cast<uint32_t>(E::kHostsPerSu);
    else
      return fast_.hosts_per_su.div(host);
  }

  ClusterSpec spec_;
  ClosShape shape_;
  FastConstants fast_;
};

// Checks `spec` (shape and static extents) and builds a descriptor.
template <class E = DynamicExtents>
[[nodiscard]] StatusOr<ClusterDescriptor<E>> make_descriptor(const ClusterSpec& spec) {
  const ShapeResult r = derive_shape(spec);
  if (!r.ok()) return invalid_argument_error(describe_problem(spec, r));
  auto mismatch = [](std::string_view key, int32_t value, int32_t fixed) {
    return invalid_argument_error(str_cat(key, "=", value,
                                              ": does not match the compile-time extent ", fixed,
                                              " of this descriptor type"));
  };
  if (E::kGpusPerHost != kDynamic && spec.gpus_per_host != E::kGpusPerHost)
    return mismatch("gpus_per_host", spec.gpus_per_host, E::kGpusPerHost);
  if (E::kNicsPerHost != kDynamic && spec.nics_per_host != E::kNicsPerHost)
    return mismatch("nics_per_host", spec.nics_per_host, E::kNicsPerHost);
  if (E::kHostsPerSu != kDynamic && spec.hosts_per_su != E::kHostsPerSu)
    return mismatch("hosts_per_su", spec.hosts_per_su, E::kHostsPerSu);
  if (E::kPlanes != kDynamic && spec.planes != E::kPlanes)
    return mismatch("planes", spec.planes, E::kPlanes);
  return ClusterDescriptor<E>(spec, r.shape);
}

// Compile-time construction: an invalid spec (or one that contradicts the static
// extents) is a compile error pointing at detail::static_cluster_spec_is_invalid.
// Fields left out of `spec` keep their ClusterSpec defaults, except that static
// extents fill gpus_per_host, nics_per_host, hosts_per_su and planes.
template <class E>
[[nodiscard]] constexpr ClusterDescriptor<E> static_descriptor(ClusterSpec spec) {
  if constexpr (E::kGpusPerHost != kDynamic) {
    if (spec.scale_up == spec.gpus_per_host) spec.scale_up = E::kGpusPerHost;
    spec.gpus_per_host = E::kGpusPerHost;
  }
  if constexpr (E::kNicsPerHost != kDynamic) spec.nics_per_host = E::kNicsPerHost;
  if constexpr (E::kHostsPerSu != kDynamic) spec.hosts_per_su = E::kHostsPerSu;
  if constexpr (E::kPlanes != kDynamic) spec.planes = E::kPlanes;
  const ShapeResult r = derive_shape(spec);
  if (!r.ok() || spec.hosts <= 0) detail::static_cluster_spec_is_invalid();
  return ClusterDescriptor<E>(spec, r.shape);
}

}  // namespace railyard::topology
