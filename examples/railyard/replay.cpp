// railyard replay — a job trace under every placement policy.
#include "railyard/placement/replay.hpp"

#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/report/place_report.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kReplayFlags[] = {required("trace"), {"cluster"}, {"cables"},
                                    {"ibnetdiscover"},   {"seed"},    {"json"}};

Outcome run_replay(const Invocation& inv) {
  const Flags& flags = inv.flags;
  RAILYARD_ASSIGN_OR_RETURN(const ClusterInput in, load_cluster_input(inv));
  const topology::ClusterDescriptor<>& d = in.descriptor;
  RAILYARD_ASSIGN_OR_RETURN(const std::string text, read_flag_file(flags, "trace"));
  auto trace = placement::parse_job_trace(text);
  if (!trace.ok()) return flag_error(flags, "trace", trace.status());
  auto reports = placement::replay_policies(d, *trace, flags.uint64("seed"));
  if (!reports.ok()) return flag_error(flags, "trace", reports.status());
  if (flags.boolean("json")) return Output(report::replay_json(*reports));
  return Output(str_cat(report::replay_text(*reports),
                        import_note(in, "the replay uses every host of the fitted cluster, "
                                        "drained ones too (it measures policies, not this "
                                        "fabric's health)")));
}

}  // namespace

const Subcommand kReplay{
    "replay",
    "--trace FILE [--cluster SPEC | --cables FILE | --ibnetdiscover FILE] [--seed S] [--json]",
    "replay a job trace under every placement policy: utilization, waiting, split jobs",
    "",
    kReplayFlags,
    &run_replay};

}  // namespace railyard::cli
