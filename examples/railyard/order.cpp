// railyard order — which GPU is rank r: railyard's numbering against the naive one.
#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/report/order_report.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kOrderFlags[] = {required("job"), {"cluster"}, {"hosts"}, {"order"}, {"json"}};

Outcome run_order(const Invocation& inv) {
  RAILYARD_ASSIGN_OR_RETURN(const topology::ClusterDescriptor<> d, load_cluster(inv));
  RAILYARD_ASSIGN_OR_RETURN(const JobInput job, load_job(inv.flags, d));
  RAILYARD_ASSIGN_OR_RETURN(const placement::JobPlacement* chosen, chosen_order(inv.flags, job));
  const placement::OrderComparison both = placement::compare_orders(d, *chosen, job.naive);
  return Output(inv.flags.boolean("json") ? report::order_json(both) : report::order_text(both));
}

}  // namespace

const Subcommand kOrder{
    "order",
    "--job PLAN [--cluster SPEC] [--hosts LIST] [--order railyard|naive] [--json]",
    "which GPU is rank r: railyard's numbering, its traffic per tier vs the "
    "naive one",
    "",
    kOrderFlags,
    &run_order};

}  // namespace railyard::cli
