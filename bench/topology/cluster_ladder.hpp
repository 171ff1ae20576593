// bench/topology/cluster_ladder.hpp — the cluster sizes the topology benchmarks
// sweep, and cheap per-iteration inputs for query benchmarks.
//
// One valid spec per GPU count, 8 to 262,144 GPUs. Small clusters are one SU;
// 2-tier rail fat trees on 64-port switches go up to 2,048 GPUs (8 SUs: a pod of
// 64 leaves is the most 32 uplinks per leaf can reach); above that 3-tier, on
// 64-port switches up to the h100-16k-3tier preset, then on 128-port switches
// with 64-host SUs and pods of 8 SUs, as in the h100-128k-3tier preset.
//
//   BENCHMARK(BM_Fabric_Materialize)->Apply(railyard::bench::for_each_rung);
//   railyard::StatusOr<ClusterSpec> spec = railyard::bench::ladder_spec(state.range(0));
//
// Every host count on the ladder is a power of two, so query benchmarks walk
// hosts and rails with a mask instead of a modulo (see NicPortWalk).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "railyard/core/strings.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/parse_cluster.hpp"

namespace railyard::bench {

struct LadderRung {
  int64_t gpus;
  std::string_view spec;  // preset name or spec string
};

inline constexpr std::array<LadderRung, 11> kClusterLadder = {{
    {8, "rail_fat_tree:hosts=1,hosts_per_su=1"},
    {64, "rail_fat_tree:hosts=8,hosts_per_su=8"},
    {256, "rail_fat_tree:hosts=32"},
    {1024, "h100-1024"},
    {2048, "rail_fat_tree:hosts=256"},
    {4096, "rail_fat_tree:hosts=512,tiers=3,sus_per_pod=4"},
    {16384, "h100-16k-3tier"},
    {32768, "rail_fat_tree:hosts=4096,hosts_per_su=64,switch_radix=128,tiers=3,sus_per_pod=8"},
    {65536, "rail_fat_tree:hosts=8192,hosts_per_su=64,switch_radix=128,tiers=3,sus_per_pod=8"},
    {131072, "h100-128k-3tier"},
    {262144, "rail_fat_tree:hosts=32768,hosts_per_su=64,switch_radix=128,tiers=3,sus_per_pod=8"},
}};

// The parsed spec of the rung with `gpus` GPUs; an error if there is no such rung,
// its spec does not parse, or it does not have exactly `gpus` GPUs.
[[nodiscard]] inline railyard::StatusOr<topology::ClusterSpec> ladder_spec(int64_t gpus) {
  for (const LadderRung& rung : kClusterLadder) {
    if (rung.gpus != gpus) continue;
    railyard::StatusOr<topology::ClusterSpec> spec = topology::parse_cluster(rung.spec);
    if (!spec.ok()) return spec.status();
    if (spec->gpus() != gpus)
      return absl::InvalidArgumentError(
          str_cat("ladder rung ", rung.spec, " has ", spec->gpus(), " GPUs, not ", gpus));
    return spec;
  }
  return absl::NotFoundError(str_cat("no ladder rung with ", gpus, " GPUs"));
}

template <class E = topology::DynamicExtents>
[[nodiscard]] railyard::StatusOr<topology::ClusterDescriptor<E>> ladder_descriptor(int64_t gpus) {
  railyard::StatusOr<topology::ClusterSpec> spec = ladder_spec(gpus);
  if (!spec.ok()) return spec.status();
  return topology::make_descriptor<E>(*spec);
}

// Registers one run per rung whose GPU count lies in [min_gpus, max_gpus].
template <class B>
void apply_ladder(B* b, int64_t min_gpus = 0, int64_t max_gpus = INT64_MAX) {
  for (const LadderRung& rung : kClusterLadder)
    if (rung.gpus >= min_gpus && rung.gpus <= max_gpus) b->Arg(rung.gpus);
}

// Which two NIC ports a path query joins.
enum class PortPair : int64_t {
  kCrossSu = 0,   // different SUs of the same pod (2-tier: the cluster is one pod)
  kCrossPod = 1,  // different pods (3-tier only)
};

[[nodiscard]] constexpr bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Pairs of NIC ports on the same rail, walked by a counter with masks and adds
// only, so that the walk costs far less than the query it feeds. Requires
// hosts, hosts per SU, hosts per pod and rails to be powers of two (check ok()).
class NicPortWalk {
 public:
  template <class Descriptor>
  explicit NicPortWalk(const Descriptor& d)
      : host_mask_(static_cast<uint32_t>(d.hosts() - 1)),
        rail_mask_(static_cast<uint32_t>(d.rails() - 1)),
        su_hosts_(static_cast<uint32_t>(d.hosts_per_su())),
        pod_hosts_(static_cast<uint32_t>(d.hosts_per_su()) *
                   static_cast<uint32_t>(d.shape().sus_per_pod)),
        ok_(is_power_of_two(d.hosts()) && is_power_of_two(d.rails()) &&
            is_power_of_two(d.hosts_per_su()) && is_power_of_two(pod_hosts_)) {}

  [[nodiscard]] bool ok() const { return ok_; }

  // Step i: host (i / 8) mod hosts, rail i mod rails.
  [[nodiscard]] HostId host(uint32_t i) const {
    return HostId{static_cast<int32_t>((i >> 3) & host_mask_)};
  }
  [[nodiscard]] RailId rail(uint32_t i) const {
    return RailId{static_cast<int32_t>(i & rail_mask_)};
  }

  [[nodiscard]] NicPort source(uint32_t i) const {
    return {host(i), NicIndex{rail(i).value()}, PlaneId{0}};
  }
  // The partner of source(i): one SU further inside the same pod (wrapping), or
  // one pod further (wrapping).
  [[nodiscard]] NicPort partner(uint32_t i, PortPair which) const {
    const auto a = static_cast<uint32_t>(host(i).value());
    uint32_t b = 0;
    if (which == PortPair::kCrossSu)
      b = (a & ~(pod_hosts_ - 1)) | ((a + su_hosts_) & (pod_hosts_ - 1));
    else
      b = (a + pod_hosts_) & host_mask_;
    return {HostId{static_cast<int32_t>(b)}, NicIndex{rail(i).value()}, PlaneId{0}};
  }

 private:
  uint32_t host_mask_;
  uint32_t rail_mask_;
  uint32_t su_hosts_;
  uint32_t pod_hosts_;
  bool ok_;
};

}  // namespace railyard::bench
