// railyard cc — congestion-control settings derived from the fabric and the traffic.
#include <algorithm>
#include <optional>
#include <string>

#include "cli.hpp"
#include "collective_input.hpp"
#include "inputs.hpp"
#include "railyard/cc/derive.hpp"
#include "railyard/cc/incast.hpp"
#include "railyard/cc/recommend.hpp"
#include "railyard/cc/validate.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/units.hpp"
#include "railyard/export/cc_config.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/report/cc_report.hpp"
#include "railyard/topology/cluster.hpp"

namespace railyard::cli {
namespace {

constexpr std::string_view kCcNeedsSpec =
    "cc needs a cluster spec (--cluster): an imported topology has no cable lengths, switch "
    "radix or NIC layout to derive the settings from";

constexpr FlagUse kCcFlags[] = {{"cluster"},
                                {"cables"},
                                {"ibnetdiscover"},
                                {"incast"},
                                {"job"},
                                {"hosts"},
                                {"node-pattern"},
                                {"collective"},
                                {"algorithm"},
                                {"group"},
                                {"jobs"},
                                {"buffer-mb"},
                                {"message-bytes"},
                                {"simulate"},
                                {"start-rate"},
                                {"simulate-ms"},
                                {"svg"},
                                {"json"},
                                defaulted("format", "text"),
                                {"cable-m"},
                                {"mtu"},
                                {"switch-mtu"},
                                {"switch-ns"},
                                {"nic-ns"},
                                refused("nvswitch-ns",
                                        "cc's paths run NIC to NIC through the network and cross "
                                        "no NVLink switch"),
                                refused("topology-conf", kCcNeedsSpec),
                                refused("topology-csv", kCcNeedsSpec)};

// Which flag an input derive_cc rejects came from: the incast from --incast, else
// from the job's collective or step; the buffer from --buffer-mb, else from the
// cluster's switches.
constexpr FieldRoute kCcRoutes[] = {{"incast", {"incast", "collective", "job"}},
                                    {"buffer_bytes", {"buffer-mb", "cluster"}},
                                    {"message_bytes", {"message-bytes"}},
                                    {"nic_gbps", {"cluster"}},
                                    {"mtu_bytes", {"mtu"}},
                                    {"switch_mtu_bytes", {"switch-mtu"}},
                                    {"switch_ns", {"switch-ns"}},
                                    {"nic_ns", {"nic-ns"}},
                                    {"cable_m", {"cable-m"}},
                                    {"start_fraction", {"start-rate"}},
                                    {"duration_us", {"simulate-ms"}}};

// What --format (or --json) asks for.
constexpr std::string_view kCcFormats[] = {"text", "json", "nvue", "sonic", "connectx", "nccl-env"};

StatusOr<std::string_view> cc_format(const Flags& flags) {
  const std::string_view format = flags.text("format");
  if (std::find(std::begin(kCcFormats), std::end(kCcFormats), format) == std::end(kCcFormats))
    return usage_error(str_cat(shown(flags, "format"),
                               ": unknown format (one of text, json, nvue, sonic, connectx, "
                               "nccl-env)"));
  if (flags.boolean("json")) {
    if (flags.given("format") && format != "json")
      return usage_error(str_cat("cc: --json conflicts with ", shown(flags, "format"),
                                 " (--json is --format json)"));
    return std::string_view("json");
  }
  return format;
}

// Flags that need another one.
Status check_cc_dependencies(const Invocation& inv) {
  const Flags& flags = inv.flags;
  // --node-pattern only names the hosts --hosts may list, so it needs --job too.
  for (std::string_view flag : {"hosts", "node-pattern", "collective", "algorithm", "group"})
    RAILYARD_RETURN_IF_ERROR(only_with(inv, flag, flags.given("job"),
                                       "needs --job (e.g. --job tp=8,dp=16 --hosts 0-15)"));
  for (std::string_view flag : {"algorithm", "group"})
    RAILYARD_RETURN_IF_ERROR(
        only_with(inv, flag, flags.given("collective"),
                  "needs --collective (without it the incast is the job's whole training step)"));
  for (std::string_view flag : {"start-rate", "svg", "simulate-ms"})
    RAILYARD_RETURN_IF_ERROR(only_with(inv, flag, flags.boolean("simulate"),
                                       "needs --simulate (the NIC model's search)"));
  return check_output_flag(flags, "svg");
}

// The incast of the job's collective (--collective) or training step, on
// railyard's numbering of --hosts: the rule `railyard plan` applies per job.
StatusOr<cc::Incast> derived_incast(const Flags& flags, const ClusterInput& cluster_in) {
  const topology::ClusterDescriptor<>& d = cluster_in.descriptor;
  std::optional<CollectiveInput> in;
  if (flags.given("collective")) {
    RAILYARD_ASSIGN_OR_RETURN(in, parse_collective_input(flags));
  }
  RAILYARD_ASSIGN_OR_RETURN(const JobInput job, load_job(flags, d, file_host_names(cluster_in)));
  if (!in) return cc::job_incast(job.railyard);
  RAILYARD_ASSIGN_OR_RETURN(const auto groups, collective_groups(flags, *in, job.railyard));
  auto incast = cc::collective_incast(in->kind, in->algorithm, groups);
  if (!incast.ok()) return flag_error(flags, "algorithm", incast.status());
  return incast;
}

Outcome run_cc(const Invocation& inv) {
  const Flags& flags = inv.flags;
  RAILYARD_ASSIGN_OR_RETURN(const std::string_view format, cc_format(flags));
  RAILYARD_RETURN_IF_ERROR(check_cc_dependencies(inv));
  cc::CcInputs in;
  if (flags.given("incast")) in.incast = flags.int32("incast");
  if (flags.given("mtu")) {
    const int32_t mtu = flags.int32("mtu");
    if (std::find(cc::kRoceMtus.begin(), cc::kRoceMtus.end(), mtu) == cc::kRoceMtus.end())
      return usage_error(str_cat(shown(flags, "mtu"),
                                 ": must be one of 256, 512, 1024, 2048, 4096 (the RoCE MTUs)"));
    in.mtu_bytes = mtu;
  }
  if (flags.given("switch-mtu")) in.switch_mtu_bytes = flags.int32("switch-mtu");
  RAILYARD_ASSIGN_OR_RETURN(in.latency, load_latency(flags));
  if (flags.given("cable-m")) {
    auto m = parse_decimal_in("cable_m", flags.text("cable-m"), 0, cc::kMaxCableM, "m");
    if (!m.ok()) return flag_error(flags, "cable-m", m.status());
    in.cable_m = *m;
  }
  if (flags.given("buffer-mb")) {
    auto mb = parse_decimal_in("buffer_mb", flags.text("buffer-mb"), 0,
                               cc::kMaxBufferBytesPerPort / kBytesPerMB, "MB");
    if (!mb.ok()) return flag_error(flags, "buffer-mb", mb.status());
    in.buffer_bytes_per_port = *mb * kBytesPerMB;
  }
  if (flags.given("message-bytes")) {
    auto size =
        parse_size_in("message_bytes", flags.text("message-bytes"), 1, collective::kMaxBytes);
    if (!size.ok()) return flag_error(flags, "message-bytes", size.status());
    in.message_bytes = static_cast<double>(*size);
  }
  std::optional<double> given_start;
  cc::CcValidateOptions simulate_options;
  if (flags.given("simulate-ms")) {
    auto ms = parse_decimal_in("simulate_ms", flags.text("simulate-ms"), 0, 100, "ms");
    if (!ms.ok()) return flag_error(flags, "simulate-ms", ms.status());
    simulate_options.duration_us = *ms * 1000;
  }
  if (flags.given("start-rate")) {
    auto given = parse_fraction("start_rate", flags.text("start-rate"));
    if (!given.ok()) return flag_error(flags, "start-rate", given.status());
    given_start = *given;
  }
  RAILYARD_ASSIGN_OR_RETURN(const ClusterInput cluster_in, load_cluster_input(inv));
  const topology::ClusterDescriptor<>& d = cluster_in.descriptor;
  RAILYARD_RETURN_IF_ERROR(check_node_pattern(inv, cluster_in));

  report::CcReportContext ctx;
  ctx.cluster = cluster_in.fit ? cluster_in.origin : std::string(flags.text("cluster"));
  if (cluster_in.fit) {
    // ECN thresholds, PFC headroom and DCQCN follow link speed, cable length and
    // the incast, none of which a failed cable changes; --jobs is placed off
    // the drained hosts, as 'railyard place' places it.
    const topology::CableFit& fit = *cluster_in.fit;
    ctx.warnings.push_back(str_cat(
        cluster_in.origin, ": ", fit.count(topology::CableProblem::kMissing), " missing and ",
        fit.count(topology::CableProblem::kMiswired),
        " miswired cables do not change these settings (they follow link speed, cable length "
        "and the incast); ",
        fit.drained.empty() ? std::string("no host is drained")
                            : str_cat(fit.drained.size(), " drained hosts get no job of --jobs")));
  }
  cc::Incast incast;  // where the incast comes from, for the senders' start rate
  incast.senders = in.incast;
  if (flags.given("job")) {
    RAILYARD_ASSIGN_OR_RETURN(const cc::Incast derived, derived_incast(flags, cluster_in));
    if (flags.given("incast")) {
      ctx.incast_source =
          str_cat("--incast (the job's own would be ", derived.senders, ": ", derived.source, ")");
      incast.all_to_all = derived.all_to_all;
    } else {
      incast = derived;
      in.incast = derived.senders;
      ctx.incast_source = derived.source;
    }
  } else {
    ctx.incast_source =
        flags.given("incast") ? "--incast" : "default: give --incast N or --job PLAN";
  }

  // Tenants for per-QP rate limits, placed as `railyard place` places them.
  std::optional<placement::PlaceResult> placed;
  if (flags.given("jobs")) {
    ctx.jobs = std::string(flags.text("jobs"));
    const std::span<const HostId> drained =
        cluster_in.fit ? std::span<const HostId>(cluster_in.fit->drained)
                       : std::span<const HostId>();
    auto result = placement::place_jobs(d, ctx.jobs, {}, drained);
    if (!result.ok()) return flag_error(flags, "jobs", result.status());
    placed = *std::move(result);
    for (const placement::UnplacedJob& u : placed->unplaced)
      ctx.warnings.push_back(
          str_cat("--jobs: '", u.name, "' not placed, so no rate limit: ", u.reason));
    in.tenants = placed->placed;
  }

  const topology::Cluster cluster{d, topology::materialize(d)};
  auto plan = cc::derive_cc(cluster, in);
  if (!plan.ok()) return routed_error(flags, kCcRoutes, plan.status(), "cc");

  // The search on the NIC model (and the paper's fluid model beside it); its
  // recommendation replaces the defaults in the plan before it is printed.
  std::optional<cc::CcValidation> fluid;
  if (flags.boolean("simulate")) {
    const cc::StartRate rate = cc::start_rate(incast);
    if (!given_start && !rate.reason.empty()) str_append(ctx.incast_source, "; ", rate.reason);
    auto checked = cc::validate_cc(*plan, given_start.value_or(rate.fraction), simulate_options);
    if (!checked.ok()) return routed_error(flags, kCcRoutes, checked.status(), "--simulate");
    fluid = *std::move(checked);
    cc::apply_recommendation(*plan, fluid->search);
    if (flags.given("svg")) {
      RAILYARD_ASSIGN_OR_RETURN(const std::string svg, report::cc_fluid_svg(*fluid));
      RAILYARD_RETURN_IF_ERROR(write_flag_file(flags, "svg", svg));
    }
  }

  const cc::CcValidation* fluid_ptr = fluid ? &*fluid : nullptr;
  const Exit exit = placed && !placed->unplaced.empty() ? Exit::kNotPlaced : Exit::kOk;
  if (format == "nvue") return Output(exports::nvue_commands(*plan), exit);
  if (format == "sonic") return Output(exports::sonic_config(*plan), exit);
  if (format == "connectx") return Output(exports::connectx_commands(*plan), exit);
  if (format == "nccl-env") return Output(exports::nccl_env(*plan), exit);
  return Output(format == "json" ? report::cc_json(*plan, in, ctx, 2, fluid_ptr)
                                 : report::cc_text(*plan, in, ctx, fluid_ptr),
                exit);
}

}  // namespace

const Subcommand kCc{
    "cc",
    "[--cluster SPEC] [--incast N | --job PLAN [--hosts LIST] [--node-pattern P] "
    "[--collective C [--algorithm A] [--group DIM]]] [--buffer-mb B] [--message-bytes SIZE] "
    "[--jobs LIST] [--simulate "
    "[--start-rate F] [--simulate-ms MS] [--svg FILE]] [--cable-m M] [--mtu BYTES] [--switch-mtu BYTES] "
    "[--switch-ns NS] [--nic-ns NS] [--format text|json|nvue|sonic|connectx|nccl-env | --json] "
    "[--cables FILE | --ibnetdiscover FILE (instead of --cluster)]",
    "congestion control: ECN per tier, PFC headroom, DCQCN, HPCC, NSCC, NCCL env, rate limits",
    "The incast (line-rate senders into one port) is --incast, else the job's: with --collective, "
    "that collective's in its groups (--group, else all ranks); without, the largest of the "
    "job's training step (dp all-reduce, ep all-to-all, cp all-gather, tp all-reduce), the rule "
    "'railyard plan' applies per job. Exit status 3 when some job of --jobs is not placed (it "
    "gets no rate limit; the report warns).",
    kCcFlags,
    &run_cc};

}  // namespace railyard::cli
