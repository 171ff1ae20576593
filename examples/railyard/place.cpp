// railyard place — multi-tenant placement of a job list on an empty cluster.
#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/report/place_report.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kPlaceFlags[] = {required("jobs"), {"cluster"}, {"policy"}, {"seed"}, {"json"}};

Outcome run_place(const Invocation& inv) {
  const Flags& flags = inv.flags;
  auto policy = placement::parse_policy(flags.text("policy"));
  if (!policy.ok()) return flag_error(flags, "policy", policy.status());
  RAILYARD_RETURN_IF_ERROR(only_with(inv, "seed", *policy == placement::Policy::kRandom,
                                     "applies only with --policy random"));
  RAILYARD_ASSIGN_OR_RETURN(const topology::ClusterDescriptor<> d, load_cluster(inv));
  placement::AllocatorOptions options;
  options.policy = *policy;
  options.seed = flags.uint64("seed");
  auto placed = placement::place_jobs(d, flags.text("jobs"), options);
  if (!placed.ok()) return flag_error(flags, "jobs", placed.status());
  return Output(
      flags.boolean("json") ? report::place_json(*placed) : report::place_text(d, *placed),
      placed->unplaced.empty() ? Exit::kOk : Exit::kNotPlaced);
}

}  // namespace

const Subcommand kPlace{
    "place",
    "--jobs LIST [--cluster SPEC] [--policy best_fit|first_fit|random] [--seed S] [--json]",
    "multi-tenant placement: which hosts each job gets, SUs it spans, what stays free",
    "Exit status 3 when some job does not fit (the report lists it under unplaced).",
    kPlaceFlags,
    &run_place};

}  // namespace railyard::cli
