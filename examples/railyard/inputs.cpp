// railyard CLI — the cluster and the job (inputs.hpp).
#include "inputs.hpp"

#include <array>
#include <utility>
#include <vector>

#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/topology/import/csv_topology.hpp"
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

}  // namespace

StatusOr<topology::ClusterDescriptor<>> load_cluster(const Invocation& inv) {
  auto spec = topology::parse_cluster(inv.flags.text("cluster"));
  if (!spec.ok()) return flag_error(inv.flags, "cluster", spec.status());
  auto desc = topology::make_descriptor(*spec);
  if (!desc.ok()) return flag_error(inv.flags, "cluster", desc.status());
  return *std::move(desc);
}

StatusOr<Source> load_source(const Invocation& inv) {
  const Flags& flags = inv.flags;
  const bool conf = flags.given("topology-conf");
  const bool csv = flags.given("topology-csv");
  if (static_cast<int>(conf) + static_cast<int>(csv) + static_cast<int>(flags.given("cluster")) > 1)
    return usage_error("give one of --cluster, --topology-conf, --topology-csv");
  Source src;
  if (!conf && !csv) {
    for (std::string_view speed : kSpeedFlags)
      RAILYARD_RETURN_IF_ERROR(
          only_with(inv, speed, false, "applies only with --topology-conf or --topology-csv"));
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

StatusOr<JobInput> load_job(const Flags& flags, const topology::ClusterDescriptor<>& d) {
  auto plan = placement::parse_plan(flags.text("job"));
  if (!plan.ok()) return flag_error(flags, "job", plan.status());
  std::vector<HostId> hosts;  // none: the library takes the first hosts of the cluster
  if (flags.given("hosts")) {
    auto parsed = parse_host_list("hosts", flags.text("hosts"), d.hosts());
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
