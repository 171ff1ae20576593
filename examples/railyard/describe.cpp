// railyard describe — the inventory of a cluster or an imported topology.
#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/report/inventory_report.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kDescribeFlags[] = {{"cluster"},      {"json"},      {"topology-conf"},
                                      {"topology-csv"}, {"host-gbps"}, {"leaf-up-gbps"},
                                      {"spine-up-gbps"}};

Outcome run_describe(const Invocation& inv) {
  RAILYARD_ASSIGN_OR_RETURN(Source src, load_source(inv));
  const bool json = inv.flags.boolean("json");
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

const Subcommand kDescribe{"describe",
                           "[--cluster SPEC | --topology-conf FILE | --topology-csv FILE] [--json]",
                           "inventory of the cluster: switches, ports, links, cables, bandwidth",
                           "",
                           kDescribeFlags,
                           &run_describe};

}  // namespace railyard::cli
