// railyard/topology/topology.hpp — umbrella header for the topology layer:
// cluster specs and presets, shapes, descriptors, the Fabric graph with its
// failures overlay and failure specs, inventory, Cluster, host names from a
// pattern, the switch tree a scheduler sees, and importers (import/: Slurm
// topology.conf, CSV topology dumps) that read other tools' descriptions into a Fabric.
//
//   #include "railyard/topology/topology.hpp"
//   auto cluster = railyard::topology::make_cluster("h100-1024");
//   auto inv = railyard::topology::inventory(cluster->descriptor);
#pragma once

#include "railyard/topology/cluster.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/failure_spec.hpp"
#include "railyard/topology/fabric.hpp"
#include "railyard/topology/host_lookup.hpp"
#include "railyard/topology/import/cable_fit.hpp"
#include "railyard/topology/import/cable_list.hpp"
#include "railyard/topology/import/csv_topology.hpp"
#include "railyard/topology/import/ibnetdiscover.hpp"
#include "railyard/topology/import/slurm_conf.hpp"
#include "railyard/topology/inventory.hpp"
#include "railyard/topology/node_names.hpp"
#include "railyard/topology/parse_cluster.hpp"
#include "railyard/topology/shape.hpp"
#include "railyard/topology/switch_tree.hpp"
