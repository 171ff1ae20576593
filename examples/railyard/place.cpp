// railyard place — multi-tenant placement of a job list on an empty cluster.
#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/report/place_report.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kPlaceFlags[] = {required("jobs"), {"cluster"}, {"cables"}, {"ibnetdiscover"},
                                   {"policy"},        {"seed"},    {"json"}};

Outcome run_place(const Invocation& inv) {
  const Flags& flags = inv.flags;
  auto policy = placement::parse_policy(flags.text("policy"));
  if (!policy.ok()) return flag_error(flags, "policy", policy.status());
  RAILYARD_RETURN_IF_ERROR(only_with(inv, "seed", *policy == placement::Policy::kRandom,
                                     "applies only with --policy random"));
  RAILYARD_ASSIGN_OR_RETURN(const ClusterInput in, load_cluster_input(inv));
  const topology::ClusterDescriptor<>& d = in.descriptor;
  placement::AllocatorOptions options;
  options.policy = *policy;
  options.seed = flags.uint64("seed");
  // An imported cluster's hosts with a missing or miswired cable get no job.
  const std::span<const HostId> drained =
      in.fit ? std::span<const HostId>(in.fit->drained) : std::span<const HostId>();
  auto placed = placement::place_jobs(d, flags.text("jobs"), options, drained);
  if (!placed.ok()) return flag_error(flags, "jobs", placed.status());
  const Exit exit = placed->unplaced.empty() ? Exit::kOk : Exit::kNotPlaced;
  if (flags.boolean("json")) return Output(report::place_json(*placed), exit);
  return Output(str_cat(report::place_text(d, *placed),
                        import_note(in, drained.empty()
                                            ? "no host is drained; switch cables do not change "
                                              "which hosts a job gets"
                                            : "drained hosts are not allocated (nor counted "
                                              "free); switch cables do not change which hosts "
                                              "a job gets")),
                exit);
}

}  // namespace

const Subcommand kPlace{
    "place",
    "--jobs LIST [--cluster SPEC | --cables FILE | --ibnetdiscover FILE] "
    "[--policy best_fit|first_fit|random] [--seed S] [--json]",
    "multi-tenant placement: which hosts each job gets, SUs it spans, what stays free",
    "Exit status 3 when some job does not fit (the report lists it under unplaced). With "
    "--cables or --ibnetdiscover, hosts with a missing or miswired host cable are drained: "
    "no job gets them.",
    kPlaceFlags,
    &run_place};

}  // namespace railyard::cli
