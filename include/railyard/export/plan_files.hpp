// railyard/export/plan_files.hpp — every file `railyard plan --out DIR` writes, as
// (relative path, content) pairs, and a writer that puts them under a directory.
//
//   auto r = railyard::pipeline::run_plan(*cluster, *scenario);
//   auto files = railyard::exports::plan_files(*cluster, *r);          // StatusOr<vector>
//   railyard::Status s = railyard::exports::write_plan_files("out", *files);  // mkdir -p, write
//   std::string line = railyard::exports::plan_files_summary("out", *files);  // "files  165 written to out: ..."
//
// The files (host names from PlanFilesOptions::node_pattern; the launcher files
// follow railyard's placement and numbering, the deployment the report
// recommends):
//   README.txt                    what each file is and how to use it
//   plan.json                     plan_json(): everything in the report
//   topo/<host>.xml               NCCL_TOPO_FILE skeleton of every host (nccl_xml.hpp, VM form:
//                                 the planning machine does not see the hosts' bus ids)
//   slurm/topology.conf           topology/tree (slurm.hpp)
//   slurm/topology.yaml           Slurm 25.05+ tree + block topologies
//   k8s/labels.yaml               node labels and a Kueue Topology (k8s_labels.hpp)
//   jobs/<job>/hostfile           Open MPI --map-by seq: line k = host of rank k
//   jobs/<job>/rankfile           Open MPI rankfile: rank N=<host> slot=<core>
//   jobs/<job>/rank-env.txt       torchrun's variables per rank (launchers.hpp)
//   jobs/<job>/megatron-args.txt  Megatron-LM arguments for the same rank order
//   jobs/<job>/nccl.env           derive_cc's NCCL environment: `# reason`, NAME=value
//   jobs/<job>/nccl_tuner.conf    NCCL example-tuner CSV rules from the simulations
//   heatmap/naive.svg             peak link utilization of the simulated collectives,
//   heatmap/railyard.svg          naive and railyard (heatmap_svg.hpp), per link the
//                                 highest of the collectives' averages, on one colour
//                                 scale (darkest = the busiest port of either)
// Unplaced jobs get no jobs/<job>/ directory. Paths use '/', in the order above.
//
// write_plan_files() creates the directory and every parent it needs, then
// writes each file (truncating an old one); errors (InvalidArgument, naming the
// path) say which directory could not be created or which file not written.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/file.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/heatmap_svg.hpp"
#include "railyard/export/k8s_labels.hpp"
#include "railyard/export/launchers.hpp"
#include "railyard/export/nccl_xml.hpp"
#include "railyard/topology/node_names.hpp"
#include "railyard/report/plan_report.hpp"
#include "railyard/pipeline/plan.hpp"
#include "railyard/export/slurm.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/core/hostlist.hpp"
#include "railyard/tune/model.hpp"
#include "railyard/tune/rules.hpp"
#include "railyard/version.hpp"

namespace railyard::exports {

struct PlanFile {
  std::string path;  // relative, '/'-separated
  std::string content;
};

struct PlanFilesOptions {
  std::string node_pattern = std::string(topology::kDefaultNodePattern);
  LaunchOptions launch;
  uint64_t seed = 1;  // recorded in plan.json (the seed pipeline::run_plan used)
};

// The NCCL environment file of a job: a header, then per variable a `# reason`
// line and a NAME=value line: derive_cc's settings, then what railyard's tuner
// plugin reads (docs/nccl-tuner.md): the cluster's canonical spec, the job's
// hosts in node order and the digest of those with the job's rule file
// (`tuner_rules`, the text of nccl_tuner.conf), which every rank checks.
RAILYARD_LAZY
[[nodiscard]] std::string nccl_env_file(const pipeline::PlanJobResult& j, std::string_view cluster,
                                        const topology::ClusterDescriptor<>& d,
                                        std::string_view tuner_rules) {
  std::string out =
      str_cat("# NCCL environment for job ", j.job.name, " (railyard plan on ", cluster,
              "; cc/derive.hpp, incast ", j.incast, ": ", j.incast_source,
              ")\n# Export each NAME=value line in the job's environment. Also set, per host,\n"
              "# NCCL_TOPO_FILE to ../../topo/<host>.xml and NCCL_TUNER_CONFIG_FILE to\n"
              "# nccl_tuner.conf here (railyard's tuner checks it against\n"
              "# RAILYARD_TUNER_DIGEST; NCCL's example tuner reads it too).\n");
  if (j.cc)
    for (const cc::EnvVar& v : j.cc->nccl_env)
      str_append(out, "# ", v.reason, "\n", v.name, "=", v.value, "\n");
  const std::string spec = topology::to_spec_string(d.spec());
  const std::string hosts = format_host_list(j.at(pipeline::PlanSide::kRailyard).placement.hosts);
  str_append(out,
             "# railyard's tuner plugin (libnccl-tuner-railyard.so): NCCL opens "
             "libnccl-tuner-<name>.so\nNCCL_TUNER_PLUGIN=railyard\n"
             "# the cluster the tuner models (canonical spec)\nRAILYARD_CLUSTER=",
             spec, "\n# the job's hosts in node order (node i holds the hostfile's ranks ",
             d.gpus_per_host(), "i to ", d.gpus_per_host(), "i+", d.gpus_per_host() - 1,
             ")\nRAILYARD_HOSTS=", hosts, "\n");
  auto digest = tune::tuner_input_digest(spec, hosts, tuner_rules);
  if (digest.ok())
    str_append(out,
               "# digest of RAILYARD_CLUSTER, RAILYARD_HOSTS and nccl_tuner.conf: a rank whose "
               "inputs differ\n# fails communicator init instead of tuning differently\n"
               "RAILYARD_TUNER_DIGEST=",
               tune::format_digest(*digest), "\n");
  return out;
}

// The tuner rules of a job in NCCL's example-tuner format (tune/rules.hpp), as
// the tuner plugin and NCCL's example tuner read them.
RAILYARD_LAZY
[[nodiscard]] std::string nccl_tuner_file(const pipeline::PlanJobResult& j) {
  std::vector<std::string> header = {
      str_cat("NCCL tuner rules for job ", j.job.name, ", written by railyard ", kVersion, "."),
      "Format (NCCL's example tuner, NCCL_TUNER_CONFIG_FILE; first match wins):",
      "coll,min_bytes,max_bytes,algo,proto,channels,nNodes,nRanks (max_bytes -1: no bound)",
      "From railyard's simulator on this job's placement with planned paths: ring and",
      "tree all-reduce at 4 MiB, 32 MiB, 256 MiB and 2 GiB; the faster owns the band up to",
      "the next size. Below 4 MiB NCCL decides (latency and LL/LL128 are not modelled).",
      "channels -1 keeps NCCL's count."};
  if (j.tuner.empty()) header.push_back("No rule: no all-reduce of this job crosses the network.");
  return tune::format_tuning_rules(j.tuner, header);
}

// Every artifact (see the overview). Errors: a node pattern that does not suit
// the cluster, or an exporter's error, naming the file.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<PlanFile>> plan_files(
    const topology::Cluster& cluster, const pipeline::PlanResult& r, const PlanFilesOptions& options = {}) {
  const topology::ClusterDescriptor<>& d = cluster.descriptor;
  auto in_file = [](std::string_view path, const Status& s) {
    return make_status(s.code(), str_cat(path, ": ", message_of(s)));
  };
  RAILYARD_ASSIGN_OR_RETURN(topology::NodeNamer namer, topology::NodeNamer::parse(options.node_pattern));
  RAILYARD_RETURN_IF_ERROR(namer.check(d));
  const std::vector<std::string> names = namer.names(d);
  std::vector<PlanFile> files;

  std::string readme = str_cat(
      "railyard plan on ", r.cluster, " (railyard ", kVersion, ")\n\n",
      "plan.json                     the whole report as JSON\n",
      "topo/<host>.xml               NCCL topology skeleton of each host (VM form): replace the\n"
      "                              placeholder ffff:* GPU/NIC bus ids with the host's, or on bare\n"
      "                              metal run `railyard export --format nccl-xml` on the host\n",
      "slurm/topology.conf           Slurm topology/tree (TopologyPlugin=topology/tree)\n",
      "slurm/topology.yaml           Slurm 25.05+ topology.yaml (tree and block)\n",
      "k8s/labels.yaml               Kubernetes node labels and a Kueue Topology\n",
      "jobs/<job>/hostfile           mpirun --hostfile hostfile --map-by seq (line k = rank k)\n",
      "jobs/<job>/rankfile           mpirun --map-by rankfile:file=rankfile\n",
      "jobs/<job>/rank-env.txt       per-rank torchrun variables (host, then RANK=... per line)\n",
      "jobs/<job>/megatron-args.txt  Megatron-LM parallel sizes and the matching rank order\n",
      "jobs/<job>/nccl.env           NCCL environment derived for the job (NAME=value)\n",
      "jobs/<job>/nccl_tuner.conf    NCCL_TUNER_CONFIG_FILE for NCCL's example tuner\n",
      "heatmap/naive.svg             peak link utilization (per link, the busiest of the\n",
      "                              simulated collectives), naive placement and routing\n",
      "heatmap/railyard.svg          the same for railyard's placement and routing; both on\n",
      "                              one colour scale (darkest = the busiest port of either)\n\n",
      "Launcher files follow railyard's placement (best_fit hosts, railyard rank order):\n",
      "launch ranks exactly as they say, or the measured gains do not apply.\n");
  files.push_back({"README.txt", std::move(readme)});
  files.push_back({"plan.json", report::plan_json(d, r, options.seed)});

  for (int32_t h = 0; h < d.hosts(); ++h) {
    const std::string path = str_cat("topo/", names[static_cast<size_t>(h)], ".xml");
    // The VM skeleton: the hosts' bus ids are not known here, and a bare-metal
    // file with invented ids is refused (nccl_topology_file). Its placeholder
    // ids (domain ffff) match no device, so unedited it changes nothing in NCCL.
    NcclXmlOptions x;
    x.host = h;
    x.vm = true;
    auto xml = nccl_topology_file(d, x);
    if (!xml.ok()) return in_file(path, xml.status());
    files.push_back({path, *std::move(xml)});
  }

  auto tree = topology::switch_tree(d, namer);
  if (!tree.ok()) return in_file("slurm/topology.conf", tree.status());
  files.push_back({"slurm/topology.conf", slurm_topology_conf(*tree)});
  files.push_back({"slurm/topology.yaml", slurm_topology_yaml(*tree, d)});
  auto labels = k8s_labels_yaml(*tree, d);
  if (!labels.ok()) return in_file("k8s/labels.yaml", labels.status());
  files.push_back({"k8s/labels.yaml", *std::move(labels)});

  for (const pipeline::PlanJobResult& j : r.jobs) {
    if (!j.placed) continue;
    const placement::JobPlacement& job = j.at(pipeline::PlanSide::kRailyard).placement;
    const std::string dir = str_cat("jobs/", j.job.name, "/");
    auto hostfile = hostfile_seq(job, names);
    if (!hostfile.ok()) return in_file(dir + "hostfile", hostfile.status());
    files.push_back({dir + "hostfile", *std::move(hostfile)});
    auto rankfile = openmpi_rankfile(job, names, options.launch);
    if (!rankfile.ok()) return in_file(dir + "rankfile", rankfile.status());
    files.push_back({dir + "rankfile", *std::move(rankfile)});
    auto env = rank_env(job, names, options.launch);
    if (!env.ok()) return in_file(dir + "rank-env.txt", env.status());
    files.push_back({dir + "rank-env.txt", *std::move(env)});
    auto megatron = launcher_file("megatron", job, names, options.launch);
    if (!megatron.ok()) return in_file(dir + "megatron-args.txt", megatron.status());
    files.push_back({dir + "megatron-args.txt", *std::move(megatron)});
    std::string tuner_rules = nccl_tuner_file(j);
    files.push_back({dir + "nccl.env", nccl_env_file(j, r.cluster, d, tuner_rules)});
    files.push_back({dir + "nccl_tuner.conf", std::move(tuner_rules)});
  }

  // Both maps on one colour scale, so the same red means the same load in
  // either: the busiest switch port of the two.
  double scale_top = 0;
  for (pipeline::PlanSide s : pipeline::kPlanSides)
    scale_top = std::max(scale_top, report::heatmap_busiest(
                                        cluster.fabric, r.peak_utilization[pipeline::side_index(s)]));
  for (pipeline::PlanSide s : pipeline::kPlanSides) {
    const std::string path = str_cat("heatmap/", pipeline::side_name(s), ".svg");
    report::HeatmapOptions h;
    h.title = str_cat("railyard plan on ", r.cluster, ", ", pipeline::side_name(s),
                      s == pipeline::PlanSide::kNaive ? " (first_fit, host order, ECMP 1 QP)"
                                            : " (best_fit, railyard order, steered QPs)",
                      ": peak link utilization over the simulated collectives");
    h.metric =
        "peak over the simulated collectives: per link, the highest of each collective's "
        "average (bytes / (capacity x that collective's time))";
    h.scale_max = scale_top;
    h.scale_note = "the busiest switch port of naive.svg and railyard.svg: one scale for both";
    auto svg = report::heatmap_svg(cluster.fabric, r.peak_utilization[pipeline::side_index(s)], h);
    if (!svg.ok()) return in_file(path, svg.status());
    files.push_back({path, *std::move(svg)});
  }
  return files;
}

// Writes `files` under `dir` (see the overview).
RAILYARD_LAZY
[[nodiscard]] Status write_plan_files(std::string_view dir, std::span<const PlanFile> files) {
  auto strip = [&](Status s) {  // callers name the directory (--out) themselves
    return s.ok() ? s : invalid_argument_error(std::string(error_problem(s)));
  };
  RAILYARD_RETURN_IF_ERROR(strip(make_directories("dir", dir)));
  std::vector<std::string> made;
  for (const PlanFile& f : files) {
    const std::string path = str_cat(dir, "/", f.path);
    const std::string parent = path.substr(0, path.rfind('/'));
    if (std::find(made.begin(), made.end(), parent) == made.end()) {
      RAILYARD_RETURN_IF_ERROR(strip(make_directories("dir", parent)));
      made.push_back(parent);
    }
    if (!write_text_file("file", path, f.content).ok())
      return invalid_argument_error(str_cat("cannot write ", path));
  }
  return ok_status();
}

// One line of the plan report naming what write_plan_files() wrote under `dir`:
// the count, then the layout above with how many host and job files there are.
RAILYARD_LAZY
[[nodiscard]] std::string plan_files_summary(std::string_view dir,
                                                    std::span<const PlanFile> files) {
  size_t topo = 0, jobs = 0;
  constexpr std::string_view kHostfile = "/hostfile";
  for (const PlanFile& f : files) {
    const std::string_view path = f.path;
    if (path.starts_with("topo/")) ++topo;
    if (path.starts_with("jobs/") && path.size() > kHostfile.size() && path.ends_with(kHostfile))
      ++jobs;
  }
  return str_cat("files     ", files.size(), " written to ", dir,
                 ": README.txt, plan.json, topo/<host>.xml (", topo,
                 "), slurm/topology.{conf,yaml}, k8s/labels.yaml, jobs/<job>/{hostfile,"
                 "rankfile,rank-env.txt,megatron-args.txt,nccl.env,nccl_tuner.conf} (",
                 jobs, jobs == 1 ? " job" : " jobs", "), heatmap/{naive,railyard}.svg\n");
}

}  // namespace railyard::exports
