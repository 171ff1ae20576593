// railyard order — which GPU is rank r: railyard's numbering against the naive one.
#include <algorithm>
#include <string>
#include <vector>

#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/report/order_report.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kOrderFlags[] = {required("job"), {"cluster"}, {"cables"}, {"ibnetdiscover"},
                                   {"hosts"},       {"node-pattern"}, {"order"},   {"json"}};

Outcome run_order(const Invocation& inv) {
  RAILYARD_ASSIGN_OR_RETURN(const ClusterInput in, load_cluster_input(inv));
  const topology::ClusterDescriptor<>& d = in.descriptor;
  RAILYARD_RETURN_IF_ERROR(check_node_pattern(inv, in));
  RAILYARD_ASSIGN_OR_RETURN(const JobInput job, load_job(inv.flags, d, file_host_names(in)));
  RAILYARD_ASSIGN_OR_RETURN(const placement::JobPlacement* chosen, chosen_order(inv.flags, job));
  const placement::OrderComparison both = placement::compare_orders(d, *chosen, job.naive);
  if (inv.flags.boolean("json")) return Output(report::order_json(both));
  std::string note;
  if (in.fit) {
    // The numbering follows SUs, rails and NVLink domains, none of which a
    // failed cable changes; what it does to the job's traffic is simulate's.
    std::vector<HostId> used;
    for (HostId h : in.fit->drained)
      if (std::find(job.naive.hosts.begin(), job.naive.hosts.end(), h) != job.naive.hosts.end())
        used.push_back(h);
    note = import_note(
        in, str_cat("the numbering is the same with or without them (it follows SUs, rails and "
                    "NVLink domains); ",
                    used.empty() ? std::string("no host of the job is drained")
                                 : str_cat("drained hosts in the job: ", host_list_text(in, used),
                                           " (pick other --hosts)"),
                    "; 'railyard simulate' times the job around the failures"));
  }
  return Output(str_cat(report::order_text(both), note));
}

}  // namespace

const Subcommand kOrder{
    "order",
    "--job PLAN [--cluster SPEC | --cables FILE | --ibnetdiscover FILE] [--hosts LIST] "
    "[--node-pattern P] "
    "[--order railyard|naive] [--json]",
    "which GPU is rank r: railyard's numbering, its traffic per tier vs the "
    "naive one",
    "",
    kOrderFlags,
    &run_order};

}  // namespace railyard::cli
