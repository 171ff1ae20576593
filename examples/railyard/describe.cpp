// railyard describe — the inventory of a cluster or an imported topology.
#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/report/cable_fit_report.hpp"
#include "railyard/report/inventory_report.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kDescribeFlags[] = {{"cluster"},      {"json"},      {"topology-conf"},
                                      {"topology-csv"}, {"host-gbps"}, {"leaf-up-gbps"},
                                      {"spine-up-gbps"}, {"cables"},   {"ibnetdiscover"}};

Outcome run_describe(const Invocation& inv) {
  RAILYARD_ASSIGN_OR_RETURN(Source src, load_source(inv));
  const bool json = inv.flags.boolean("json");
  if (src.fit) {
    // The fit (names, missing and miswired cables), then the fitted cluster's
    // inventory; --json gives the fit alone (describe --cluster=<its spec>
    // --json gives the inventory).
    if (json) return Output(report::cable_fit_json(*src.fit, src.origin));
    const topology::Inventory counts = topology::inventory(*src.descriptor);
    return Output(str_cat(report::cable_fit_text(*src.fit, src.origin), "\n",
                          report::inventory_text(*src.descriptor, counts)));
  }
  if (src.descriptor) {
    const topology::Inventory counts = topology::inventory(*src.descriptor);
    return Output(json ? report::inventory_json(*src.descriptor, counts, 2)
                       : report::inventory_text(*src.descriptor, counts));
  }
  const topology::FabricInventory counts = topology::fabric_inventory(*src.fabric);
  return Output(json ? report::fabric_inventory_json(counts, 2)
                     : report::fabric_inventory_text(counts));
}

}  // namespace

const Subcommand kDescribe{
    "describe",
    "[--cluster SPEC | --topology-conf FILE | --topology-csv FILE | --cables FILE | "
    "--ibnetdiscover FILE] [--json]",
    "inventory of the cluster: switches, ports, links, cables, bandwidth; for --cables and "
    "--ibnetdiscover, the fitted spec and the missing and miswired cables",
    "",
    kDescribeFlags,
    &run_describe};

}  // namespace railyard::cli
