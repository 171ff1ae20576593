// railyard/export/export.hpp — umbrella header for the export layer: the files
// other tools read, written from railyard's model — NCCL topology XML (one host),
// Slurm topology (tree, block, YAML), Kubernetes node labels with a Kueue
// Topology, CSV topology dumps, launcher files (hostfiles, rankfiles, torchrun,
// Megatron) — and every file `railyard plan --out` writes.
//
//   #include "railyard/export/export.hpp"
//   auto tree = railyard::topology::switch_tree(descriptor, namer);
//   std::string conf = railyard::exports::slurm_topology_conf(*tree);
#pragma once

#include "railyard/export/cc_config.hpp"
#include "railyard/export/csv_topology.hpp"
#include "railyard/export/k8s_labels.hpp"
#include "railyard/export/launchers.hpp"
#include "railyard/export/nccl_xml.hpp"
#include "railyard/export/plan_files.hpp"
#include "railyard/export/slurm.hpp"
