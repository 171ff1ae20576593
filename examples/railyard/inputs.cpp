// railyard CLI — the cluster and the job (inputs.hpp).
#include "inputs.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/topology/failure_spec.hpp"
#include "railyard/topology/host_lookup.hpp"
#include "railyard/topology/import/cable_list.hpp"
#include "railyard/topology/import/csv_topology.hpp"
#include "railyard/topology/import/ibnetdiscover.hpp"
#include "railyard/topology/import/slurm_conf.hpp"
#include "railyard/topology/parse_cluster.hpp"

namespace railyard::cli {
namespace {

constexpr std::array<std::string_view, 3> kSpeedFlags = {"host-gbps", "leaf-up-gbps",
                                                         "spine-up-gbps"};
constexpr FieldRoute kSpeedRoutes[] = {{"host_gbps", {"host-gbps"}},
                                       {"leaf_up_gbps", {"leaf-up-gbps"}},
                                       {"spine_up_gbps", {"spine-up-gbps"}}};

constexpr FieldRoute kLatencyRoutes[] = {{"switch_ns", {"switch-ns"}},
                                         {"nic_ns", {"nic-ns"}},
                                         {"nvswitch_ns", {"nvswitch-ns"}}};

// Given, for a flag the subcommand may not declare.
bool given_here(const Flags& flags, std::string_view flag) {
  return flags.use(flag) != nullptr && flags.given(flag);
}

}  // namespace

StatusOr<ClusterInput> load_cluster_input(const Invocation& inv) {
  const Flags& flags = inv.flags;
  const bool cables = given_here(flags, "cables");
  const bool ib = given_here(flags, "ibnetdiscover");
  int sources = 0;
  for (std::string_view f : {"cluster", "cables", "ibnetdiscover", "topology-conf", "topology-csv"})
    sources += given_here(flags, f);
  if (sources > 1 && (cables || ib))
    return usage_error(
        "give one of --cluster, --cables, --ibnetdiscover (and not --topology-conf or "
        "--topology-csv with them)");
  if (!cables && !ib) {
    auto spec = topology::parse_cluster(flags.text("cluster"));
    if (!spec.ok()) return flag_error(flags, "cluster", spec.status());
    auto desc = topology::make_descriptor(*spec);
    if (!desc.ok()) return flag_error(flags, "cluster", desc.status());
    return ClusterInput{*std::move(desc), std::nullopt, shown(flags, "cluster")};
  }
  const std::string_view flag = cables ? "cables" : "ibnetdiscover";
  RAILYARD_ASSIGN_OR_RETURN(std::string text, read_flag_file(flags, flag));
  auto list = cables ? topology::cable_list_from_text(text)
                     : topology::cable_list_from_ibnetdiscover(text);
  if (!list.ok()) return flag_error(flags, flag, list.status());
  auto fit = topology::fit_cables(*list);
  if (!fit.ok()) return flag_error(flags, flag, fit.status());
  topology::ClusterDescriptor<> d = fit->descriptor;
  return ClusterInput{d, *std::move(fit), shown(flags, flag)};
}

StatusOr<topology::ClusterDescriptor<>> load_cluster(const Invocation& inv) {
  RAILYARD_ASSIGN_OR_RETURN(ClusterInput in, load_cluster_input(inv));
  return in.descriptor;
}

std::span<const std::string> file_host_names(const ClusterInput& in) {
  if (!in.fit) return {};
  return in.fit->host_names;
}

topology::Fabric materialize(const ClusterInput& in) {
  topology::Fabric fabric = topology::materialize(in.descriptor);
  if (in.fit) in.fit->name_fabric(fabric);
  return fabric;
}

bool has_failures(const Invocation& inv, const ClusterInput& in) {
  return (in.fit && std::any_of(in.fit->findings.begin(), in.fit->findings.end(),
                                [](const topology::CableFinding& f) {
                                  return f.problem != topology::CableProblem::kExtra;
                                })) ||
         given_here(inv.flags, "down");
}

Status apply_failures(const Invocation& inv, const ClusterInput& in,
                      const topology::Fabric& fabric, topology::FailureOverlay& overlay) {
  if (in.fit) in.fit->apply(fabric, overlay);
  if (given_here(inv.flags, "down"))
    if (Status s = topology::apply_failures(fabric, inv.flags.text("down"), overlay); !s.ok())
      return flag_error(inv.flags, "down", s);
  return ok_status();
}

std::string import_note(const ClusterInput& in, std::string_view effect) {
  if (!in.fit) return "";
  const topology::CableFit& f = *in.fit;
  using topology::CableProblem;
  std::string out = str_cat("\ncluster   fitted from ", in.origin, ": ", f.file_cables,
                            " cables; ", f.count(CableProblem::kMissing), " missing, ",
                            f.count(CableProblem::kMiswired), " miswired, ",
                            f.count(CableProblem::kSlow), " slow, ",
                            f.count(CableProblem::kExtra), " extra ('railyard describe ", in.origin,
                            "' lists them)\n");
  if (!f.drained.empty())
    str_append(out, "drained   hosts ", host_list_text(in, f.drained),
                    " (a host cable missing or miswired)\n");
  if (!effect.empty()) str_append(out, "failures  ", effect, "\n");
  return out;
}

std::string host_list_text(const ClusterInput& in, std::span<const HostId> hosts) {
  std::string out;
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (i > 0) out += ", ";
    str_append(out, hosts[i].value());
    if (in.fit) str_append(out, " (", in.fit->host_names[static_cast<size_t>(hosts[i].value())], ")");
  }
  return out;
}

StatusOr<Source> load_source(const Invocation& inv) {
  const Flags& flags = inv.flags;
  const bool conf = flags.given("topology-conf");
  const bool csv = flags.given("topology-csv");
  if (static_cast<int>(conf) + static_cast<int>(csv) + static_cast<int>(flags.given("cluster")) +
          static_cast<int>(given_here(flags, "cables")) +
          static_cast<int>(given_here(flags, "ibnetdiscover")) >
      1)
    return usage_error(
        "give one of --cluster, --topology-conf, --topology-csv, --cables, --ibnetdiscover");
  Source src;
  if (!conf && !csv) {
    for (std::string_view speed : kSpeedFlags)
      RAILYARD_RETURN_IF_ERROR(
          only_with(inv, speed, false, "applies only with --topology-conf or --topology-csv"));
    if (given_here(flags, "cables") || given_here(flags, "ibnetdiscover")) {
      RAILYARD_ASSIGN_OR_RETURN(ClusterInput in, load_cluster_input(inv));
      src.descriptor = in.descriptor;
      src.origin = in.origin;
      src.fit = std::move(in.fit);
      return src;
    }
    src.origin = "--cluster";
    RAILYARD_ASSIGN_OR_RETURN(src.descriptor, load_cluster(inv));
    return src;
  }
  const std::string_view flag = conf ? "topology-conf" : "topology-csv";
  src.origin = shown(flags, flag);
  RAILYARD_ASSIGN_OR_RETURN(std::string text, read_flag_file(flags, flag));
  auto tree =
      conf ? topology::slurm_topology_from_conf(text) : topology::csv_topology_from_text(text);
  if (!tree.ok()) return flag_error(flags, flag, tree.status());
  const topology::LinkSpeeds speeds{flags.decimal("host-gbps"), flags.decimal("leaf-up-gbps"),
                                    flags.decimal("spine-up-gbps")};
  auto fabric = topology::fabric_from_tree(*tree, speeds);
  if (!fabric.ok()) return routed_error(flags, kSpeedRoutes, fabric.status(), src.origin);
  src.tree = *std::move(tree);
  src.fabric = *std::move(fabric);
  return src;
}

StatusOr<topology::NodeNamer> load_node_namer(const Flags& flags,
                                              const topology::ClusterDescriptor<>& d) {
  const bool declared = flags.use("node-pattern") != nullptr;
  auto namer = topology::NodeNamer::parse(declared ? flags.text("node-pattern")
                                                   : topology::kDefaultNodePattern);
  if (!namer.ok()) return flag_error(flags, "node-pattern", namer.status());
  if (Status s = namer->check(d); !s.ok()) return flag_error(flags, "node-pattern", s);
  return namer;
}

Status check_node_pattern(const Invocation& inv, const ClusterInput& in) {
  return only_with(inv, "node-pattern", !in.fit,
                   "applies only to a cluster spec (an imported topology names its hosts)");
}

StatusOr<std::vector<std::string>> host_names(const Flags& flags,
                                              const topology::ClusterDescriptor<>& d,
                                              std::span<const std::string> file_names) {
  if (!file_names.empty()) return std::vector<std::string>(file_names.begin(), file_names.end());
  RAILYARD_ASSIGN_OR_RETURN(const topology::NodeNamer namer, load_node_namer(flags, d));
  return namer.names(d);
}

StatusOr<std::optional<HostId>> named_host(std::string_view field, std::string_view text,
                                           std::span<const std::string> names) {
  // Ids (and id-like texts such as "-1" or "0-3") go to the caller's parser,
  // unless the names are numbers too: then resolve_hosts decides between the
  // readings, refusing a text they disagree on.
  const bool numeric_names = std::any_of(names.begin(), names.end(), [](const std::string& n) {
    return topology::is_host_id_text(n);
  });
  if (topology::is_host_id_text(text) && !numeric_names) return std::optional<HostId>();
  auto hosts = topology::resolve_hosts(field, text, names);
  if (!hosts.ok()) return hosts.status();
  if (hosts->size() != 1)
    return invalid_field(field, text, str_cat("names ", hosts->size(), " hosts; give one"));
  return std::optional<HostId>(hosts->front());
}

StatusOr<JobInput> load_job(const Flags& flags, const topology::ClusterDescriptor<>& d,
                            std::span<const std::string> file_names) {
  auto plan = placement::parse_plan(flags.text("job"));
  if (!plan.ok()) return flag_error(flags, "job", plan.status());
  std::vector<HostId> hosts;  // none: the library takes the first hosts of the cluster
  if (flags.given("hosts")) {
    RAILYARD_ASSIGN_OR_RETURN(const std::vector<std::string> names,
                              host_names(flags, d, file_names));
    auto parsed = topology::resolve_hosts("hosts", flags.text("hosts"), names);
    if (!parsed.ok()) return flag_error(flags, "hosts", parsed.status());
    hosts = *std::move(parsed);
  }
  auto naive = placement::naive_order(d, *plan, hosts);
  if (!naive.ok()) return flag_error(flags, "job", naive.status());
  auto ours = placement::order_ranks(d, *plan, hosts);
  if (!ours.ok()) return flag_error(flags, "job", ours.status());
  return JobInput{*std::move(ours), *std::move(naive)};
}

StatusOr<collective::LatencyModel> load_latency(const Flags& flags) {
  collective::LatencyModel m;
  for (auto [flag, field] : {std::pair{"switch-ns", &collective::LatencyModel::switch_ns},
                             std::pair{"nic-ns", &collective::LatencyModel::nic_ns},
                             std::pair{"nvswitch-ns", &collective::LatencyModel::nvswitch_ns}}) {
    if (flags.use(flag) == nullptr || !flags.given(flag)) continue;
    m.*field = flags.decimal(flag);
  }
  if (Status s = collective::check_latency_model(m); !s.ok())
    return routed_error(flags, kLatencyRoutes, s, "latency");
  return m;
}

StatusOr<const placement::JobPlacement*> chosen_order(const Flags& flags, const JobInput& job) {
  const std::string_view which = flags.text("order");
  if (which == "railyard") return &job.railyard;
  if (which == "naive") return &job.naive;
  return usage_error(str_cat(shown(flags, "order"), ": use railyard or naive"));
}

}  // namespace railyard::cli
