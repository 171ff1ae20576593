// railyard export — files for other tools (NCCL, Slurm, Kubernetes, launchers).
#include <algorithm>
#include <filesystem>
#include <limits>
#include <span>
#include <system_error>
#include <string>
#include <vector>

#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/core/file.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/tree_order.hpp"
#include "railyard/topology/host_lookup.hpp"
#include "railyard/export/csv_topology.hpp"
#include "railyard/export/k8s_labels.hpp"
#include "railyard/export/launchers.hpp"
#include "railyard/export/nccl_xml.hpp"
#include "railyard/export/slurm.hpp"
#include "railyard/topology/node_names.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kExportFlags[] = {required("format"), {"cluster"},       {"cables"},
                                    {"ibnetdiscover"},  {"topology-conf"},
                                    {"topology-csv"},   {"host-gbps"},     {"leaf-up-gbps"},
                                    {"spine-up-gbps"},  {"host"},          {"vm"},
                                    {"gpu-busids"},     {"nic-busids"},    {"nccl-rail-plane"},
                                    {"sysfs-root"},
                                    {"node-pattern"},   {"legacy-labels"}, {"job"},
                                    {"hosts"},          {"order"},         {"master-port"},
                                    {"cores-per-rank"}, {"gpus-per-host"}, {"kueue-api"},
                                    {"out"}};

// The formats that work on a switch tree (from the spec, or as imported).
constexpr std::string_view kTreeFormats[] = {"slurm-tree", "slurm-block",      "slurm-yaml",
                                             "k8s-labels", "k8s-label-script", "kueue-topology",
                                             "csv"};
constexpr std::string_view kFormatList =
    "nccl-xml, slurm-tree, slurm-block, slurm-yaml, k8s-labels, k8s-label-script, "
    "kueue-topology, csv, hostfile, hostfile-slots, rankfile, slurm-hostfile, rank-env, torchrun, "
    "megatron";

bool is_launcher(std::string_view f) {
  return std::find(exports::kLauncherFormats.begin(), exports::kLauncherFormats.end(), f) !=
         exports::kLauncherFormats.end();
}
bool is_tree(std::string_view f) {
  return std::find(std::begin(kTreeFormats), std::end(kTreeFormats), f) != std::end(kTreeFormats);
}

bool is_nccl_xml(std::string_view f) { return f == "nccl-xml"; }
bool is_k8s(std::string_view f) { return f == "k8s-labels" || f == "k8s-label-script"; }
bool is_kueue(std::string_view f) { return f == "k8s-labels" || f == "kueue-topology"; }
bool writes_dir(std::string_view f) { return f == "torchrun" || f == "k8s-labels"; }
bool takes_port(std::string_view f) { return f == "torchrun" || f == "rank-env"; }
bool is_rankfile(std::string_view f) { return f == "rankfile"; }
// nccl-xml reads --node-pattern for the names --host may give.
bool names_hosts(std::string_view f) {
  return is_tree(f) || is_nccl_xml(f) || (is_launcher(f) && f != "megatron");
}

// Flags that only some formats read.
struct FormatOnly {
  std::string_view flag;
  bool (*applies)(std::string_view format);
  std::string_view why;
};
constexpr std::string_view kOnlyXml = "applies only to --format nccl-xml";
constexpr std::string_view kOnlyLaunchers =
    "applies only to the launcher formats (hostfile ... megatron)";
constexpr FormatOnly kFormatOnly[] = {
    {"host", &is_nccl_xml, kOnlyXml},
    {"vm", &is_nccl_xml, kOnlyXml},
    {"gpu-busids", &is_nccl_xml, kOnlyXml},
    {"nic-busids", &is_nccl_xml, kOnlyXml},
    {"nccl-rail-plane", &is_nccl_xml, kOnlyXml},
    {"sysfs-root", &is_nccl_xml, kOnlyXml},
    {"legacy-labels", &is_k8s, "applies only to --format k8s-labels or k8s-label-script"},
    {"master-port", &takes_port, "applies only to --format torchrun or rank-env"},
    {"cores-per-rank", &is_rankfile, "applies only to --format rankfile"},
    {"job", &is_launcher, kOnlyLaunchers},
    {"hosts", &is_launcher, kOnlyLaunchers},
    {"order", &is_launcher, kOnlyLaunchers},
    {"kueue-api", &is_kueue, "applies only to --format k8s-labels or kueue-topology"},
    {"out", &writes_dir, "applies only to --format torchrun or k8s-labels"},
    {"node-pattern", &names_hosts,
     "applies only to the formats that name hosts: slurm-*, k8s-*, csv, nccl-xml (--host) and "
     "the launcher formats but megatron"},
};

constexpr FieldRoute kExportLaunchRoutes[] = {{"master_port", {"master-port"}},
                                              {"cores_per_rank", {"cores-per-rank"}},
                                              {"host_name", {"node-pattern"}}};
constexpr FieldRoute kXmlRoutes[] = {
    {"host", {"host"}},
    {"gpu_busids", {"gpu-busids"}},
    {"nic_busids", {"nic-busids"}},
    {"sysfs", {"sysfs-root"}},
    {"sysfs_root", {"sysfs-root"}}};

std::vector<std::string> comma_list(const Flags& flags, std::string_view flag) {
  std::vector<std::string> out;
  if (flags.given(flag))
    for (std::string_view part : split(flags.text(flag), ',')) out.emplace_back(part);
  return out;
}

// Writes `files` under --out (created if missing) and says so on stdout.
Outcome write_files(const Flags& flags, std::span<const exports::LaunchFile> files) {
  const std::string dir(flags.text("out"));
  if (Status s = make_directories("out", dir); !s.ok()) return flag_error(flags, "out", s);
  std::string listed;
  for (const exports::LaunchFile& f : files) {
    const std::string path = str_cat(dir, "/", f.path);
    if (Status s = write_text_file("out", path, f.content); !s.ok())
      return flag_error(flags, "out", s);
    str_append(listed, listed.empty() ? "" : " ", f.path);
  }
  return Output(str_cat("files  ", files.size(), " written to ", dir, ": ", listed, "\n"));
}

// The job on a cluster known only as a switch tree (--topology-conf,
// --topology-csv): --hosts by the file's names or ids, --gpus-per-host GPUs each.
StatusOr<placement::JobPlacement> job_on_tree(const Flags& flags, const topology::SwitchTree& tree) {
  auto plan = placement::parse_plan(flags.text("job"));
  if (!plan.ok()) return flag_error(flags, "job", plan.status());
  std::vector<HostId> hosts;
  if (flags.given("hosts")) {
    auto parsed = topology::resolve_hosts("hosts", flags.text("hosts"), tree.hosts);
    if (!parsed.ok()) return flag_error(flags, "hosts", parsed.status());
    hosts = *std::move(parsed);
  }
  const std::string_view which = flags.text("order");
  if (which != "railyard" && which != "naive")
    return usage_error(str_cat(shown(flags, "order"), ": use railyard or naive"));
  auto job = placement::order_on_tree(tree, *plan, flags.int32("gpus-per-host"), hosts,
                                      which == "railyard");
  if (!job.ok()) {
    constexpr FieldRoute kTreeJobRoutes[] = {
        {"gpus_per_host", {"gpus-per-host"}}, {"hosts", {"hosts"}}, {"job", {"job"}}};
    return routed_error(flags, kTreeJobRoutes, job.status(), "export");
  }
  return job;
}

Outcome launcher_file(const Invocation& inv, const Source& src,
                      const exports::LaunchOptions& options) {
  const Flags& flags = inv.flags;
  placement::JobPlacement chosen;
  std::vector<std::string> names;
  if (src.descriptor) {
    const topology::ClusterDescriptor<>& d = *src.descriptor;
    std::span<const std::string> file_names;
    if (src.fit) file_names = src.fit->host_names;
    RAILYARD_ASSIGN_OR_RETURN(JobInput job, load_job(flags, d, file_names));
    RAILYARD_ASSIGN_OR_RETURN(const placement::JobPlacement* order, chosen_order(flags, job));
    chosen = *order;
    if (src.fit) {
      names = src.fit->host_names;  // the file names its hosts
    } else {
      RAILYARD_ASSIGN_OR_RETURN(topology::NodeNamer namer, load_node_namer(flags, d));
      names = namer.names(d);
    }
  } else {
    RAILYARD_ASSIGN_OR_RETURN(chosen, job_on_tree(flags, *src.tree));
    names = src.tree->hosts;
  }
  const std::string_view format = flags.text("format");
  if (format == "torchrun" && flags.given("out")) {
    auto files = exports::torchrun_files(chosen, names, options);
    if (!files.ok())
      return routed_error(flags, kExportLaunchRoutes, files.status(), shown(flags, "format"));
    return write_files(flags, *files);
  }
  auto out = exports::launcher_file(format, chosen, names, options);
  if (!out.ok())
    return routed_error(flags, kExportLaunchRoutes, out.status(), shown(flags, "format"));
  return Output(*std::move(out));
}

// --host: an id, or a node name of the cluster (--node-pattern's or the
// imported file's). An id is read as the integer flags are (int32), and one
// outside the cluster is left to nccl_topology_file, whose message gives the
// cluster's id range.
StatusOr<int32_t> xml_host(const Flags& flags, const Source& src) {
  const topology::ClusterDescriptor<>& d = *src.descriptor;
  std::span<const std::string> file_names;
  if (src.fit) file_names = src.fit->host_names;
  RAILYARD_ASSIGN_OR_RETURN(const std::vector<std::string> names,
                            host_names(flags, d, file_names));
  auto named = named_host("host", flags.text("host"), names);
  if (!named.ok()) return flag_error(flags, "host", named.status());
  if (*named) return (*named)->value();
  auto id = parse_signed_int_in("host", flags.text("host"), std::numeric_limits<int32_t>::min(),
                                std::numeric_limits<int32_t>::max());
  if (!id.ok()) return flag_error(flags, "host", id.status());
  return static_cast<int32_t>(*id);
}

Outcome nccl_xml(const Flags& flags, const Source& src) {
  const topology::ClusterDescriptor<>& d = *src.descriptor;
  exports::NcclXmlOptions options;
  RAILYARD_ASSIGN_OR_RETURN(options.host, xml_host(flags, src));
  options.vm = flags.boolean("vm");
  options.rail_plane = flags.boolean("nccl-rail-plane");
  options.gpu_busids = comma_list(flags, "gpu-busids");
  options.nic_busids = comma_list(flags, "nic-busids");
  // The host's devices, unless both id lists are given. A missing default /sys
  // is an empty host (the file is then refused below unless --vm); a given
  // --sysfs-root must exist.
  if (options.gpu_busids.empty() || options.nic_busids.empty()) {
    const std::string root(flags.text("sysfs-root"));
    std::error_code ec;
    if (flags.given("sysfs-root") || std::filesystem::is_directory(root, ec)) {
      auto host = exports::read_sysfs_host(root);
      if (!host.ok()) return routed_error(flags, kXmlRoutes, host.status(), shown(flags, "format"));
      options.sysfs = *std::move(host);
    }
  }
  auto xml = exports::nccl_topology_file(d, options);
  if (!xml.ok()) return routed_error(flags, kXmlRoutes, xml.status(), shown(flags, "format"));
  return Output(*std::move(xml));
}

// The scheduler formats: the switch tree from the spec (host names from
// --node-pattern) or as read from the file.
Outcome tree_file(const Flags& flags, const Source& src) {
  const std::string_view format = flags.text("format");
  topology::SwitchTree tree;
  if (src.descriptor) {
    RAILYARD_ASSIGN_OR_RETURN(topology::NodeNamer namer, load_node_namer(flags, *src.descriptor));
    auto built = topology::switch_tree(*src.descriptor, namer);
    if (!built.ok()) return flag_error(flags, "node-pattern", built.status());
    tree = *std::move(built);
    // A fitted cluster keeps the file's host names (host id order is the fit's).
    if (src.fit) tree.hosts = src.fit->host_names;
  } else {
    tree = *src.tree;
  }
  if (format == "slurm-tree") return Output(exports::slurm_topology_conf(tree));
  if (format == "slurm-block") return Output(exports::slurm_block_conf(tree, *src.descriptor));
  if (format == "slurm-yaml") return Output(exports::slurm_topology_yaml(tree, *src.descriptor));
  StatusOr<std::string> out = std::string();
  if (format == "csv") {
    out = exports::csv_topology_from_tree(tree);
  } else {
    exports::K8sLabelOptions options;
    options.legacy_labels = flags.boolean("legacy-labels");
    options.kueue_api_version = str_cat("kueue.x-k8s.io/", flags.text("kueue-api"));
    const std::vector<std::string> domains =
        src.descriptor ? exports::nvlink_domain_names(*src.descriptor) : std::vector<std::string>{};
    auto labeling = exports::k8s_labeling(tree, domains, options);
    if (!labeling.ok()) {
      if (error_field(labeling.status()) &&
          error_field(labeling.status())->field == "kueue_api_version")
        return usage_error(str_cat(shown(flags, "kueue-api"),
                                   ": use v1alpha1 (Kueue 0.9-0.13), v1beta1 (0.14+) or v1beta2 "
                                   "(0.15+)"));
      return flag_error(flags, "format", labeling.status());
    }
    if (format == "k8s-labels" && flags.given("out")) {
      const exports::LaunchFile files[] = {
          {"k8s-node-labels.yaml", exports::k8s_node_labels_yaml(*labeling, options)},
          {"kueue-topology.yaml", exports::kueue_topology_yaml(*labeling, options)}};
      return write_files(flags, files);
    }
    out = format == "k8s-labels"       ? exports::k8s_labels_yaml(*labeling, options)
          : format == "kueue-topology" ? exports::kueue_topology_yaml(*labeling, options)
                                       : exports::k8s_label_script(*labeling);
  }
  if (!out.ok()) return flag_error(flags, "format", out.status());
  return Output(*std::move(out));
}

Outcome run_export(const Invocation& inv) {
  const Flags& flags = inv.flags;
  const std::string_view format = flags.text("format");
  const bool launcher = is_launcher(format);
  if (!launcher && !is_tree(format) && format != "nccl-xml")
    return usage_error(
        str_cat(shown(flags, "format"), ": unknown format (one of ", kFormatList, ")"));
  // Values first (an out-of-range port is wrong whatever the format), then which
  // flags this format reads.
  const exports::LaunchOptions options{flags.int32("master-port"), flags.int32("cores-per-rank")};
  if (Status s = exports::check_launch_options(options); !s.ok())
    return routed_error(flags, kExportLaunchRoutes, s, "export");
  for (const FormatOnly& f : kFormatOnly)
    RAILYARD_RETURN_IF_ERROR(only_with(inv, f.flag, f.applies(format), f.why));
  if (launcher && !flags.given("job"))
    return usage_error(str_cat("export: --job is required for ", shown(flags, "format"),
                               " (e.g. --job tp=8,pp=4,dp=32)"));

  RAILYARD_ASSIGN_OR_RETURN(Source src, load_source(inv));
  RAILYARD_RETURN_IF_ERROR(
      only_with(inv, "node-pattern", src.descriptor.has_value() && !src.fit,
                "applies only to a cluster spec (an imported topology names its hosts)"));
  RAILYARD_RETURN_IF_ERROR(only_with(
      inv, "gpus-per-host", launcher && src.tree.has_value(),
      "applies only to the launcher formats with --topology-conf or --topology-csv (a spec or "
      "cable list says how many GPUs a host has)"));
  const bool needs_spec = format == "nccl-xml" || format == "slurm-block" || format == "slurm-yaml";
  if (needs_spec && !src.descriptor)
    return usage_error(
        str_cat(shown(flags, "format"), ": needs a cluster spec (--cluster), not ", src.origin));
  if (launcher) return launcher_file(inv, src, options);
  if (format == "nccl-xml") return nccl_xml(flags, src);
  return tree_file(flags, src);
}

}  // namespace

const Subcommand kExport{
    "export",
    "--format FORMAT [--cluster SPEC | --topology-conf FILE | --topology-csv FILE | --cables FILE "
    "| --ibnetdiscover FILE] [--host H] "
    "[--vm] [--sysfs-root DIR] [--node-pattern P] [--legacy-labels] [--kueue-api V] "
    "[--job PLAN [--hosts LIST] [--order O] [--gpus-per-host G]] [--out DIR]",
    "files for other tools: NCCL topology XML, Slurm, Kubernetes, CSV, launcher files",
    "",
    kExportFlags,
    &run_export};

}  // namespace railyard::cli
