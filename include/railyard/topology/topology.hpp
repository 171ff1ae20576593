// railyard/topology/topology.hpp — umbrella header for the topology layer:
// cluster specs and presets, shapes, descriptors, the Fabric graph with its
// failures overlay, inventory, and Cluster.
//
//   #include "railyard/topology/topology.hpp"
//   auto cluster = railyard::topology::make_cluster("h100-1024");
//   auto inv = railyard::topology::inventory(cluster->descriptor);
#pragma once

#include "railyard/topology/cluster.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"
#include "railyard/topology/inventory.hpp"
#include "railyard/topology/parse_cluster.hpp"
#include "railyard/topology/shape.hpp"
