// railyard/topology/cluster.hpp — a Cluster: the descriptor and its Fabric,
// the one value every algorithm takes (nothing re-parses specs past here).
//
//   railyard::StatusOr<railyard::topology::Cluster> cluster =
//       railyard::topology::make_cluster("h100-1024-2to1");
//   if (!cluster.ok()) return cluster.status();
//   const auto& fabric = cluster->fabric;          // explicit graph
//   const auto& desc = cluster->descriptor;        // closed-form queries
//   auto inv = railyard::topology::inventory(desc);
#pragma once

#include <string_view>

#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"
#include "railyard/topology/parse_cluster.hpp"

namespace railyard::topology {

struct Cluster {
  ClusterDescriptor<> descriptor;
  Fabric fabric;
};

// Parses `spec_text` (a spec string or preset name) and materializes its Fabric.
RAILYARD_LAZY
[[nodiscard]] StatusOr<Cluster> make_cluster(std::string_view spec_text) {
  RAILYARD_ASSIGN_OR_RETURN(ClusterSpec spec, parse_cluster(spec_text));
  RAILYARD_ASSIGN_OR_RETURN(ClusterDescriptor<> descriptor, make_descriptor(spec));
  Fabric fabric = materialize(descriptor);
  return Cluster{descriptor, std::move(fabric)};
}

}  // namespace railyard::topology
