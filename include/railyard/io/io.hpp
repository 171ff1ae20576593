// railyard/io/io.hpp — umbrella header for the io layer: the JSON writer; the reports
// the CLI prints (inventory, order, place/replay, simulate, spray, congestion control,
// `railyard plan` and its files); host naming, Slurm hostlists and failure specs; the
// scheduler's switch tree; the files other tools read — NCCL topology XML, Slurm
// topology (tree, block, YAML; and import), Kubernetes labels with a Kueue Topology,
// CSV topology dumps (import and export), launcher files — and an SVG heatmap of link
// utilization.
//
//   #include "railyard/io/io.hpp"
//   std::string json = railyard::io::inventory_json(descriptor);
#pragma once

#include "railyard/io/cc_report.hpp"
#include "railyard/io/csv_topology.hpp"
#include "railyard/io/failure_spec.hpp"
#include "railyard/io/heatmap_svg.hpp"
#include "railyard/io/hostlist.hpp"
#include "railyard/io/inventory_report.hpp"
#include "railyard/io/json.hpp"
#include "railyard/io/k8s_labels.hpp"
#include "railyard/io/launchers.hpp"
#include "railyard/io/nccl_xml.hpp"
#include "railyard/io/node_names.hpp"
#include "railyard/io/order_report.hpp"
#include "railyard/io/place_report.hpp"
#include "railyard/io/plan.hpp"
#include "railyard/io/simulate_report.hpp"
#include "railyard/io/slurm.hpp"
#include "railyard/io/slurm_import.hpp"
#include "railyard/io/spray_report.hpp"
#include "railyard/io/switch_tree.hpp"
