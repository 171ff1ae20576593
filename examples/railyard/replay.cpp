// railyard replay — a job trace under every placement policy.
#include "railyard/placement/replay.hpp"

#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/report/place_report.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kReplayFlags[] = {required("trace"), {"cluster"}, {"seed"}, {"json"}};

Outcome run_replay(const Invocation& inv) {
  const Flags& flags = inv.flags;
  RAILYARD_ASSIGN_OR_RETURN(const topology::ClusterDescriptor<> d, load_cluster(inv));
  RAILYARD_ASSIGN_OR_RETURN(const std::string text, read_flag_file(flags, "trace"));
  auto trace = placement::parse_job_trace(text);
  if (!trace.ok()) return flag_error(flags, "trace", trace.status());
  auto reports = placement::replay_policies(d, *trace, flags.uint64("seed"));
  if (!reports.ok()) return flag_error(flags, "trace", reports.status());
  return Output(flags.boolean("json") ? report::replay_json(*reports)
                                      : report::replay_text(*reports));
}

}  // namespace

const Subcommand kReplay{
    "replay",
    "--trace FILE [--cluster SPEC] [--seed S] [--json]",
    "replay a job trace under every placement policy: utilization, waiting, split jobs",
    "",
    kReplayFlags,
    &run_replay};

}  // namespace railyard::cli
