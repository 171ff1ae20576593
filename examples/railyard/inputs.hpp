// railyard CLI — the inputs several subcommands share: the cluster (--cluster or
// an imported topology) and the job (--job on --hosts), loaded by library calls
// with their errors named by flag.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "railyard/collective/cost.hpp"
#include "railyard/core/status.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"
#include "railyard/topology/import/cable_fit.hpp"
#include "railyard/topology/node_names.hpp"
#include "railyard/topology/switch_tree.hpp"

namespace railyard::cli {

// The cluster from --cluster, or a switch tree and its Fabric read from
// --topology-conf or --topology-csv (at most one of the three; the link-speed
// flags only with a file).
struct Source {
  std::optional<topology::ClusterDescriptor<>> descriptor;
  std::optional<topology::SwitchTree> tree;  // imported files only
  std::optional<topology::Fabric> fabric;    // imported files only
  std::optional<topology::CableFit> fit;     // --cables / --ibnetdiscover: a descriptor too
  std::string origin;                        // "--topology-csv=FILE", for messages
};
[[nodiscard]] StatusOr<Source> load_source(const Invocation& inv);
// The cluster from --cluster, or fitted from --cables / --ibnetdiscover (one of
// the three; docs/import.md).
[[nodiscard]] StatusOr<topology::ClusterDescriptor<>> load_cluster(const Invocation& inv);

// The cluster a subcommand works on and, for an imported one, its fit: the
// file's names and the cables missing, miswired or slow in it.
struct ClusterInput {
  topology::ClusterDescriptor<> descriptor;
  std::optional<topology::CableFit> fit;  // --cables or --ibnetdiscover only
  std::string origin;                     // "--cables=FILE", "--cluster=SPEC", for reports
};
[[nodiscard]] StatusOr<ClusterInput> load_cluster_input(const Invocation& inv);
// The host names an imported cluster keeps (by host id); empty for --cluster.
[[nodiscard]] std::span<const std::string> file_host_names(const ClusterInput& in);
// The imported file's failures, then --down (when the subcommand takes it and
// it was given), in `overlay` of `fabric` (materialize(in.descriptor)).
[[nodiscard]] Status apply_failures(const Invocation& inv, const ClusterInput& in,
                                    const topology::Fabric& fabric,
                                    topology::FailureOverlay& overlay);
// The cluster's fabric; an imported one's switches and NIC ports carry the
// file's names.
[[nodiscard]] topology::Fabric materialize(const ClusterInput& in);
// Whether there is anything for apply_failures() to apply.
[[nodiscard]] bool has_failures(const Invocation& inv, const ClusterInput& in);
// Text reports of an imported cluster end with these lines: where the cluster
// came from, how much of the file differs from it, and `effect` (what this
// subcommand did with the failures). Empty for --cluster.
[[nodiscard]] std::string import_note(const ClusterInput& in, std::string_view effect);
// "3 (gpu04), 5 (gpu06)" for hosts of an imported cluster; ids alone otherwise.
[[nodiscard]] std::string host_list_text(const ClusterInput& in, std::span<const HostId> hosts);

// The --node-pattern namer (the default pattern when the subcommand does not
// take the flag), checked to name every host of `d` apart.
[[nodiscard]] StatusOr<topology::NodeNamer> load_node_namer(const Flags& flags,
                                                            const topology::ClusterDescriptor<>& d);

// --node-pattern names hosts of a cluster spec only: an imported file
// (--cables, --ibnetdiscover) names its own, so the flag is refused with one.
[[nodiscard]] Status check_node_pattern(const Invocation& inv, const ClusterInput& in);
// Every host's name by id, as --hosts, --host and --src/--dst read them:
// `file_names` (an imported file's) when not empty, else load_node_namer()'s.
[[nodiscard]] StatusOr<std::vector<std::string>> host_names(
    const Flags& flags, const topology::ClusterDescriptor<>& d,
    std::span<const std::string> file_names);
// The host a single-host flag value names (--host, the HOST of --src
// HOST:GPU): nullopt when `text` is an id (digits), left to the flag's own id
// parser so that id errors read as they always have; otherwise the host of
// that node name (or one-host hostlist) among `names`, with resolve_hosts'
// errors naming `field` and the name. Numeric names ({host+1}) are read as
// resolve_hosts reads them, an id that names another host being refused as
// ambiguous.
[[nodiscard]] StatusOr<std::optional<HostId>> named_host(std::string_view field,
                                                         std::string_view text,
                                                         std::span<const std::string> names);

// The --job plan on --hosts (default: the first hosts of the cluster), numbered
// by railyard and as given. --hosts takes ids or node names
// (topology::resolve_hosts): `file_names` are the names an imported file
// keeps (by host id); without them, names come from load_node_namer().
struct JobInput {
  placement::JobPlacement railyard;
  placement::JobPlacement naive;
};
[[nodiscard]] StatusOr<JobInput> load_job(const Flags& flags,
                                          const topology::ClusterDescriptor<>& d,
                                          std::span<const std::string> file_names = {});
// The latency model with --switch-ns, --nic-ns and --nvswitch-ns applied (those
// the subcommand declares and the user gave); a value out of range names its flag.
[[nodiscard]] StatusOr<collective::LatencyModel> load_latency(const Flags& flags);

// The numbering --order picks.
[[nodiscard]] StatusOr<const placement::JobPlacement*> chosen_order(const Flags& flags,
                                                                    const JobInput& job);

}  // namespace railyard::cli
