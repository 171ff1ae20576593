// railyard/report/inventory_report.hpp — the inventory as JSON and as a text report
// (what `railyard describe` prints).
//
//   auto cluster = railyard::topology::make_cluster("h100-1024");
//   auto inv = railyard::topology::inventory(cluster->descriptor);
//   std::string json = railyard::report::inventory_json(cluster->descriptor, inv);
//   std::string text = railyard::report::inventory_text(cluster->descriptor, inv);
//   // an imported Fabric: fabric_inventory_text(topology::fabric_inventory(fabric))
//
// JSON keys (docs/cli.md#json-output): cluster, kind, hosts, gpus, nics,
// nic_ports, rails, planes, sus, pods, nvlink_domains, switches.{leaf,spine,core,
// total}, ports.{leaf,spine,core}.{total,down,up,free}, links.{host_leaf,
// leaf_spine,spine_core}, cables.{copper,optical}, transceivers,
// oversubscription.{leaf,spine}, host_injection_gbps, bisection_gbps.
#pragma once

#include <algorithm>
#include <array>
#include <string>

#include "railyard/core/lazy.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/format.hpp"
#include "railyard/report/json.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/inventory.hpp"

namespace railyard::report {

RAILYARD_LAZY
[[nodiscard]] std::string inventory_json(const topology::ClusterDescriptor<>& d,
                                         const topology::Inventory& inv, int indent = 2) {
  using topology::SwitchTier;
  JsonWriter w(indent);
  w.begin_object();
  w.key("cluster").value(topology::to_spec_string(d.spec()));
  w.key("kind").value(topology::to_string(d.kind()));
  w.key("hosts").value(inv.hosts);
  w.key("gpus").value(inv.gpus);
  w.key("nics").value(inv.nics);
  w.key("nic_ports").value(inv.nic_ports);
  w.key("rails").value(inv.rails);
  w.key("planes").value(inv.planes);
  w.key("sus").value(inv.sus);
  w.key("pods").value(inv.pods);
  w.key("nvlink_domains").value(inv.nvlink_domains);
  w.key("switches").begin_object();
  for (size_t t = 0; t < 3; ++t) w.key(topology::kSwitchTierNames[t]).value(inv.tiers[t].switches);
  w.key("total").value(inv.switches());
  w.end_object();
  w.key("ports").begin_object();
  for (size_t t = 0; t < 3; ++t) {
    const topology::TierInventory& ti = inv.tiers[t];
    w.key(topology::kSwitchTierNames[t]).begin_object();
    w.key("total").value(ti.ports_total);
    w.key("down").value(ti.ports_down);
    w.key("up").value(ti.ports_up);
    w.key("free").value(ti.ports_free);
    w.end_object();
  }
  w.end_object();
  w.key("links").begin_object();
  w.key("host_leaf").value(inv.links_host_leaf);
  w.key("leaf_spine").value(inv.links_leaf_spine);
  w.key("spine_core").value(inv.links_spine_core);
  w.end_object();
  w.key("cables").begin_object();
  w.key("copper").value(inv.cables_copper);
  w.key("optical").value(inv.cables_optical);
  w.end_object();
  w.key("transceivers").value(inv.transceivers);
  w.key("oversubscription").begin_object();
  w.key("leaf").value(inv.tier(SwitchTier::kLeaf).oversubscription);
  w.key("spine").value(inv.tier(SwitchTier::kSpine).oversubscription);
  w.end_object();
  w.key("host_injection_gbps").value(inv.host_injection_gbps);
  w.key("bisection_gbps").value(inv.bisection_gbps);
  w.end_object();
  return std::move(w).line();
}

RAILYARD_LAZY
[[nodiscard]] std::string inventory_text(const topology::ClusterDescriptor<>& d,
                                         const topology::Inventory& inv) {
  using topology::SwitchTier;
  const topology::ClusterSpec& s = d.spec();
  const topology::ClosShape& c = d.shape();
  std::string out;
  str_append(out, "cluster   ", topology::to_spec_string(s), "\n");
  str_append(out, "hosts     ", inv.hosts, " x ", s.gpus_per_host, " GPUs = ", inv.gpus, " GPUs; ",
             inv.nics, " NICs (", inv.rails, " rails",
             inv.planes > 1 ? str_cat(" x ", inv.planes, " planes") : "", ", ", s.nic_gbps,
             " Gb/s per port)\n");
  // A partial last SU or pod (shape.hpp) is named with its size.
  const std::string last_pod =
      d.partial_pod() && inv.pods > 1
          ? str_cat(" (the last has ", d.sus_in_pod(inv.pods - 1), " of ", c.sus_per_pod, " SUs)")
          : "";
  str_append(out, "groups    ", su_count_text(inv.hosts, s.hosts_per_su), ", ", inv.pods, " pod",
             inv.pods == 1 ? "" : "s", last_pod, ", ", inv.nvlink_domains, " NVLink domains of ",
             s.scale_up, " GPUs\n");
  str_append(out, "\ntier    switches  ports: down     up   free   oversub\n");
  for (size_t t = 0; t < 3; ++t) {
    const topology::TierInventory& ti = inv.tiers[t];
    if (ti.switches == 0) continue;
    std::string name(topology::kSwitchTierNames[t]);
    name.resize(8, ' ');
    auto pad = [](int64_t v, size_t width) {
      std::string n = str_cat(v);
      return std::string(n.size() < width ? width - n.size() : 0, ' ') + n;
    };
    str_append(out, name, pad(ti.switches, 8), pad(ti.ports_down, 13), pad(ti.ports_up, 7),
               pad(ti.ports_free, 7), "   ",
               // Three decimals: a partial SU or pod gives ratios such as 0.833.
               ti.oversubscription > 0 ? str_cat(rounded(ti.oversubscription, 3), ":1")
                                       : std::string("-"),
               "\n");
  }
  str_append(out, "\nlinks     host-leaf ", inv.links_host_leaf, ", leaf-spine ",
             inv.links_leaf_spine, ", spine-core ", inv.links_spine_core, "\n");
  str_append(out, "cables    ", inv.cables_copper, " copper, ", inv.cables_optical, " optical (",
             inv.transceivers, " transceivers)\n");
  str_append(out, "bandwidth host injection ", inv.host_injection_gbps / 1000, " Tb/s, bisection ",
             inv.bisection_gbps / 1000, " Tb/s\n");
  if (c.leaf_up_ports > 0)
    str_append(out, "wiring    each leaf: ", c.leaf_down_ports, " down, ", c.leaf_up_ports,
               " up over ", c.spines_per_pod, " spines per pod",
               c.spine_up_ports > 0 ? str_cat("; each spine: ", c.spine_up_ports, " up over ",
                                              c.cores_per_group, " cores of its group")
                                    : std::string(),
               "\n");
  // A partial last SU or pod is cabled as a full one (shape.hpp): say what stays free.
  if (d.partial_su()) {
    const int32_t last = d.hosts_in_su(inv.sus - 1);
    const int32_t used = last;  // one port per host on a rail leaf
    str_append(out, "partial   the last SU has ", last, " of ", s.hosts_per_su,
               " hosts; its leaves are cabled as in a full SU",
               s.kind == topology::Kind::kTorFatTree
                   ? str_cat(" (", topology::detail::ceil_div(last, c.hosts_per_leaf), " of ",
                             c.leaves_per_su, " ToR leaves hold hosts)")
                   : str_cat(", each using ", used, " of its ", c.leaf_down_ports, " down ports"),
               "\n");
  }
  if (d.partial_pod() && inv.pods > 1)
    str_append(out, "partial   the last pod has ", d.sus_in_pod(inv.pods - 1), " of ",
               c.sus_per_pod, " SUs; its spines are those of a full pod, with free down ports\n");
  return out;
}

// The inventory of an explicit Fabric (topology::fabric_inventory), for clusters
// read from files (Slurm topology.conf, CSV). JSON keys: hosts,
// switches.{leaf,spine,core,total}, links.{host_leaf,leaf_spine,spine_core},
// bisection_gbps.
RAILYARD_LAZY
[[nodiscard]] std::string fabric_inventory_json(const topology::FabricInventory& c,
                                                int indent = 2) {
  JsonWriter w(indent);
  w.begin_object();
  w.key("hosts").value(c.hosts);
  w.key("switches").begin_object();
  for (size_t t = 0; t < 3; ++t) w.key(topology::kSwitchTierNames[t]).value(c.switches[t]);
  w.key("total").value(c.switches[0] + c.switches[1] + c.switches[2]);
  w.end_object();
  w.key("links").begin_object();
  w.key("host_leaf").value(c.links[0]);
  w.key("leaf_spine").value(c.links[1]);
  w.key("spine_core").value(c.links[2]);
  w.end_object();
  w.key("bisection_gbps").value(c.bisection_gbps);
  w.end_object();
  return std::move(w).line();
}

RAILYARD_LAZY
[[nodiscard]] std::string fabric_inventory_text(const topology::FabricInventory& c) {
  std::string out;
  str_append(out, "hosts     ", c.hosts, " (one NIC port each, as read from the file)\n");
  str_append(out, "switches  ", c.switches[0], " leaf, ", c.switches[1], " spine, ", c.switches[2],
             " core\n");
  str_append(out, "links     host-leaf ", c.links[0], ", leaf-spine ", c.links[1], ", spine-core ",
             c.links[2], "\n");
  str_append(out, "bandwidth bisection ", c.bisection_gbps / 1000,
             " Tb/s (one cable per switch pair at the given speeds: scheduler files carry no "
             "cable counts)\n");
  return out;
}

}  // namespace railyard::report
