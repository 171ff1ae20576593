// railyard CLI — the inputs several subcommands share: the cluster (--cluster or
// an imported topology) and the job (--job on --hosts), loaded by library calls
// with their errors named by flag.
#pragma once

#include <optional>
#include <string>

#include "cli.hpp"
#include "railyard/collective/cost.hpp"
#include "railyard/core/status.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"
#include "railyard/topology/switch_tree.hpp"

namespace railyard::cli {

// The cluster from --cluster, or a switch tree and its Fabric read from
// --topology-conf or --topology-csv (at most one of the three; the link-speed
// flags only with a file).
struct Source {
  std::optional<topology::ClusterDescriptor<>> descriptor;
  std::optional<topology::SwitchTree> tree;  // imported files only
  std::optional<topology::Fabric> fabric;    // imported files only
  std::string origin;                        // "--topology-csv=FILE", for messages
};
[[nodiscard]] StatusOr<Source> load_source(const Invocation& inv);
// The cluster from --cluster.
[[nodiscard]] StatusOr<topology::ClusterDescriptor<>> load_cluster(const Invocation& inv);

// The --job plan on --hosts (default: the first hosts of the cluster), numbered
// by railyard and as given.
struct JobInput {
  placement::JobPlacement railyard;
  placement::JobPlacement naive;
};
[[nodiscard]] StatusOr<JobInput> load_job(const Flags& flags,
                                          const topology::ClusterDescriptor<>& d);
// The latency model with --switch-ns, --nic-ns and --nvswitch-ns applied (those
// the subcommand declares and the user gave); a value out of range names its flag.
[[nodiscard]] StatusOr<collective::LatencyModel> load_latency(const Flags& flags);

// The numbering --order picks.
[[nodiscard]] StatusOr<const placement::JobPlacement*> chosen_order(const Flags& flags,
                                                                    const JobInput& job);

}  // namespace railyard::cli
