// railyard/routing/paths.hpp — GPU-to-GPU paths through a materialized fabric,
// for every descriptor kind.
//
//   auto cluster = railyard::topology::make_cluster("h100-1024-railonly");
//   railyard::routing::GpuEndpoint a{railyard::HostId{0}, railyard::GpuIndex{1}};
//   railyard::routing::GpuEndpoint b{railyard::HostId{9}, railyard::GpuIndex{5}};
//   auto paths = railyard::routing::gpu_paths(cluster->descriptor, cluster->fabric, a, b);
//   // rail-only, different rails: GPU 1 -> NVLink -> GPU 5 of host 0 -> rail 5 -> host 9
//
// Rules:
// * Same host or same NVLink domain: one path over NVLink (GPU -> NVLink switch
//   -> GPU).
// * Otherwise the flow leaves through the NIC port the source GPU is paired with
//   (in `plane`; a flow never changes plane) and arrives through the destination
//   GPU's, over every up/down path between the two ports.
// * When those two ports have no network path — a rail-only fabric and GPUs on
//   different rails — the source first forwards over NVLink to the GPU of its own
//   host whose NIC is on the destination's rail (as NCCL's PXN does), then
//   crosses the network on that rail. `forward_over_nvlink` asks for the same
//   forwarding on any fabric (PXN on rail-optimized fat trees).
#pragma once

#include <cstdint>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::routing {

using railyard::GpuEndpoint;  // core/ids.hpp

struct GpuPath {
  std::vector<LinkId> links;    // source GPU first
  bool nvlink_forward = false;  // went over NVLink to another GPU's NIC first
};

struct GpuPathOptions {
  PlaneId plane{0};
  bool forward_over_nvlink = false;  // PXN-style forwarding even when rails connect
};

namespace detail {
// The link from node `from` to node `to` (the first such, by id).
RAILYARD_LAZY
LinkId link_between(const topology::Fabric& f, NodeId from, NodeId to) {
  for (LinkId l : f.out_links(from))
    if (f.dst(l) == to) return l;
  return LinkId{};
}
// GPU a -> the NVLink switch of its domain -> GPU b (same domain).
RAILYARD_LAZY
void append_nvlink(const topology::Fabric& f, GpuEndpoint a, GpuEndpoint b,
                          std::vector<LinkId>& out) {
  const NodeId ga = f.gpu(a.host, a.gpu);
  const NodeId gb = f.gpu(b.host, b.gpu);
  for (LinkId l : f.out_links(ga))
    if (f.tier(l) == topology::LinkTier::kNvlink) {
      out.push_back(l);
      out.push_back(link_between(f, f.dst(l), gb));
      return;
    }
}
}  // namespace detail

// How a flow from GPU a to GPU b (valid, distinct) gets through the fabric, by
// the rules above, without listing network routes: either NVLink only
// (network == false, prefix = the two NVLink links), or prefix (NVLink
// forwarding, then the PCIe link to the NIC port `src`), one up/down route from
// `src` to `dst`, then `last` (PCIe into GPU b).
struct NetworkCrossing {
  bool network = false;
  bool nvlink_forward = false;
  std::vector<LinkId> prefix;
  NicPort src;
  NicPort dst;
  LinkId last;
};

// The same, written into `x` (its prefix's storage is reused: the simulator
// maps millions of transfers a run).
RAILYARD_LAZY
void network_crossing_into(const topology::ClusterDescriptor<>& d, const topology::Fabric& f,
                           GpuEndpoint a, GpuEndpoint b, GpuPathOptions options,
                           NetworkCrossing& x) {
  x.prefix.clear();
  x.network = false;
  x.nvlink_forward = false;
  x.src = x.dst = NicPort{};
  x.last = LinkId{};
  if (a.host == b.host || d.domain_of(a.host) == d.domain_of(b.host)) {
    detail::append_nvlink(f, a, b, x.prefix);
    return;
  }
  x.network = true;
  x.dst = NicPort{b.host, d.nic_of_gpu(b.gpu), options.plane};
  x.src = NicPort{a.host, d.nic_of_gpu(a.gpu), options.plane};
  GpuEndpoint relay = a;  // the GPU whose NIC the flow leaves through
  const bool rails_differ = x.src.nic != x.dst.nic;
  if (rails_differ && (options.forward_over_nvlink || d.path_count(x.src, x.dst) == 0)) {
    relay = {a.host, d.gpu_of_nic(x.dst.nic)};
    x.src.nic = x.dst.nic;
  }
  x.nvlink_forward = relay != a;
  if (x.nvlink_forward) detail::append_nvlink(f, a, relay, x.prefix);
  x.prefix.push_back(detail::link_between(f, f.gpu(relay.host, relay.gpu), f.nic_port(x.src)));
  x.last = detail::link_between(f, f.nic_port(x.dst), f.gpu(b.host, b.gpu));
}

RAILYARD_LAZY
[[nodiscard]] NetworkCrossing network_crossing(const topology::ClusterDescriptor<>& d,
                                               const topology::Fabric& f, GpuEndpoint a,
                                               GpuEndpoint b, GpuPathOptions options = {}) {
  NetworkCrossing x;
  network_crossing_into(d, f, a, b, options, x);
  return x;
}

// Every path from GPU a to GPU b (rules above). Errors name the endpoint or the
// plane when they do not exist; an empty result never happens for valid input
// on a healthy fabric.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<GpuPath>> gpu_paths(
    const topology::ClusterDescriptor<>& d, const topology::Fabric& f, GpuEndpoint a,
    GpuEndpoint b, GpuPathOptions options = {}) {
  for (const GpuEndpoint& e : {a, b}) {
    if (e.host.value() < 0 || e.host.value() >= d.hosts())
      return invalid_field("host", str_cat(e.host.value()),
                           str_cat("out of range (hosts 0..", d.hosts() - 1, ")"));
    if (e.gpu.value() < 0 || e.gpu.value() >= d.gpus_per_host())
      return invalid_field("gpu", str_cat(e.gpu.value()),
                           str_cat("out of range (GPUs 0..", d.gpus_per_host() - 1, ")"));
  }
  if (options.plane.value() < 0 || options.plane.value() >= d.planes())
    return invalid_field("plane", str_cat(options.plane.value()),
                         str_cat("out of range (planes 0..", d.planes() - 1, ")"));
  std::vector<GpuPath> out;
  if (a == b) return out;
  const NetworkCrossing x = network_crossing(d, f, a, b, options);
  if (!x.network) {
    GpuPath p;
    p.links = x.prefix;
    out.push_back(std::move(p));
    return out;
  }
  d.for_each_route(x.src, x.dst, [&](const topology::Route& r) {
    GpuPath p;
    p.nvlink_forward = x.nvlink_forward;
    p.links = x.prefix;
    const topology::Path net = f.route_links(x.src, x.dst, r);
    for (LinkId l : net.view()) p.links.push_back(l);
    p.links.push_back(x.last);
    out.push_back(std::move(p));
  });
  return out;
}

}  // namespace railyard::routing
