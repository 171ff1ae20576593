// Random valid cluster specs for property tests: many shapes, not a few
// hand-picked ones. Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/shape.hpp"

namespace railyard::testing {

// Draws small specs over every kind, plane count, NIC/GPU ratio, SU size, radix,
// oversubscription and tier count; keeps those derive_shape() accepts, until
// `count` are found. Small enough to materialize and brute-force.
inline std::vector<topology::ClusterSpec> random_valid_specs(int count, uint32_t seed,
                                                             int max_hosts = 24) {
  std::mt19937 rng(seed);
  auto pick = [&rng](std::initializer_list<int32_t> values) {
    return *(values.begin() + rng() % values.size());
  };
  std::vector<topology::ClusterSpec> out;
  int attempts = 0;
  while (static_cast<int>(out.size()) < count && attempts < 200000) {
    ++attempts;
    topology::ClusterSpec s;
    s.kind = static_cast<topology::Kind>(rng() % 3);
    s.planes = pick({1, 1, 2});
    const int32_t gn = static_cast<int32_t>(rng() % 5);
    const int32_t gpus[] = {1, 2, 4, 2, 4};
    const int32_t nics[] = {1, 2, 4, 4, 2};
    s.gpus_per_host = gpus[gn];
    s.nics_per_host = nics[gn];
    s.scale_up = s.gpus_per_host * pick({1, 1, 2});
    s.hosts_per_su = pick({1, 2, 3, 4, 6, 8, 12, 16});
    s.hosts = s.hosts_per_su * pick({1, 2, 3, 4, 6});
    if (s.hosts > max_hosts) continue;
    s.switch_radix = pick({2, 4, 6, 8, 12, 16, 24});
    const topology::ClusterSpec defaults;
    s.oversub =
        pick({0, 0, 1, 2}) == 0 ? defaults.oversub : (rng() % 2 ? Ratio{2, 1} : Ratio{3, 2});
    s.nic_gbps = pick({100, 200, 400});
    s.switch_layout = rng() % 2 ? topology::SwitchLayout::kVms : topology::SwitchLayout::kReference;
    if (rng() % 3 == 0) {
      s.tiers = 3;
      s.sus_per_pod = pick({1, 2, 3});  // one pod is rejected: exercises that check
      s.pod_oversub = rng() % 2 ? Ratio{1, 1} : Ratio{2, 1};
    } else if (rng() % 4 == 0) {
      s.tiers = 1;  // one switch per partition: one SU, no uplinks
      s.hosts_per_su = s.hosts;
      s.oversub = Ratio{1, 1};
    }
    if (rng() % 4 == 0) {
      s.host_leaf_m = pick({0, 1, 7, 100});
      s.leaf_spine_m = pick({topology::kCableByMedium, 2, 500});
    }
    if (!topology::derive_shape(s).ok()) continue;
    out.push_back(s);
  }
  return out;
}

}  // namespace railyard::testing
